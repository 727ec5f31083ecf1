import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from '@/app/app'
import { ConfigErrorScreen } from '@/app/config-error-screen'
import { loadConfig } from '@/config/env'
import { captureAuthRedirectError } from '@/lib/auth/redirect-error'
import { logger } from '@/lib/logger'
import { installGlobalErrorHandlers, watchPageLoad } from '@/lib/monitoring'
import { createSupabaseClient, supabaseAuditSink } from '@/lib/supabase'
import './index.css'

const container = document.getElementById('root')
if (!container) throw new Error('Missing #root element in index.html.')
const root = createRoot(container)

// supabase-js consumes the URL fragment of mailed links; keep a failed link's error first.
captureAuthRedirectError(window.location.hash)
installGlobalErrorHandlers()
watchPageLoad()

// Load the runtime config first, then create the single Supabase client and render.
loadConfig().then(
  (config) => {
    const client = createSupabaseClient(config)
    logger.setAuditSink(supabaseAuditSink(client))
    root.render(
      <StrictMode>
        <App client={client} config={config} />
      </StrictMode>,
    )
  },
  (error: unknown) => {
    logger.error('No se pudo cargar la configuración', { error })
    root.render(
      <StrictMode>
        <ConfigErrorScreen error={error} />
      </StrictMode>,
    )
  },
)

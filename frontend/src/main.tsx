import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './app/app'
import { ConfigErrorScreen } from './app/config-error-screen'
import { loadConfig } from './config/env'
import { initSupabase } from './lib/supabase'
import './index.css'

const container = document.getElementById('root')
if (!container) throw new Error('Missing #root element in index.html.')
const root = createRoot(container)

// Load the runtime config first, then create the single Supabase client and render.
loadConfig().then(
  (config) => {
    const client = initSupabase(config)
    root.render(
      <StrictMode>
        <App client={client} config={config} />
      </StrictMode>,
    )
  },
  (error: unknown) => {
    console.error('Cielo: could not load runtime config', error)
    root.render(
      <StrictMode>
        <ConfigErrorScreen error={error} />
      </StrictMode>,
    )
  },
)

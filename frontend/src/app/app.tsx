import type { AppConfig } from '../config/env'
import { HealthPage } from '../features/health/components/health-page'
import type { CieloClient } from '../lib/supabase'
import { SupabaseProvider } from './supabase-provider'

export interface AppProps {
  client: CieloClient
  config: AppConfig
}

export function App({ client, config }: AppProps) {
  return (
    <SupabaseProvider client={client} config={config}>
      <HealthPage />
    </SupabaseProvider>
  )
}

import { useState } from 'react'
import { createBrowserRouter, RouterProvider } from 'react-router'
import type { AppConfig } from '@/config/env'
import { createQueryClient } from '@/lib/query-client'
import type { CieloClient } from '@/lib/supabase'
import { AppProviders } from './providers'
import { routes } from './router'

export interface AppProps {
  client: CieloClient
  config: AppConfig
}

export function App({ client, config }: AppProps) {
  const [queryClient] = useState(createQueryClient)
  const [router] = useState(() => createBrowserRouter(routes))
  return (
    <AppProviders client={client} config={config} queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProviders>
  )
}

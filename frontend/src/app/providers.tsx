/**
 * Everything the app runs inside: the Supabase client and config, the query client, the
 * session context, tooltips (700 ms / 300 ms) and the toaster (bottom-right, Alt+T,
 * "Notifications"). Tests render through these same providers.
 */
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { Toaster } from 'sonner'
import { TooltipProvider } from '@/components/ui/tooltip'
import type { AppConfig } from '@/config/env'
import { AuthProvider } from '@/lib/auth/auth-provider'
import type { CieloClient } from '@/lib/supabase'
import { SupabaseProvider } from '@/lib/supabase-provider'

export const TOASTER_HOTKEY = ['altKey', 'KeyT']
export const TOASTER_LABEL = 'Notifications'

export interface AppProvidersProps {
  client: CieloClient
  config: AppConfig
  queryClient: QueryClient
  children: ReactNode
}

export function AppProviders({ client, config, queryClient, children }: AppProvidersProps) {
  return (
    <SupabaseProvider client={client} config={config}>
      <QueryClientProvider client={queryClient}>
        <AuthProvider>
          <TooltipProvider>
            {children}
            <Toaster
              position="bottom-right"
              hotkey={TOASTER_HOTKEY}
              containerAriaLabel={TOASTER_LABEL}
              theme="system"
              richColors
              closeButton
            />
          </TooltipProvider>
        </AuthProvider>
      </QueryClientProvider>
    </SupabaseProvider>
  )
}

import { createContext, use, type ReactNode } from 'react'
import type { AppConfig } from '@/config/env'
import type { CieloClient } from '@/lib/supabase'

interface SupabaseContextValue {
  client: CieloClient
  config: AppConfig
}

const SupabaseContext = createContext<SupabaseContextValue | null>(null)

/**
 * Makes the Supabase client and the runtime config available to the tree.
 * The app passes the single client from `initSupabase`; tests pass one built
 * with a fake `fetch`.
 */
export function SupabaseProvider({ client, config, children }: SupabaseContextValue & { children: ReactNode }) {
  return <SupabaseContext value={{ client, config }}>{children}</SupabaseContext>
}

function useSupabaseContext(): SupabaseContextValue {
  const value = use(SupabaseContext)
  if (!value) throw new Error('useSupabase must be used inside <SupabaseProvider>.')
  return value
}

export function useSupabase(): CieloClient {
  return useSupabaseContext().client
}

export function useAppConfig(): AppConfig {
  return useSupabaseContext().config
}

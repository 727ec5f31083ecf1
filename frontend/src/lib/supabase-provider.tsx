/**
 * The one way the tree gets its Supabase client and runtime config: `SupabaseProvider` at the
 * root, `useSupabase()` / `useAppConfig()` below it. Nothing reaches for a module-level client,
 * so a test renders any part of the app with a client of its own.
 */
import { createContext, use, type ReactNode } from 'react'
import type { AppConfig } from '@/config/env'
import type { CieloClient } from './supabase'

interface SupabaseContextValue {
  client: CieloClient
  config: AppConfig
}

const SupabaseContext = createContext<SupabaseContextValue | null>(null)

/**
 * Makes the Supabase client and the runtime config available to the tree.
 * The app passes the single client `main.tsx` creates; tests pass one built
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

/** The client of the nearest {@link SupabaseProvider}. */
export function useSupabase(): CieloClient {
  return useSupabaseContext().client
}

/** The runtime config of the nearest {@link SupabaseProvider}. */
export function useAppConfig(): AppConfig {
  return useSupabaseContext().config
}

import { createClient, type SupabaseClient, type SupabaseClientOptions } from '@supabase/supabase-js'
import type { AppConfig } from '@/config/env'
import type { Database } from './database.types'

/** A client typed by the database schema (`database.types.ts`, generated from the migrations). */
export type CieloClient = SupabaseClient<Database>

export type CieloClientOptions = SupabaseClientOptions<'public'>

/**
 * Builds a Supabase client from the runtime config. `main.tsx` creates the app's single
 * client with it, once the config is loaded, and hands it to `SupabaseProvider`; tests
 * inject a fake `fetch` (`{ global: { fetch } }`) at the network boundary.
 */
export function createSupabaseClient(config: AppConfig, options: CieloClientOptions = {}): CieloClient {
  return createClient<Database>(config.supabaseUrl, config.supabaseAnonKey, options)
}

/**
 * supabase-js's authenticated fetch wrapper.
 *
 * `SupabaseClient.rest` and `SupabaseClient.fetch` are `protected`, but
 * `client.schema()` is public and returns a `PostgrestClient` whose public
 * `fetch` is the wrapper supabase-js installs (`fetchWithAuth`): it sets
 * `apikey: <anon key>` and `Authorization: Bearer <session access token, or
 * the anon key when signed out>` exactly like every `from()`/`rpc()` call,
 * on top of the `global.fetch` the client was created with. `url` is the
 * client's `{supabaseUrl}/rest/v1`.
 */
export function getClientFetch(supabase: CieloClient): { fetch: typeof fetch; restUrl: string } {
  const rest = supabase.schema('public')
  if (!rest.fetch) {
    throw new Error('The Supabase client exposes no fetch implementation.')
  }
  return { fetch: rest.fetch, restUrl: rest.url }
}

/**
 * Where security events go outside development: one insert into `security_audit_log`, as
 * the signed-in user (the table takes no anonymous entries, so without a session there is
 * nothing to write).
 */
export function supabaseAuditSink(supabase: CieloClient) {
  return async (entry: import('./logger').AuditEntry): Promise<void> => {
    const { data } = await supabase.auth.getSession()
    if (!data.session) return
    const { error } = await supabase.from('security_audit_log').insert(entry)
    if (error) throw error
  }
}

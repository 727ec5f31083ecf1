/**
 * A plan zone's text saved as the teacher writes: the document autosave over `plan_zones`,
 * whose `version` (raised by the database on every change of content) is the check that no
 * other tab or device saved in between.
 */
import { useMemo } from 'react'
import { useDocumentAutosave, type DocumentAutosave, type DocumentStore } from '@/lib/document-autosave'
import type { Json } from '@/lib/database.types'
import { useSupabase } from '@/lib/supabase-provider'
import type { Zone } from './plans'

export function useZoneAutosave(zone: Zone, replace: (content: Json) => void): DocumentAutosave {
  const supabase = useSupabase()
  const store = useMemo<DocumentStore>(
    () => ({
      name: `zone:${zone.id}`,
      save: async (content, base) => {
        const { data, error } = await supabase
          .from('plan_zones')
          .update({ content })
          .eq('id', zone.id)
          .eq('version', Number(base))
          .select('version')
        if (error) throw error
        return data[0]?.version ?? null
      },
      load: async () => {
        const { data, error } = await supabase.from('plan_zones').select('version, content').eq('id', zone.id).single()
        if (error) throw error
        return data
      },
    }),
    [supabase, zone.id],
  )
  return useDocumentAutosave(store, { version: zone.version, content: zone.content }, replace)
}

/**
 * Changing a plan's OAs after it was made: the curriculum browser with the current ones
 * chosen; saving replaces the list in one call (`rpc('set_plan_objectives')`). For a unit the
 * order of the curriculum is the order its classes work them.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Button } from '@/components/ui/button'
import { AppDialog } from '@/components/ui/dialog'
import { FormError } from '@/components/ui/field'
import { databaseErrorMessage, isDatabaseError } from '@/lib/errors'
import { notify } from '@/lib/notify'
import { useSupabase } from '@/lib/supabase-provider'
import { plannerKeys, useObjectives, type Objective } from '@/features/planner/api/plans'
import { ObjectivePicker } from './objective-picker'

export interface ObjectivesDialogProps {
  planId: string
  levelCode: string
  subjectCode: string
  current: Objective[]
  max: number
  onClose: () => void
}

export function ObjectivesDialog({ planId, levelCode, subjectCode, current, max, onClose }: ObjectivesDialogProps) {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  const objectives = useObjectives(levelCode, subjectCode)
  const [chosen, setChosen] = useState(current.map((o) => o.id))
  const [error, setError] = useState<string | null>(null)
  const save = useMutation({
    mutationFn: async (ids: string[]) => {
      const { error: refused } = await supabase.rpc('set_plan_objectives', { plan_id: planId, objective_ids: ids })
      if (refused) throw refused
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: plannerKeys.all }),
  })

  return (
    <AppDialog title="Objetivos de aprendizaje" description="Los OA que trabaja esta planificación; la IA genera a partir de ellos." onClose={onClose} testId="objectives-dialog">
      <div className="flex flex-col gap-4">
        <ObjectivePicker
          objectives={objectives}
          chosen={chosen}
          max={max}
          onToggle={(id) => setChosen((ids) => (ids.includes(id) ? ids.filter((x) => x !== id) : ids.length >= max ? ids : [...ids, id]))}
        />
        <FormError message={error} testId="objectives-error" />
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>
            Cancelar
          </Button>
          <Button
            disabled={save.isPending}
            data-testid="save-objectives"
            onClick={() => {
              if (chosen.length === 0) return setError('Elige al menos un OA.')
              const ordered = (objectives.data ?? []).filter((o) => chosen.includes(o.id)).map((o) => o.id)
              save.mutate(ordered, {
                onSuccess: () => {
                  notify.success('OA actualizados')
                  onClose()
                },
                onError: (refused) => setError(isDatabaseError(refused) ? databaseErrorMessage(refused) : 'No se pudieron guardar los OA.'),
              })
            }}
          >
            {save.isPending ? 'Guardando…' : 'Guardar OA'}
          </Button>
        </div>
      </div>
    </AppDialog>
  )
}

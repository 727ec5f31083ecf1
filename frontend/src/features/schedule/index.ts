/** The weekly schedule (Horario): its grid arithmetic and its blocks. */
import { lazy } from 'react'

export * from './grid'
export {
  blocksQueryOptions,
  scheduleKeys,
  toBlock,
  useCreateBlock,
  useDeleteBlock,
  useSaveSchoolDay,
  useScheduleBlocks,
  useSchoolDay,
  useUpdateBlock,
  type BlockDraft,
  type ScheduleBlock,
} from './api/schedule'
export type { BlockEditing } from './components/block-dialog'

// The dialogs load when first opened: a page's first download holds only what it draws.
export const BlockDialog = lazy(() => import('./components/block-dialog').then((module) => ({ default: module.BlockDialog })))
export const DayDialog = lazy(() => import('./components/day-dialog').then((module) => ({ default: module.DayDialog })))
export { PrintWeek } from './components/print-week'
export { WeekGrid, describePlace, placeProblem } from './components/week-grid'

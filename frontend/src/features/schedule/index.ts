/** The weekly schedule (Horario): its grid arithmetic and its blocks. */
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
export { BlockDialog, type BlockEditing } from './components/block-dialog'
export { DayDialog } from './components/day-dialog'
export { PrintWeek } from './components/print-week'
export { WeekGrid, describePlace, placeProblem } from './components/week-grid'

/**
 * The week as a printed page: a table of hours and breaks by weekday with each block's course
 * and room, for the teacher's folder or the staff-room wall. Hidden on screen; it is what
 * `window.print()` shows.
 */
import type { CourseLabel } from '@/features/courses'
import { WEEKDAYS, WEEKDAY_NAMES, blockEnd, dayRows, formatTime, type DayShape } from '@/features/schedule/grid'
import type { ScheduleBlock } from '@/features/schedule/api/schedule'

export function PrintWeek({
  shape,
  blocks,
  labels,
  title,
}: {
  shape: DayShape
  blocks: ScheduleBlock[]
  labels: Map<string, CourseLabel>
  title: string
}) {
  const rows = dayRows(shape)
  const hourStarts = new Set(rows.filter((row) => row.kind === 'hour').map((row) => row.start))
  const onGrid = blocks.filter((block) => hourStarts.has(block.start))
  const offGrid = blocks.filter((block) => !hourStarts.has(block.start))
  // Cells a block started above already covers.
  const covered = new Set<string>()
  for (const block of onGrid) {
    const first = rows.findIndex((row) => row.start === block.start)
    for (let at = first + 1; at < first + block.hours && at < rows.length; at += 1) {
      covered.add(`${block.weekday}-${rows[at]?.start}`)
    }
  }

  return (
    <section className="hidden print:block" data-testid="print-week">
      <h2 className="mb-3 text-xl font-bold">{title}</h2>
      <table className="w-full table-fixed border-collapse text-xs">
        <thead>
          <tr>
            <th className="w-20 border border-black p-1">Hora</th>
            {WEEKDAYS.map((day) => (
              <th key={day} className="border border-black p-1">
                {WEEKDAY_NAMES[day]}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) =>
            row.kind === 'break' ? (
              <tr key={`break-${row.start}`}>
                <td className="border border-black p-1 text-center italic" colSpan={WEEKDAYS.length + 1}>
                  {row.label} · {formatTime(row.start)}–{formatTime(row.end)}
                </td>
              </tr>
            ) : (
              <tr key={`hour-${row.start}`} className="h-10">
                <th className="border border-black p-1 text-left font-normal">
                  {row.hour}ª · {formatTime(row.start)}
                </th>
                {WEEKDAYS.map((day) => {
                  if (covered.has(`${day}-${row.start}`)) return null
                  const block = onGrid.find((b) => b.weekday === day && b.start === row.start)
                  if (!block) return <td key={day} className="border border-black p-1" />
                  const label = labels.get(block.courseId)
                  return (
                    <td key={day} rowSpan={block.hours} className="border border-black p-1 align-top">
                      <strong>{label?.subject}</strong>
                      <br />
                      {label?.group}
                      {block.room ? ` · ${block.room}` : ''}
                    </td>
                  )
                })}
              </tr>
            ),
          )}
        </tbody>
      </table>
      {offGrid.length > 0 ? (
        <ul className="mt-3 text-xs">
          {offGrid.map((block) => (
            <li key={block.id}>
              {WEEKDAY_NAMES[block.weekday]} {formatTime(block.start)}–{formatTime(blockEnd(block))}: {labels.get(block.courseId)?.name}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  )
}

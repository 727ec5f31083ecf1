import { lazy, Suspense } from 'react'
import { useDemoStars } from '@/features/demo-stars/api/demo-stars'

// Most teachers are not in the demo: the widget's code loads only for those who are.
const Widget = lazy(() => import('./stars-widget').then((module) => ({ default: module.StarsWidget })))

/** The widget itself, for pages that already know the user is in the demo. */
export const StarsPanel = Widget

/** Estrellas Cielo for demo users (nothing for anyone else). */
export function StarsWidget({ collapsed }: { collapsed: boolean }) {
  const { data: stars } = useDemoStars()
  return stars?.isDemoUser ? (
    <Suspense fallback={null}>
      <Widget collapsed={collapsed} />
    </Suspense>
  ) : null
}

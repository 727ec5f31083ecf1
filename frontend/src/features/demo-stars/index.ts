/** Estrellas Cielo: demo users' AI quota, its sidebar widget, dialog and notices. */
import { lazy } from 'react'

export { StarsWidget, StarsPanel } from './components/stars-slot'
// The notices load after the page: they are toasts, never part of the first paint.
export const StarNotices = lazy(() => import('./components/star-notices').then((module) => ({ default: module.StarNotices })))
export { useDemoStars } from './api/demo-stars'
export { generationBlock, useRecordStarUse } from './api/star-use'

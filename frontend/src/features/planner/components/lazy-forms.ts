/**
 * The plan form loaded on demand: `/planner/create` opens existing plans far more often than
 * it starts one, so the form is not part of the page's first download.
 */
import { lazy } from 'react'

export const LazyNewPlanForm = /* @__PURE__ */ lazy(() => import('./new-plan-form').then((module) => ({ default: module.NewPlanForm })))

/** Planning: simple plans made of zones, edited with autosave and generated with AI. */
export { PlanEditor } from './components/plan-editor'
export { NewPlanForm, filterObjectives, MAX_PLAN_OBJECTIVES, type PlanChoice } from './components/new-plan-form'
export { plannerKeys, useClassSession, useDeletePlan, usePlans, type PlanSummary } from './api/plans'
export * from './zones'

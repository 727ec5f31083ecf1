/** The public trial: a visitor generates a plan without an account and keeps it by signing up. */
export { KeepIt, PlanTrial } from './components/plan-trial'

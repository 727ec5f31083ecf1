/** Borradores: free-form drafts in the document editor. */
export { draftKeys, useRecentDrafts, type DraftSummary } from './api/recent-drafts'

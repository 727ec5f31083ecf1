/** Borradores: free-form drafts in the rich-text editor, and turning one into a plan. */
export { draftKeys, useRecentDrafts, type DraftSummary } from './api/recent-drafts'
export {
  useCreateDraft,
  useDeleteDraft,
  useDraft,
  useDraftAutosave,
  useDrafts,
  useDuplicateDraft,
  usePromoteDraft,
  useUpdateDraftDetails,
  type Draft,
  type DraftRow,
} from './api/drafts'

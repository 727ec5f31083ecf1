/** Anuncios: the platform team's announcements, which ones the user has read, and writing them (admins). */
export {
  announcementKeys,
  arrangeAnnouncements,
  useAnnouncements,
  useMarkAnnouncementsRead,
  type Announcement,
  type ShownAnnouncement,
} from './api/announcements'
export {
  AUDIENCE_LABELS,
  STATE_LABELS,
  announcementState,
  useAllAnnouncements,
  useDeleteAnnouncement,
  useSaveAnnouncement,
  type AnnouncementDraft,
  type AnnouncementRow,
  type AnnouncementState,
} from './api/manage'
export { AnnouncementsAdmin } from './components/announcements-admin'

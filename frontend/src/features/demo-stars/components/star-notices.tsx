import { useEffect } from 'react'
import { toast } from 'sonner'
import { useAuth } from '@/lib/auth/auth-provider'
import { useDemoStars } from '@/features/demo-stars/api/demo-stars'
import { STAR_NOTICES, nextNotice, readShownNotices, writeShownNotices } from '@/features/demo-stars/notices'

/** Shows the Estrellas Cielo notice a demo user's usage calls for, once per session. */
export function StarNotices() {
  const { user } = useAuth()
  const { data: stars } = useDemoStars()
  useEffect(() => {
    if (!user || !stars) return
    const { show, shown } = nextNotice(readShownNotices(user.id), stars)
    writeShownNotices(user.id, shown)
    if (!show) return
    const notice = STAR_NOTICES[show]
    const options = { id: `stars-${show}`, description: notice.description, duration: notice.duration }
    if (notice.tone === 'warning') toast.warning(notice.title, options)
    else toast.error(notice.title, options)
  }, [user, stars])
  return null
}

import { ConfirmEmailPage } from '@/features/auth/components/confirm-email-page'

export default function ConfirmEmailRoute() {
  return <ConfirmEmailPage />
}

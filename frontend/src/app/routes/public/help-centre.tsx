/** Centro de ayuda: the same questions as the in-app Ayuda, for visitors not signed in. */
import { Link } from 'react-router'
import { PublicLayout } from '@/components/layout/public-layout'
import { buttonClass } from '@/components/ui/button'
import { PageHeader } from '@/components/ui/page-header'
import { paths } from '@/config/paths'
import { HelpCentre } from '@/features/help'

export default function HelpCentreRoute() {
  return (
    <PublicLayout>
      <PageHeader title="Centro de ayuda" description="Preguntas frecuentes y guías de uso de Cielo.">
        <div>
          <Link to={paths.auth} className={buttonClass('primary')}>
            Ingresar a Cielo
          </Link>
        </div>
      </PageHeader>
      <HelpCentre />
    </PublicLayout>
  )
}

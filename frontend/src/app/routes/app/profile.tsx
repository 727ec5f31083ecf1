import { PageHeader } from '@/components/ui/page-header'
import { Skeleton } from '@/components/ui/skeleton'
import { DataAttributions } from '@/components/layout/public-layout'
import { FALLBACK_SCHOOL_NAME, useProfile, useSchool } from '@/features/profile'
import { useAuth } from '@/lib/auth/auth-provider'
import { formatDate } from '@/lib/dates'

export default function ProfileRoute() {
  const { user } = useAuth()
  const profile = useProfile()
  const school = useSchool(profile.data?.school_rbd)
  const fullName = [profile.data?.first_name, profile.data?.last_name].filter(Boolean).join(' ')

  const rows: Array<[string, string]> = [
    ['Nombre', fullName || 'Sin completar'],
    ['Correo electrónico', user?.email ?? ''],
    ['Establecimiento', school.data ? `${school.data.NOM_RBD} (RBD ${school.data.RBD})` : FALLBACK_SCHOOL_NAME],
    ['Cuenta creada', user?.created_at ? formatDate(user.created_at) : ''],
  ]

  return (
    <div>
      <PageHeader title="Mi perfil" description="Tus datos en Cielo." />
      {profile.isPending ? (
        <Skeleton className="h-40 w-full" />
      ) : (
        <section className="rounded-card border border-line bg-surface p-5 shadow-card">
          <dl className="grid gap-4 sm:grid-cols-[12rem_1fr]">
            {rows.map(([label, value]) => (
              <div key={label} className="contents">
                <dt className="text-sm font-medium text-ink-muted">{label}</dt>
                <dd className="text-ink break-words">{value}</dd>
              </div>
            ))}
          </dl>
          {!profile.data?.is_complete ? (
            <p className="mt-4 text-sm text-ink-muted">
              Tu perfil está incompleto: nombre, apellido y cómo conociste Cielo se completan al configurar tu cuenta.
            </p>
          ) : null}
        </section>
      )}
      <div className="mt-6">
        <DataAttributions />
      </div>
    </div>
  )
}

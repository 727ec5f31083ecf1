import { Suspense } from 'react'
import { PageHeader } from '@/components/ui/page-header'
import { Skeleton } from '@/components/ui/skeleton'
import { DataAttributions } from '@/components/layout/public-layout'
import { FALLBACK_SCHOOL_NAME, ProfileForm, displayFullName, initialsOf, useProfile, useSchool } from '@/features/profile'
import { useAuth } from '@/lib/auth/auth-provider'
import { formatDate } from '@/lib/dates'
import { notify } from '@/lib/notify'

export default function ProfileRoute() {
  const { user } = useAuth()
  const profile = useProfile()
  const school = useSchool(profile.data?.school_rbd)

  return (
    <div className="flex flex-col gap-6" data-testid="profile-page">
      <PageHeader title="Mi perfil" description="Tus datos en Cielo: así te saludamos y mostramos tu establecimiento." />
      {profile.isPending ? (
        <Skeleton className="h-72 w-full" />
      ) : (
        <>
          <section className="flex items-center gap-4 rounded-card border border-line bg-surface p-5 shadow-card" aria-label="Tu cuenta">
            <span
              aria-hidden="true"
              className="inline-flex size-16 shrink-0 items-center justify-center rounded-full bg-brand text-2xl font-semibold text-white"
              data-testid="profile-initials"
            >
              {initialsOf(profile.data, user?.email)}
            </span>
            <div className="min-w-0">
              <p className="text-lg font-semibold break-words text-ink">{displayFullName(profile.data, user?.email)}</p>
              <p className="text-sm break-words text-ink-muted">{user?.email}</p>
              <p className="text-sm break-words text-ink-muted">{school.data?.NOM_RBD ?? FALLBACK_SCHOOL_NAME}</p>
              {user?.created_at ? <p className="text-xs text-ink-muted">En Cielo desde el {formatDate(user.created_at)}</p> : null}
            </div>
          </section>
          <section className="rounded-card border border-line bg-surface p-5 shadow-card" aria-labelledby="profile-data">
            <h2 id="profile-data" className="mb-4 text-lg font-semibold text-ink">
              Tus datos
            </h2>
            {!profile.data?.is_complete ? (
              <p className="mb-4 rounded-lg bg-wait-soft p-3 text-sm text-ink" data-testid="profile-incomplete">
                Completa tu nombre, apellido y cómo conociste Cielo para terminar de configurar tu cuenta.
              </p>
            ) : null}
            <Suspense fallback={<Skeleton className="h-96 w-full" />}>
              <ProfileForm
                key={profile.dataUpdatedAt}
                profile={profile.data ?? null}
                submitLabel="Guardar cambios"
                onSaved={() => notify.success('Perfil guardado', 'Tus datos quedaron actualizados.')}
              />
            </Suspense>
          </section>
        </>
      )}
      <DataAttributions />
    </div>
  )
}

/**
 * Every route of the spec (section 2), each page lazy-loaded (route-level code splitting):
 * public pages; signed-in, e-mail-confirmed pages inside the sidebar layout (with the
 * catch-all not-found page); signed-in pages without it; the content-creator page; and
 * /waitlist, /acceso-anticipado sending to /auth.
 */
import { lazy, Suspense } from 'react'
import { Navigate, Outlet, useLocation, useNavigate, type RouteObject } from 'react-router'
import { ErrorBoundary } from '@/components/errors/error-boundary'
import { RouterFallback } from '@/components/errors/router-fallback'
import { SkeletonBars } from '@/components/ui/skeleton'
import { paths } from '@/config/paths'
import { RequireAuth } from '@/app/require-auth'
import { RecoveryRedirect } from './recovery-redirect'

const Landing = lazy(() => import('./routes/public/landing'))
const Auth = lazy(() => import('./routes/public/auth'))
const ConfirmEmail = lazy(() => import('./routes/public/confirm-email'))
const InfoPage = lazy(() => import('./routes/public/info-page'))
const PlanTrial = lazy(() => import('./routes/public/plan-trial'))
const Status = lazy(() => import('./routes/public/status'))
const Onboarding = lazy(() => import('./routes/public/onboarding'))
const AppLayout = lazy(() => import('./layouts/app-layout').then((module) => ({ default: module.AppLayout })))
const Dashboard = lazy(() => import('./routes/app/dashboard'))
const Profile = lazy(() => import('./routes/app/profile'))
const Courses = lazy(() => import('./routes/app/courses'))
const Schedule = lazy(() => import('./routes/app/schedule'))
const Calendar = lazy(() => import('./routes/app/calendar'))
const PlannerCreate = lazy(() => import('./routes/focus/planner-create'))
const Planner = lazy(() => import('./routes/app/planner'))
const Drafts = lazy(() => import('./routes/app/drafts'))
const DraftEditor = lazy(() => import('./routes/focus/draft-editor'))
const Monitoring = lazy(() => import('./routes/app/monitoring'))
const Help = lazy(() => import('./routes/app/help'))
const HelpCentre = lazy(() => import('./routes/public/help-centre'))
const Announcements = lazy(() => import('./routes/app/announcements'))
const AdminPlatform = lazy(() => import('./routes/app/admin-platform'))
const Directivo = lazy(() => import('./routes/app/directivo'))
const ContentCreation = lazy(() => import('./routes/app/content-creation'))
const NotFound = lazy(() => import('./routes/app/not-found'))
const Sequential = lazy(() => import('./routes/app/sequential'))
const SequentialUnit = lazy(() => import('./routes/app/sequential-unit'))
const SequentialClassEdit = lazy(() => import('./routes/focus/sequential-class-edit'))

function RootShell() {
  const location = useLocation()
  const navigate = useNavigate()
  return (
    <>
      <RecoveryRedirect />
      <ErrorBoundary resetKey={location.pathname} onGoToDashboard={() => navigate(paths.dashboard)}>
        <Suspense fallback={<SkeletonBars />}>
          <Outlet />
        </Suspense>
      </ErrorBoundary>
    </>
  )
}

const toAuth = <Navigate to={paths.auth} replace />

export const routes: RouteObject[] = [
  {
    element: <RootShell />,
    errorElement: <RouterFallback />,
    children: [
      // Public
      { path: paths.landing, element: <Landing /> },
      { path: paths.auth, element: <Auth /> },
      { path: paths.confirmEmail, element: <ConfirmEmail /> },
      { path: paths.createPlanMarketing, element: <PlanTrial page="createPlan" /> },
      { path: paths.aiPlanning, element: <PlanTrial page="aiPlanning" /> },
      { path: paths.nationalCurriculum, element: <InfoPage page="curriculum" /> },
      { path: paths.helpCentre, element: <HelpCentre /> },
      { path: paths.contact, element: <InfoPage page="contact" /> },
      { path: paths.tutorials, element: <InfoPage page="tutorials" /> },
      { path: paths.terms, element: <InfoPage page="terms" /> },
      { path: paths.privacy, element: <InfoPage page="privacy" /> },
      { path: paths.mineduc, element: <InfoPage page="mineduc" /> },
      { path: paths.pricing, element: <InfoPage page="pricing" /> },
      { path: paths.onboarding, element: <Onboarding /> },
      { path: paths.zonesSandbox, element: <InfoPage page="zonesSandbox" /> },
      { path: paths.documentPlanner, element: <InfoPage page="documentPlanner" /> },
      { path: paths.status, element: <Status /> },
      { path: paths.waitlist, element: toAuth },
      { path: paths.earlyAccess, element: toAuth },

      // Signed in, e-mail confirmed, inside the sidebar layout
      {
        element: (
          <RequireAuth>
            <AppLayout />
          </RequireAuth>
        ),
        children: [
          { path: paths.dashboard, element: <Dashboard /> },
          { path: paths.profile, element: <Profile /> },
          { path: paths.courses, element: <Courses /> },
          { path: paths.planner, element: <Planner /> },
          { path: paths.drafts, element: <Drafts /> },
          { path: paths.sequential, element: <Sequential /> },
          { path: '/planner/sequential/:sessionId', element: <SequentialUnit /> },
          { path: paths.schedule, element: <Schedule /> },
          { path: paths.calendar, element: <Calendar /> },
          { path: paths.adminPlatform, element: <AdminPlatform /> },
          { path: paths.adminMonitoring, element: <Monitoring /> },
          { path: paths.help, element: <Help /> },
          { path: paths.announcements, element: <Announcements /> },
          { path: paths.directivo, element: <Directivo /> },
          {
            path: paths.contentCreation,
            element: (
              <RequireAuth contentCreator>
                <ContentCreation />
              </RequireAuth>
            ),
          },
          { path: '*', element: <NotFound /> },
        ],
      },

      // Signed in, without the sidebar layout
      {
        element: (
          <RequireAuth>
            <Outlet />
          </RequireAuth>
        ),
        children: [
          { path: '/editor/draft/:id', element: <DraftEditor /> },
          { path: paths.plannerCreate, element: <PlannerCreate /> },
          { path: '/planner/sequential/:sessionId/class/:classId/edit', element: <SequentialClassEdit /> },
        ],
      },
    ],
  },
]

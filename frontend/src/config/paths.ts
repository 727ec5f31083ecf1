/**
 * Every route of the app, in one place (spec section 2). Components link with these
 * helpers instead of writing paths by hand.
 */
export const paths = {
  // Public
  landing: '/',
  auth: '/auth',
  confirmEmail: '/confirm-email',
  createPlanMarketing: '/crear-planificacion',
  aiPlanning: '/planificacion-ia',
  nationalCurriculum: '/curriculum-nacional',
  helpCentre: '/centro-ayuda',
  contact: '/contacto',
  tutorials: '/tutoriales',
  terms: '/terminos',
  privacy: '/privacidad',
  mineduc: '/mineduc',
  pricing: '/precios',
  onboarding: '/onboarding',
  zonesSandbox: '/dev/zones-sandbox',
  documentPlanner: '/dev/document-planner',
  /** Stack health page ("Estado de Cielo"), public. */
  status: '/estado',
  // Redirected to /auth
  waitlist: '/waitlist',
  earlyAccess: '/acceso-anticipado',

  // Signed in and e-mail confirmed, inside the sidebar layout
  dashboard: '/dashboard',
  profile: '/profile',
  courses: '/courses',
  planner: '/planner',
  drafts: '/drafts',
  sequential: '/planner/sequential',
  sequentialSession: (sessionId: string) => `/planner/sequential/${encodeURIComponent(sessionId)}`,
  schedule: '/schedule',
  calendar: '/calendar',
  adminPlatform: '/admin/platform',
  adminMonitoring: '/admin/monitoring',
  help: '/help',
  announcements: '/announcements',
  directivo: '/dev/directivo',
  /** Content creators only (guarded), inside the sidebar layout. */
  contentCreation: '/admin/creacion-contenido',

  // Signed in, without the sidebar layout
  draftEditor: (id: string) => `/editor/draft/${encodeURIComponent(id)}`,
  plannerCreate: '/planner/create',
  /** A new plan for one class of the calendar. */
  planForClass: (classSessionId: string) => `/planner/create?clase=${encodeURIComponent(classSessionId)}`,
  /** An existing plan, opened in the planner. */
  plan: (planId: string) => `/planner/create?plan=${encodeURIComponent(planId)}`,
  sequentialClassEdit: (sessionId: string, classId: string) =>
    `/planner/sequential/${encodeURIComponent(sessionId)}/class/${encodeURIComponent(classId)}/edit`,
} as const

-- Product roles: admin (platform and monitoring areas), content_creator (content-creation
-- area: curriculum resources), directivo (school leader: reads the courses and plans of one
-- school and manages its calendar events). Everyone else is a teacher who sees only their own
-- rows.
--
-- The checks policies and the app call (`is_admin()`, `is_content_creator()`, via
-- `rpc('is_admin')`) are SECURITY DEFINER so they can read user_roles whatever its policies,
-- with an empty search_path and schema-qualified names so a caller's objects cannot stand in
-- for ours. They only ever answer about the caller (auth.uid()).

CREATE TYPE public.app_role AS ENUM ('admin', 'content_creator', 'directivo');
COMMENT ON TYPE public.app_role IS 'Product roles beyond teacher: admin, content_creator, directivo (school leader).';

CREATE TABLE public.user_roles (
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  role public.app_role NOT NULL,
  school_rbd integer REFERENCES public.schools ("RBD"),
  granted_by uuid DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE SET NULL,
  granted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, role),
  CONSTRAINT user_roles_school_only_for_directivo CHECK ((role = 'directivo') = (school_rbd IS NOT NULL))
);
COMMENT ON TABLE public.user_roles IS 'Roles granted to users. Only admins grant or revoke; users read their own.';
COMMENT ON COLUMN public.user_roles.user_id IS 'User holding the role.';
COMMENT ON COLUMN public.user_roles.role IS 'admin, content_creator or directivo.';
COMMENT ON COLUMN public.user_roles.school_rbd IS 'School a directivo leads (required for directivo, empty for other roles).';
COMMENT ON COLUMN public.user_roles.granted_by IS 'Admin who granted the role (null when granted by a migration or the service).';
COMMENT ON COLUMN public.user_roles.granted_at IS 'When the role was granted.';
CREATE INDEX user_roles_school_idx ON public.user_roles (school_rbd) WHERE school_rbd IS NOT NULL;

CREATE FUNCTION public.is_admin() RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = ''
AS $$
  SELECT EXISTS (
    SELECT 1 FROM public.user_roles
     WHERE user_id = auth.uid() AND role = 'admin')
$$;
COMMENT ON FUNCTION public.is_admin() IS 'True when the calling user is an admin. rpc(''is_admin'').';

CREATE FUNCTION public.is_content_creator() RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = ''
AS $$
  SELECT EXISTS (
    SELECT 1 FROM public.user_roles
     WHERE user_id = auth.uid() AND role = 'content_creator')
$$;
COMMENT ON FUNCTION public.is_content_creator() IS 'True when the calling user is a content creator. rpc(''is_content_creator'').';

CREATE FUNCTION public.is_directivo_of(school_rbd integer) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = ''
AS $$
  SELECT EXISTS (
    SELECT 1 FROM public.user_roles r
     WHERE r.user_id = auth.uid() AND r.role = 'directivo' AND r.school_rbd = is_directivo_of.school_rbd)
$$;
COMMENT ON FUNCTION public.is_directivo_of(integer) IS 'True when the calling user is the directivo (school leader) of the given school.';

-- Supabase's default privileges already let the API roles execute functions in public;
-- stated here because the app depends on it.
GRANT EXECUTE ON FUNCTION public.is_admin(), public.is_content_creator(), public.is_directivo_of(integer)
  TO anon, authenticated, service_role;

ALTER TABLE public.user_roles ENABLE ROW LEVEL SECURITY;
CREATE POLICY user_roles_read_own ON public.user_roles FOR SELECT TO authenticated
  USING (user_id = (SELECT auth.uid()) OR (SELECT public.is_admin()));
CREATE POLICY user_roles_admin_insert ON public.user_roles FOR INSERT TO authenticated
  WITH CHECK ((SELECT public.is_admin()));
CREATE POLICY user_roles_admin_update ON public.user_roles FOR UPDATE TO authenticated
  USING ((SELECT public.is_admin())) WITH CHECK ((SELECT public.is_admin()));
CREATE POLICY user_roles_admin_delete ON public.user_roles FOR DELETE TO authenticated
  USING ((SELECT public.is_admin()));
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.user_roles FROM anon;
REVOKE TRUNCATE ON public.user_roles FROM authenticated;

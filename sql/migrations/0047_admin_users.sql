-- Gestión Plataforma: the admins' list of accounts. E-mails and sign-in times live in
-- auth.users, which no API role reads, so admins get them through this function alone; it
-- answers only to an admin or the service role (42501 for anyone else) and returns nothing secret (no password
-- hash, no tokens, no phone).

CREATE FUNCTION public.admin_users(search text DEFAULT '', max_rows integer DEFAULT 50)
RETURNS TABLE (
  user_id uuid,
  email text,
  first_name text,
  last_name text,
  school_rbd integer,
  school_name text,
  created_at timestamptz,
  last_sign_in_at timestamptz,
  roles public.app_role[],
  directivo_rbd integer,
  course_count integer,
  demo_total_stars integer,
  demo_used_stars integer,
  demo_end_date date,
  demo_max_courses smallint,
  demo_is_active boolean
)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = ''
AS $$
DECLARE
  words text[] := pg_catalog.regexp_split_to_array(
    private.fold_for_search(pg_catalog.btrim(coalesce(search, ''))), '\s+');
  wanted integer := least(greatest(coalesce(max_rows, 50), 1), 200);
BEGIN
  IF NOT (public.is_admin() OR auth.role() = 'service_role') THEN
    RAISE EXCEPTION 'only admins may list the accounts' USING ERRCODE = '42501';
  END IF;
  RETURN QUERY
    SELECT u.id, u.email::text, p.first_name, p.last_name, p.school_rbd, s."NOM_RBD",
           u.created_at, u.last_sign_in_at,
           coalesce((SELECT pg_catalog.array_agg(r.role ORDER BY r.role) FROM public.user_roles r
                      WHERE r.user_id = u.id), '{}'),
           (SELECT r.school_rbd FROM public.user_roles r WHERE r.user_id = u.id AND r.role = 'directivo'),
           (SELECT pg_catalog.count(*)::integer FROM public.courses c WHERE c.teacher_id = u.id),
           d.total_stars, d.used_stars, d.demo_end_date, d.max_courses, d.is_active
      FROM auth.users u
      LEFT JOIN public.profiles p ON p.user_id = u.id
      LEFT JOIN public.schools s ON s."RBD" = p.school_rbd
      LEFT JOIN public.demo_users_2025 d ON d.user_id = u.id
     WHERE u.deleted_at IS NULL
       AND NOT coalesce(u.is_anonymous, false)
       AND NOT EXISTS (
         SELECT 1 FROM pg_catalog.unnest(words) w
          WHERE w <> '' AND pg_catalog.strpos(private.fold_for_search(
                  coalesce(u.email::text, '') || ' ' || coalesce(p.first_name, '') || ' ' ||
                  coalesce(p.last_name, '') || ' ' || coalesce(s."NOM_RBD", '')), w) = 0)
     ORDER BY u.created_at DESC, u.id
     LIMIT wanted;
END
$$;
COMMENT ON FUNCTION public.admin_users(text, integer) IS 'Admins (and the service role) only: accounts (newest first) matching every word of search in the e-mail, name or school (any case, accents optional), with their profile, roles, course count and Demo 2025 row. At most max_rows (1–200, default 50). rpc(''admin_users'', {search}).';
REVOKE EXECUTE ON FUNCTION public.admin_users(text, integer) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.admin_users(text, integer) TO authenticated, service_role;

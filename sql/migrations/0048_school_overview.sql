-- Panel directivo: one row per course of a school with its teacher and how its planning goes
-- (plans, classes done, cancelled, still to come, and classes that have a plan). It runs as
-- the caller, so RLS decides what it sees (the school's directivo reads every course of the
-- school); it refuses anyone who does not lead the school, so nobody mistakes an answer cut
-- down by RLS for the whole school.

CREATE FUNCTION public.school_overview(school_rbd integer)
RETURNS TABLE (
  course_id uuid,
  teacher_id uuid,
  teacher_name text,
  level_code text,
  letter text,
  subject_code text,
  students_count smallint,
  plan_count integer,
  last_plan_at timestamptz,
  classes_total integer,
  classes_done integer,
  classes_cancelled integer,
  classes_planned integer
)
LANGUAGE plpgsql STABLE
SET search_path = ''
AS $$
BEGIN
  IF NOT public.is_directivo_of(school_overview.school_rbd) THEN
    RAISE EXCEPTION 'only the school''s directivo may see its overview' USING ERRCODE = '42501';
  END IF;
  RETURN QUERY
    SELECT c.id, c.teacher_id,
           nullif(pg_catalog.btrim(coalesce(p.first_name, '') || ' ' || coalesce(p.last_name, '')), ''),
           c.level_code, c.letter, c.subject_code, c.students_count,
           (SELECT pg_catalog.count(*)::integer FROM public.plans pl WHERE pl.course_id = c.id),
           (SELECT pg_catalog.max(pl.updated_at) FROM public.plans pl WHERE pl.course_id = c.id),
           s.total, s.done, s.cancelled, s.planned
      FROM public.courses c
      LEFT JOIN public.profiles p ON p.user_id = c.teacher_id
      CROSS JOIN LATERAL (
        SELECT pg_catalog.count(*)::integer AS total,
               (pg_catalog.count(*) FILTER (WHERE cs.status = 'Realizada'))::integer AS done,
               (pg_catalog.count(*) FILTER (WHERE cs.status = 'Cancelada'))::integer AS cancelled,
               (pg_catalog.count(*) FILTER (WHERE cs.status <> 'Cancelada' AND EXISTS (
                  SELECT 1 FROM public.plan_classes pc WHERE pc.class_session_id = cs.id)))::integer AS planned
          FROM public.class_sessions cs
         WHERE cs.course_id = c.id) AS s
     WHERE c.school_rbd = school_overview.school_rbd
     ORDER BY c.level_code, c.letter, c.subject_code, c.id;
END
$$;
COMMENT ON FUNCTION public.school_overview(integer) IS 'Panel directivo: the courses of a school (as RLS lets the caller see them) with teacher, plans, and classes total/done/cancelled/with a plan. For the school''s directivo; 42501 for anyone else. rpc(''school_overview'', {school_rbd}).';
REVOKE EXECUTE ON FUNCTION public.school_overview(integer) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.school_overview(integer) TO authenticated, service_role;

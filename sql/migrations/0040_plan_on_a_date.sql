-- A simple plan for a date the calendar has no class on yet: create_simple_plan can also make
-- that class (the course, the date, the hour, as long as the plan) in the same transaction, so
-- a refused plan never leaves a stray class in the calendar, and a refused class no plan.
DROP FUNCTION public.create_simple_plan(uuid, text, text[], uuid, smallint);
CREATE FUNCTION public.create_simple_plan(
  course_id uuid,
  title text,
  objective_ids text[] DEFAULT '{}',
  class_session_id uuid DEFAULT NULL,
  class_blocks smallint DEFAULT 2,
  class_date date DEFAULT NULL,
  class_start time DEFAULT NULL
) RETURNS uuid
LANGUAGE plpgsql VOLATILE
SET search_path = ''
AS $$
DECLARE
  new_plan uuid;
  new_class uuid;
  session uuid := create_simple_plan.class_session_id;
BEGIN
  IF auth.uid() IS NULL THEN
    RAISE EXCEPTION 'Debes iniciar sesión' USING ERRCODE = '42501';
  END IF;
  IF session IS NOT NULL AND create_simple_plan.class_date IS NOT NULL THEN
    RAISE EXCEPTION 'Elige una clase del calendario o una fecha, no ambas' USING ERRCODE = '22023';
  END IF;
  IF create_simple_plan.class_date IS NOT NULL THEN
    INSERT INTO public.class_sessions (teacher_id, course_id, session_date, start_time, pedagogical_hours)
    VALUES (auth.uid(), create_simple_plan.course_id, create_simple_plan.class_date,
            coalesce(create_simple_plan.class_start, time '08:00'),
            least(coalesce(create_simple_plan.class_blocks, 2), 4))
    RETURNING id INTO session;
  END IF;
  INSERT INTO public.plans (teacher_id, course_id, kind, title, class_count, class_blocks)
  VALUES (auth.uid(), create_simple_plan.course_id, 'simple', pg_catalog.btrim(create_simple_plan.title), 1,
          coalesce(create_simple_plan.class_blocks, 2))
  RETURNING id INTO new_plan;
  INSERT INTO public.plan_learning_objectives (plan_id, objective_id, teacher_id)
  SELECT new_plan, objective, auth.uid()
    FROM (SELECT DISTINCT unnest AS objective FROM pg_catalog.unnest(coalesce(objective_ids, '{}'))) AS chosen;
  SELECT pc.id INTO new_class FROM public.plan_classes pc WHERE pc.plan_id = new_plan AND pc.position = 1;
  IF session IS NOT NULL THEN
    UPDATE public.plan_classes pc SET class_session_id = session WHERE pc.id = new_class;
  END IF;
  INSERT INTO public.plan_zones (plan_class_id, teacher_id, zone_type, position, title)
  SELECT new_class, auth.uid(), z.zone_type, z.zone_position, z.title FROM private.standard_zones() AS z;
  RETURN new_plan;
END
$$;
COMMENT ON FUNCTION public.create_simple_plan(uuid, text, text[], uuid, smallint, date, time) IS 'Creates a simple plan for one of the caller''s courses with its OAs, its calendar class (an existing one, or one made for class_date at class_start, 08:00 by default, as long as the plan up to 4 blocks; optional) and the standard empty zones, in one transaction; returns the plan id. rpc(''create_simple_plan'', {course_id, title, objective_ids, class_session_id | class_date, class_start, class_blocks}).';
REVOKE EXECUTE ON FUNCTION public.create_simple_plan(uuid, text, text[], uuid, smallint, date, time) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.create_simple_plan(uuid, text, text[], uuid, smallint, date, time) TO authenticated, service_role;

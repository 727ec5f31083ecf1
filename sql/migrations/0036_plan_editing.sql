-- What the planner needs beyond single-row writes: how long the plan's classes are, putting a
-- class's zones in a new order in one statement (positions are unique per class, checked at
-- the end of the statement), and creating a simple plan whole — the plan, its OAs, its class
-- linked to the calendar and the standard zones — in one transaction, so a plan is never left
-- half made.

ALTER TABLE public.plans
  ADD COLUMN class_blocks smallint NOT NULL DEFAULT 2 CHECK (class_blocks BETWEEN 1 AND 8);
COMMENT ON COLUMN public.plans.class_blocks IS 'Length of each class of the plan in 45-minute pedagogical blocks (1–8); what the AI generation plans for.';

CREATE FUNCTION public.reorder_plan_zones(plan_class_id uuid, zone_ids uuid[]) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = ''
AS $$
BEGIN
  IF zone_ids IS NULL
     OR pg_catalog.cardinality(zone_ids) <> (SELECT count(DISTINCT id) FROM pg_catalog.unnest(zone_ids) AS id)
     OR (SELECT pg_catalog.array_agg(z.id ORDER BY z.id) FROM public.plan_zones z
          WHERE z.plan_class_id = reorder_plan_zones.plan_class_id)
        IS DISTINCT FROM (SELECT pg_catalog.array_agg(id ORDER BY id) FROM pg_catalog.unnest(zone_ids) AS id) THEN
    RAISE EXCEPTION 'La lista no tiene exactamente las zonas de esta clase'
      USING ERRCODE = '22023', HINT = 'Vuelve a cargar la planificación e inténtalo de nuevo.';
  END IF;
  -- One statement: the unique (class, position) key is deferrable, so it is checked once the
  -- whole new order is in place.
  UPDATE public.plan_zones z
     SET position = o.ordinality
    FROM pg_catalog.unnest(zone_ids) WITH ORDINALITY AS o(id, ordinality)
   WHERE z.id = o.id AND z.plan_class_id = reorder_plan_zones.plan_class_id;
END
$$;
COMMENT ON FUNCTION public.reorder_plan_zones(uuid, uuid[]) IS 'Puts the zones of a plan class in the given order (positions 1…n); the list must hold exactly the class''s zones. Runs as the caller: RLS applies. rpc(''reorder_plan_zones'', {plan_class_id, zone_ids}).';
REVOKE EXECUTE ON FUNCTION public.reorder_plan_zones(uuid, uuid[]) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.reorder_plan_zones(uuid, uuid[]) TO authenticated, service_role;

-- The standard zones of a class plan, in order: a Chilean lesson plan's parts.
CREATE FUNCTION private.standard_zones()
RETURNS TABLE (zone_type public.zone_type, zone_position smallint, title text)
LANGUAGE sql IMMUTABLE
SET search_path = ''
AS $$
  VALUES ('objetivo'::public.zone_type, 1::smallint, 'Objetivo de la clase'),
         ('inicio', 2, 'Inicio'),
         ('desarrollo', 3, 'Desarrollo'),
         ('cierre', 4, 'Cierre'),
         ('evaluacion', 5, 'Evaluación formativa'),
         ('recursos', 6, 'Recursos'),
         ('adecuaciones', 7, 'Adecuaciones (PIE/DUA)'),
         ('evaluacion', 8, 'Indicadores de evaluación')
$$;
REVOKE EXECUTE ON FUNCTION private.standard_zones() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION private.standard_zones() TO authenticated, service_role;

-- Creates a simple plan (one class) for one of the caller's courses: title, the class's length
-- in 45-minute blocks, the OAs, the calendar class it is for (optional) and the
-- standard zones, empty. Returns the plan's id. Runs as the caller: RLS and every constraint
-- apply, and any refusal undoes it all.
CREATE FUNCTION public.create_simple_plan(
  course_id uuid,
  title text,
  objective_ids text[] DEFAULT '{}',
  class_session_id uuid DEFAULT NULL,
  class_blocks smallint DEFAULT 2
) RETURNS uuid
LANGUAGE plpgsql VOLATILE
SET search_path = ''
AS $$
DECLARE
  new_plan uuid;
  new_class uuid;
BEGIN
  IF auth.uid() IS NULL THEN
    RAISE EXCEPTION 'Debes iniciar sesión' USING ERRCODE = '42501';
  END IF;
  INSERT INTO public.plans (teacher_id, course_id, kind, title, class_count, class_blocks)
  VALUES (auth.uid(), create_simple_plan.course_id, 'simple', pg_catalog.btrim(create_simple_plan.title), 1,
          coalesce(create_simple_plan.class_blocks, 2))
  RETURNING id INTO new_plan;
  INSERT INTO public.plan_learning_objectives (plan_id, objective_id, teacher_id)
  SELECT new_plan, objective, auth.uid()
    FROM (SELECT DISTINCT unnest AS objective FROM pg_catalog.unnest(coalesce(objective_ids, '{}'))) AS chosen;
  SELECT pc.id INTO new_class FROM public.plan_classes pc WHERE pc.plan_id = new_plan AND pc.position = 1;
  IF create_simple_plan.class_session_id IS NOT NULL THEN
    UPDATE public.plan_classes pc SET class_session_id = create_simple_plan.class_session_id WHERE pc.id = new_class;
  END IF;
  INSERT INTO public.plan_zones (plan_class_id, teacher_id, zone_type, position, title)
  SELECT new_class, auth.uid(), z.zone_type, z.zone_position, z.title FROM private.standard_zones() AS z;
  RETURN new_plan;
END
$$;
COMMENT ON FUNCTION public.create_simple_plan(uuid, text, text[], uuid, smallint) IS 'Creates a simple plan for one of the caller''s courses with its OAs, its calendar class (optional) and the standard empty zones, in one transaction; returns the plan id. rpc(''create_simple_plan'', {course_id, title, objective_ids, class_session_id, class_blocks}).';
REVOKE EXECUTE ON FUNCTION public.create_simple_plan(uuid, text, text[], uuid, smallint) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.create_simple_plan(uuid, text, text[], uuid, smallint) TO authenticated, service_role;

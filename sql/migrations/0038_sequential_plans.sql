-- Plan. Secuencial: a unit of 2–40 classes for one course, made whole in one call (the plan,
-- its OAs, each class titled and linked to its date of the calendar, the zones of each class),
-- and a generated unit written into it in one transaction — every class's title and zones, or
-- nothing — so a unit is never left half made or half generated.

-- The zones of each class of a unit: the moments of the class and its formative evaluation
-- (what generate-sequence writes).
CREATE FUNCTION private.unit_class_zones()
RETURNS TABLE (zone_type public.zone_type, zone_position smallint, title text)
LANGUAGE sql IMMUTABLE
SET search_path = ''
AS $$
  SELECT z.zone_type, z.zone_position, z.title FROM private.standard_zones() AS z WHERE z.zone_position <= 5
$$;
REVOKE EXECUTE ON FUNCTION private.unit_class_zones() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION private.unit_class_zones() TO authenticated, service_role;

CREATE FUNCTION public.create_sequential_plan(
  course_id uuid,
  title text,
  class_count smallint,
  objective_ids text[] DEFAULT '{}',
  class_session_ids uuid[] DEFAULT '{}',
  class_blocks smallint DEFAULT 2,
  unit_name text DEFAULT NULL
) RETURNS uuid
LANGUAGE plpgsql VOLATILE
SET search_path = ''
AS $$
DECLARE
  new_plan uuid;
  sessions uuid[] := coalesce(create_sequential_plan.class_session_ids, '{}');
BEGIN
  IF auth.uid() IS NULL THEN
    RAISE EXCEPTION 'Debes iniciar sesión' USING ERRCODE = '42501';
  END IF;
  IF pg_catalog.cardinality(sessions) > coalesce(create_sequential_plan.class_count, 0)
     OR pg_catalog.cardinality(sessions) <> (SELECT count(DISTINCT id) FROM pg_catalog.unnest(sessions) AS id) THEN
    RAISE EXCEPTION 'Cada clase de la unidad va en una fecha distinta, y no hay más fechas que clases'
      USING ERRCODE = '22023';
  END IF;
  INSERT INTO public.plans (teacher_id, course_id, kind, title, unit_name, class_count, class_blocks)
  VALUES (auth.uid(), create_sequential_plan.course_id, 'secuencial', pg_catalog.btrim(create_sequential_plan.title),
          nullif(pg_catalog.btrim(create_sequential_plan.unit_name), ''), create_sequential_plan.class_count,
          coalesce(create_sequential_plan.class_blocks, 2))
  RETURNING id INTO new_plan;
  INSERT INTO public.plan_learning_objectives (plan_id, objective_id, teacher_id)
  SELECT new_plan, objective, auth.uid()
    FROM (SELECT DISTINCT unnest AS objective FROM pg_catalog.unnest(coalesce(objective_ids, '{}'))) AS chosen;
  -- Titles and calendar classes; the plan_classes rows come from the plan's trigger.
  UPDATE public.plan_classes pc
     SET title = 'Clase ' || pc.position,
         class_session_id = sessions[pc.position]
   WHERE pc.plan_id = new_plan;
  INSERT INTO public.plan_zones (plan_class_id, teacher_id, zone_type, position, title)
  SELECT pc.id, auth.uid(), z.zone_type, z.zone_position, z.title
    FROM public.plan_classes pc CROSS JOIN private.unit_class_zones() AS z
   WHERE pc.plan_id = new_plan;
  RETURN new_plan;
END
$$;
COMMENT ON FUNCTION public.create_sequential_plan(uuid, text, smallint, text[], uuid[], smallint, text) IS 'Creates a sequential plan (a unit of class_count classes, 2–40) for one of the caller''s courses: its OAs, class n titled "Clase n" and linked to class_session_ids[n] of the calendar (fewer dates than classes leave the last ones without a date), and each class''s zones (objetivo, inicio, desarrollo, cierre, evaluación formativa), in one transaction; returns the plan id. rpc(''create_sequential_plan'', {course_id, title, class_count, objective_ids, class_session_ids, class_blocks, unit_name}).';
REVOKE EXECUTE ON FUNCTION public.create_sequential_plan(uuid, text, smallint, text[], uuid[], smallint, text) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.create_sequential_plan(uuid, text, smallint, text[], uuid[], smallint, text) TO authenticated, service_role;

-- Writes a generated unit into a plan: classes is generate-sequence's list, each
-- {position, title, zones: [{zone_type, title, content}]}. Class n gets its title, and each
-- generated zone replaces the content of the class's zone of that type in order (the first
-- evaluacion to the first evaluacion zone…); a kind the class no longer has is added at its
-- end. Runs as the caller: RLS and every constraint apply; any refusal undoes it all.
CREATE FUNCTION public.apply_unit_generation(plan_id uuid, classes jsonb) RETURNS integer
LANGUAGE plpgsql VOLATILE
SET search_path = ''
AS $$
DECLARE
  unit public.plans;
  generated jsonb;
  generated_zone jsonb;
  target_class uuid;
  target_zone uuid;
  used uuid[];
  written integer := 0;
BEGIN
  SELECT * INTO unit FROM public.plans p WHERE p.id = apply_unit_generation.plan_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'La planificación no existe o no es tuya' USING ERRCODE = 'P0002';
  END IF;
  IF pg_catalog.jsonb_typeof(classes) IS DISTINCT FROM 'array' THEN
    RAISE EXCEPTION 'classes debe ser una lista de clases' USING ERRCODE = '22023';
  END IF;
  FOR generated IN SELECT value FROM pg_catalog.jsonb_array_elements(classes) LOOP
    SELECT pc.id INTO target_class FROM public.plan_classes pc
     WHERE pc.plan_id = unit.id AND pc.position = (generated ->> 'position')::smallint;
    IF target_class IS NULL THEN
      RAISE EXCEPTION 'La unidad no tiene la clase %', generated ->> 'position' USING ERRCODE = '22023';
    END IF;
    IF generated ? 'title' THEN
      UPDATE public.plan_classes pc SET title = pg_catalog.left(pg_catalog.btrim(generated ->> 'title'), 200)
       WHERE pc.id = target_class;
    END IF;
    used := '{}';
    FOR generated_zone IN SELECT value FROM pg_catalog.jsonb_array_elements(coalesce(generated -> 'zones', '[]')) LOOP
      SELECT z.id INTO target_zone FROM public.plan_zones z
       WHERE z.plan_class_id = target_class
         AND z.zone_type = (generated_zone ->> 'zone_type')::public.zone_type
         AND NOT z.id = ANY (used)
       ORDER BY z.position LIMIT 1;
      IF target_zone IS NULL THEN
        INSERT INTO public.plan_zones (plan_class_id, teacher_id, zone_type, position, title, content)
        VALUES (target_class, unit.teacher_id, (generated_zone ->> 'zone_type')::public.zone_type,
                (SELECT coalesce(max(z.position), 0) + 1 FROM public.plan_zones z WHERE z.plan_class_id = target_class),
                generated_zone ->> 'title', generated_zone -> 'content')
        RETURNING id INTO target_zone;
      ELSE
        UPDATE public.plan_zones z SET content = generated_zone -> 'content' WHERE z.id = target_zone;
      END IF;
      used := used || target_zone;
      written := written + 1;
    END LOOP;
  END LOOP;
  RETURN written;
END
$$;
COMMENT ON FUNCTION public.apply_unit_generation(uuid, jsonb) IS 'Writes a generated unit (generate-sequence''s classes: {position, title, zones: [{zone_type, title, content}]}) into a sequential plan: each class''s title and, zone by zone, the content of its zones of that type in order; all or nothing; returns how many zones were written. rpc(''apply_unit_generation'', {plan_id, classes}).';
REVOKE EXECUTE ON FUNCTION public.apply_unit_generation(uuid, jsonb) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.apply_unit_generation(uuid, jsonb) TO authenticated, service_role;

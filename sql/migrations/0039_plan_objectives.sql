-- Changing a plan's OAs after it was made: the whole new list replaces the old in one
-- transaction, so the plan is never left with none of them or with both lists.
CREATE FUNCTION public.set_plan_objectives(plan_id uuid, objective_ids text[]) RETURNS integer
LANGUAGE plpgsql VOLATILE
SET search_path = ''
AS $$
DECLARE
  owner uuid;
  kept integer;
BEGIN
  SELECT p.teacher_id INTO owner FROM public.plans p WHERE p.id = set_plan_objectives.plan_id;
  IF owner IS NULL THEN
    RAISE EXCEPTION 'La planificación no existe o no es tuya' USING ERRCODE = 'P0002';
  END IF;
  IF coalesce(pg_catalog.cardinality(objective_ids), 0) = 0 THEN
    RAISE EXCEPTION 'Una planificación trabaja al menos un OA' USING ERRCODE = '22023';
  END IF;
  DELETE FROM public.plan_learning_objectives l
   WHERE l.plan_id = set_plan_objectives.plan_id AND NOT l.objective_id = ANY (objective_ids);
  INSERT INTO public.plan_learning_objectives (plan_id, objective_id, teacher_id)
  SELECT set_plan_objectives.plan_id, chosen, owner
    FROM (SELECT DISTINCT unnest AS chosen FROM pg_catalog.unnest(objective_ids)) AS c
  ON CONFLICT DO NOTHING;
  SELECT count(*) INTO kept FROM public.plan_learning_objectives l WHERE l.plan_id = set_plan_objectives.plan_id;
  RETURN kept;
END
$$;
COMMENT ON FUNCTION public.set_plan_objectives(uuid, text[]) IS 'Replaces the OAs of one of the caller''s plans with the given list (at least one), in one transaction; returns how many it has. rpc(''set_plan_objectives'', {plan_id, objective_ids}).';
REVOKE EXECUTE ON FUNCTION public.set_plan_objectives(uuid, text[]) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.set_plan_objectives(uuid, text[]) TO authenticated, service_role;

-- Drafts (Borradores) edited like plan zones: a `version` raised by the database whenever the
-- text changes (not the title or course), which the app's autosave checks so two tabs never
-- overwrite each other silently.
ALTER TABLE public.drafts ADD COLUMN version integer NOT NULL DEFAULT 1;
COMMENT ON COLUMN public.drafts.version IS 'Raised by the database each time the content changes; the autosave writes only where it is still the version its text came from.';

CREATE FUNCTION private.bump_draft_version() RETURNS trigger
LANGUAGE plpgsql
SET search_path = ''
AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.version := 1;
  ELSIF NEW.content IS DISTINCT FROM OLD.content THEN
    NEW.version := OLD.version + 1;
  ELSE
    NEW.version := OLD.version;
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER drafts_version BEFORE INSERT OR UPDATE ON public.drafts
  FOR EACH ROW EXECUTE FUNCTION private.bump_draft_version();

-- Turning a draft (Borrador) into a simple plan for one of the caller's courses: the plan is
-- made as create_simple_plan makes it (its OAs, its calendar class, the standard zones) with
-- the draft's text as its first zone, "Planificación", and the draft goes away — all in one
-- transaction, so the text is never in both places or in neither.
CREATE FUNCTION public.promote_draft(
  draft_id uuid,
  course_id uuid,
  objective_ids text[] DEFAULT '{}',
  class_session_id uuid DEFAULT NULL,
  class_blocks smallint DEFAULT 2
) RETURNS uuid
LANGUAGE plpgsql VOLATILE
SET search_path = ''
AS $$
DECLARE
  source public.drafts;
  new_plan uuid;
  new_class uuid;
BEGIN
  -- RLS: a teacher finds only her own drafts.
  SELECT * INTO source FROM public.drafts d WHERE d.id = promote_draft.draft_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'Ese borrador no existe o no es tuyo' USING ERRCODE = 'P0001';
  END IF;
  new_plan := public.create_simple_plan(promote_draft.course_id, source.title, promote_draft.objective_ids,
                                        promote_draft.class_session_id, promote_draft.class_blocks);
  SELECT pc.id INTO new_class FROM public.plan_classes pc WHERE pc.plan_id = new_plan AND pc.position = 1;
  -- One statement: the unique (class, position) key is checked once every zone has moved.
  UPDATE public.plan_zones z SET position = z.position + 1 WHERE z.plan_class_id = new_class;
  INSERT INTO public.plan_zones (plan_class_id, teacher_id, zone_type, position, title, content)
  VALUES (new_class, auth.uid(), 'planificacion_base', 1, 'Planificación', source.content);
  DELETE FROM public.drafts d WHERE d.id = source.id;
  RETURN new_plan;
END
$$;
COMMENT ON FUNCTION public.promote_draft(uuid, uuid, text[], uuid, smallint) IS 'Turns one of the caller''s drafts into a simple plan for her course (OAs, calendar class, standard zones, the draft''s text as the first zone) and removes the draft, in one transaction; returns the plan id. rpc(''promote_draft'', {draft_id, course_id, objective_ids, class_session_id, class_blocks}).';
REVOKE EXECUTE ON FUNCTION public.promote_draft(uuid, uuid, text[], uuid, smallint) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.promote_draft(uuid, uuid, text[], uuid, smallint) TO authenticated, service_role;
REVOKE EXECUTE ON FUNCTION private.bump_draft_version() FROM PUBLIC;

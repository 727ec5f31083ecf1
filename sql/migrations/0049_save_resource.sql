-- Creación Contenido: a resource and the OAs it supports saved together, in one transaction,
-- as the caller (RLS decides: a content creator writes her own resources, an admin any).

CREATE FUNCTION public.save_resource(
  resource_id uuid,
  title text,
  description text,
  kind public.resource_kind,
  level_code text,
  subject_code text,
  content jsonb,
  status public.resource_status,
  objective_ids text[] DEFAULT '{}'
) RETURNS uuid
LANGUAGE plpgsql VOLATILE
SET search_path = ''
AS $$
DECLARE
  saved uuid;
BEGIN
  IF save_resource.resource_id IS NULL THEN
    INSERT INTO public.content_creator_resources (title, description, kind, level_code, subject_code, content, status)
    VALUES (save_resource.title, coalesce(save_resource.description, ''), save_resource.kind,
            save_resource.level_code, save_resource.subject_code,
            coalesce(save_resource.content, '{"type": "doc", "content": []}'), save_resource.status)
    RETURNING id INTO saved;
  ELSE
    UPDATE public.content_creator_resources r
       SET title = save_resource.title,
           description = coalesce(save_resource.description, ''),
           kind = save_resource.kind,
           level_code = save_resource.level_code,
           subject_code = save_resource.subject_code,
           content = coalesce(save_resource.content, r.content),
           status = save_resource.status
     WHERE r.id = save_resource.resource_id
    RETURNING r.id INTO saved;
    IF saved IS NULL THEN
      RAISE EXCEPTION 'El recurso no existe o no puedes cambiarlo' USING ERRCODE = 'P0002';
    END IF;
  END IF;
  DELETE FROM public.resource_learning_objectives o
   WHERE o.resource_id = saved AND NOT o.objective_id = ANY (coalesce(save_resource.objective_ids, '{}'));
  INSERT INTO public.resource_learning_objectives (resource_id, objective_id)
  SELECT saved, chosen
    FROM (SELECT DISTINCT unnest AS chosen FROM pg_catalog.unnest(coalesce(save_resource.objective_ids, '{}'))) AS c
  ON CONFLICT DO NOTHING;
  RETURN saved;
END
$$;
COMMENT ON FUNCTION public.save_resource(uuid, text, text, public.resource_kind, text, text, jsonb, public.resource_status, text[]) IS 'Creates (resource_id null) or changes a content creator''s resource and replaces the OAs it supports, in one transaction, under RLS; returns its id. rpc(''save_resource'', {...}).';
REVOKE EXECUTE ON FUNCTION public.save_resource(uuid, text, text, public.resource_kind, text, text, jsonb, public.resource_status, text[]) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.save_resource(uuid, text, text, public.resource_kind, text, text, jsonb, public.resource_status, text[]) TO authenticated, service_role;

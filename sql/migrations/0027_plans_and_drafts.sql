-- Lesson plans (planificaciones) and drafts.
--
-- A plan belongs to a course. A simple plan is one class; a sequential plan is a teaching unit
-- of N classes (2–40), each planned and edited on its own. The database keeps a plan's classes
-- in step with it: plan_classes rows 1…N are created, added and removed by the plan itself,
-- never by clients. A class's plan is a list of zones (objective, start, development, closing…),
-- each holding rich text as the editor's JSON document.
--
-- Plans written before zones existed keep their content in the legacy format (one JSON object
-- of section texts) until migrate_legacy_plan_class() turns it into zones, falling back to a
-- single base planning zone when the legacy content does not have the expected shape.

CREATE TYPE public.plan_kind AS ENUM ('simple', 'secuencial');
COMMENT ON TYPE public.plan_kind IS 'simple: one class; secuencial: a unit of several classes.';

CREATE TABLE public.plans (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  teacher_id uuid NOT NULL DEFAULT auth.uid(),
  course_id uuid NOT NULL,
  kind public.plan_kind NOT NULL DEFAULT 'simple',
  title text NOT NULL CHECK (char_length(btrim(title)) BETWEEN 1 AND 200),
  unit_name text CHECK (char_length(btrim(unit_name)) BETWEEN 1 AND 200),
  class_count smallint NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT plans_course_fkey FOREIGN KEY (course_id, teacher_id)
    REFERENCES public.courses (id, teacher_id) ON DELETE CASCADE,
  CONSTRAINT plans_id_teacher_key UNIQUE (id, teacher_id),
  CONSTRAINT plans_class_count_matches_kind CHECK (
    (kind = 'simple' AND class_count = 1) OR (kind = 'secuencial' AND class_count BETWEEN 2 AND 40))
);
COMMENT ON TABLE public.plans IS 'Lesson plans of a course: simple (one class) or secuencial (a unit of class_count classes, each in plan_classes).';
COMMENT ON COLUMN public.plans.id IS 'Plan id (planId).';
COMMENT ON COLUMN public.plans.teacher_id IS 'Owner; the course must be theirs.';
COMMENT ON COLUMN public.plans.course_id IS 'Course the plan is for.';
COMMENT ON COLUMN public.plans.kind IS 'simple or secuencial.';
COMMENT ON COLUMN public.plans.title IS 'Title, e.g. "Fracciones equivalentes".';
COMMENT ON COLUMN public.plans.unit_name IS 'Curriculum unit, e.g. "Unidad 2: Fracciones".';
COMMENT ON COLUMN public.plans.class_count IS 'Number of classes: 1 for simple, 2–40 for secuencial. Changing it adds or removes classes at the end.';
COMMENT ON COLUMN public.plans.created_at IS 'When the plan was created.';
COMMENT ON COLUMN public.plans.updated_at IS 'Last change (set by the database).';
CREATE INDEX plans_course_idx ON public.plans (course_id);
CREATE INDEX plans_teacher_idx ON public.plans (teacher_id, updated_at DESC);
CREATE TRIGGER plans_touch BEFORE UPDATE ON public.plans
  FOR EACH ROW EXECUTE FUNCTION private.touch_updated_at();

CREATE TABLE public.plan_classes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  plan_id uuid NOT NULL,
  teacher_id uuid NOT NULL,
  position smallint NOT NULL CHECK (position BETWEEN 1 AND 40),
  title text CHECK (char_length(btrim(title)) BETWEEN 1 AND 200),
  class_session_id uuid UNIQUE,
  content_format text NOT NULL DEFAULT 'zones' CHECK (content_format IN ('zones', 'legacy')),
  legacy_content jsonb,
  legacy_migration text CHECK (legacy_migration IN ('migrated', 'fallback')),
  legacy_migrated_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT plan_classes_plan_fkey FOREIGN KEY (plan_id, teacher_id)
    REFERENCES public.plans (id, teacher_id) ON DELETE CASCADE,
  CONSTRAINT plan_classes_session_fkey FOREIGN KEY (class_session_id)
    REFERENCES public.class_sessions (id) ON DELETE SET NULL,
  CONSTRAINT plan_classes_id_teacher_key UNIQUE (id, teacher_id),
  CONSTRAINT plan_classes_position_key UNIQUE (plan_id, position),
  CONSTRAINT plan_classes_legacy_state CHECK (
    (content_format = 'legacy' AND legacy_content IS NOT NULL
       AND legacy_migration IS NULL AND legacy_migrated_at IS NULL)
    OR (content_format = 'zones'
       AND (legacy_migration IS NULL) = (legacy_migrated_at IS NULL)
       AND (legacy_migration IS NULL OR legacy_content IS NOT NULL)))
);
COMMENT ON TABLE public.plan_classes IS 'The classes of a plan, positions 1…class_count (one for a simple plan). Created and removed with the plan; clients edit title and the class instance they are taught in.';
COMMENT ON COLUMN public.plan_classes.id IS 'Class id within the plan (classId).';
COMMENT ON COLUMN public.plan_classes.plan_id IS 'Plan the class belongs to.';
COMMENT ON COLUMN public.plan_classes.teacher_id IS 'Owner (the plan''s).';
COMMENT ON COLUMN public.plan_classes.position IS 'Order in the unit, 1…class_count.';
COMMENT ON COLUMN public.plan_classes.title IS 'Title of this class, e.g. "Clase 3: comparar fracciones".';
COMMENT ON COLUMN public.plan_classes.class_session_id IS 'Class instance (calendar) where it is taught; same teacher and course. Its status (Programada/Realizada/Cancelada) is the class''s state.';
COMMENT ON COLUMN public.plan_classes.content_format IS 'zones (content in plan_zones) or legacy (content in legacy_content, not yet migrated).';
COMMENT ON COLUMN public.plan_classes.legacy_content IS 'Pre-zones plan content: a JSON object of section texts, keys among objetivo, inicio, desarrollo, cierre, evaluacion, recursos, adecuaciones, notas (plain text or simple HTML). Kept after migration.';
COMMENT ON COLUMN public.plan_classes.legacy_migration IS 'Outcome of the legacy migration: migrated (one zone per section) or fallback (one base planning zone).';
COMMENT ON COLUMN public.plan_classes.legacy_migrated_at IS 'When the legacy content was migrated into zones.';
COMMENT ON COLUMN public.plan_classes.created_at IS 'When the class was created.';
COMMENT ON COLUMN public.plan_classes.updated_at IS 'Last change (set by the database).';
CREATE TRIGGER plan_classes_touch BEFORE UPDATE ON public.plan_classes
  FOR EACH ROW EXECUTE FUNCTION private.touch_updated_at();

-- Keeps plan_classes 1…class_count in step with the plan. SECURITY DEFINER because clients
-- hold no INSERT/DELETE right on plan_classes; the rows get the plan's owner.
CREATE FUNCTION private.sync_plan_classes() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = ''
AS $$
BEGIN
  INSERT INTO public.plan_classes (plan_id, teacher_id, position)
  SELECT NEW.id, NEW.teacher_id, position
    FROM pg_catalog.generate_series(1, NEW.class_count) AS position
  ON CONFLICT (plan_id, position) DO NOTHING;
  DELETE FROM public.plan_classes WHERE plan_id = NEW.id AND position > NEW.class_count;
  RETURN NULL;
END
$$;
CREATE TRIGGER plans_sync_classes AFTER INSERT OR UPDATE OF class_count ON public.plans
  FOR EACH ROW EXECUTE FUNCTION private.sync_plan_classes();

CREATE FUNCTION private.check_plan_class() RETURNS trigger
LANGUAGE plpgsql
SET search_path = ''
AS $$
BEGIN
  IF (NEW.plan_id, NEW.teacher_id, NEW.position) IS DISTINCT FROM (OLD.plan_id, OLD.teacher_id, OLD.position) THEN
    RAISE EXCEPTION 'Una clase no cambia de planificación ni de posición'
      USING ERRCODE = '23514', CONSTRAINT = 'plan_classes_fixed_place';
  END IF;
  IF NEW.class_session_id IS NOT NULL
     AND NEW.class_session_id IS DISTINCT FROM OLD.class_session_id
     AND NOT EXISTS (
       SELECT 1 FROM public.class_sessions s JOIN public.plans p ON p.course_id = s.course_id
        WHERE s.id = NEW.class_session_id AND s.teacher_id = NEW.teacher_id AND p.id = NEW.plan_id) THEN
    RAISE EXCEPTION 'La clase del calendario no es de este curso'
      USING ERRCODE = '23503', CONSTRAINT = 'plan_classes_session_fkey';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER plan_classes_check BEFORE UPDATE ON public.plan_classes
  FOR EACH ROW EXECUTE FUNCTION private.check_plan_class();

CREATE TYPE public.zone_type AS ENUM (
  'planificacion_base', 'objetivo', 'inicio', 'desarrollo', 'cierre', 'evaluacion',
  'recursos', 'adecuaciones', 'notas');
COMMENT ON TYPE public.zone_type IS 'Kinds of plan zone. planificacion_base holds a whole plan in one zone (the fallback of legacy migration); the others are the usual sections of a Chilean class plan.';

CREATE TABLE public.plan_zones (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  plan_class_id uuid NOT NULL,
  teacher_id uuid NOT NULL DEFAULT auth.uid(),
  zone_type public.zone_type NOT NULL,
  position smallint NOT NULL CHECK (position BETWEEN 1 AND 50),
  title text CHECK (char_length(btrim(title)) BETWEEN 1 AND 200),
  content jsonb NOT NULL DEFAULT '{"type": "doc", "content": []}',
  content_length integer GENERATED ALWAYS AS (private.rich_text_length(content)) STORED,
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT plan_zones_class_fkey FOREIGN KEY (plan_class_id, teacher_id)
    REFERENCES public.plan_classes (id, teacher_id) ON DELETE CASCADE,
  CONSTRAINT plan_zones_position_key UNIQUE (plan_class_id, position) DEFERRABLE INITIALLY IMMEDIATE,
  CONSTRAINT plan_zones_content_is_document CHECK (private.is_rich_text_doc(content)),
  CONSTRAINT plan_zones_content_size CHECK (octet_length(content::text) <= 262144)
);
COMMENT ON TABLE public.plan_zones IS 'Zones of a planned class, in order: each a section (objetivo, inicio, desarrollo, cierre…) with rich text.';
COMMENT ON COLUMN public.plan_zones.id IS 'Zone id (zoneId).';
COMMENT ON COLUMN public.plan_zones.plan_class_id IS 'Class of the plan the zone belongs to.';
COMMENT ON COLUMN public.plan_zones.teacher_id IS 'Owner (the plan''s); defaults to the caller.';
COMMENT ON COLUMN public.plan_zones.zone_type IS 'Kind of zone (zoneType).';
COMMENT ON COLUMN public.plan_zones.position IS 'Order within the class, 1–50, unique per class.';
COMMENT ON COLUMN public.plan_zones.title IS 'Heading shown above the zone, if not the default for its type.';
COMMENT ON COLUMN public.plan_zones.content IS 'Rich text as the editor''s JSON document {"type": "doc", "content": [...]}, at most 256 KiB.';
COMMENT ON COLUMN public.plan_zones.content_length IS 'Characters of text in content (computed).';
COMMENT ON COLUMN public.plan_zones.version IS 'Raised by one on every change of content; autosave sends the version it edited to detect a concurrent edit.';
COMMENT ON COLUMN public.plan_zones.created_at IS 'When the zone was created.';
COMMENT ON COLUMN public.plan_zones.updated_at IS 'Last change (set by the database).';
CREATE TRIGGER plan_zones_touch BEFORE UPDATE ON public.plan_zones
  FOR EACH ROW EXECUTE FUNCTION private.touch_updated_at();

CREATE FUNCTION private.check_plan_zone() RETURNS trigger
LANGUAGE plpgsql
SET search_path = ''
AS $$
BEGIN
  IF TG_OP = 'INSERT' OR NEW.plan_class_id IS DISTINCT FROM OLD.plan_class_id THEN
    IF EXISTS (SELECT 1 FROM public.plan_classes WHERE id = NEW.plan_class_id AND content_format = 'legacy') THEN
      RAISE EXCEPTION 'Esta clase tiene contenido en el formato anterior: migra el contenido antes de agregar zonas'
        USING ERRCODE = '23514', CONSTRAINT = 'plan_zones_class_in_zones_format',
              HINT = 'rpc(''migrate_legacy_plan_class'', {plan_class_id})';
    END IF;
  END IF;
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
CREATE TRIGGER plan_zones_check BEFORE INSERT OR UPDATE ON public.plan_zones
  FOR EACH ROW EXECUTE FUNCTION private.check_plan_zone();

CREATE TABLE public.plan_learning_objectives (
  plan_id uuid NOT NULL,
  objective_id text NOT NULL REFERENCES public.learning_objectives (id),
  teacher_id uuid NOT NULL DEFAULT auth.uid(),
  PRIMARY KEY (plan_id, objective_id),
  CONSTRAINT plan_learning_objectives_plan_fkey FOREIGN KEY (plan_id, teacher_id)
    REFERENCES public.plans (id, teacher_id) ON DELETE CASCADE
);
COMMENT ON TABLE public.plan_learning_objectives IS 'Learning objectives (OA) a plan works on.';
COMMENT ON COLUMN public.plan_learning_objectives.plan_id IS 'Plan.';
COMMENT ON COLUMN public.plan_learning_objectives.objective_id IS 'Learning objective.';
COMMENT ON COLUMN public.plan_learning_objectives.teacher_id IS 'Owner (the plan''s); defaults to the caller.';

-- Access: the owner does everything (except creating or removing plan classes, which follow
-- the plan); the directivo of the course's school reads.
ALTER TABLE public.plans ENABLE ROW LEVEL SECURITY;
CREATE POLICY plans_read ON public.plans FOR SELECT TO authenticated
  USING (teacher_id = (SELECT auth.uid()) OR private.can_read_course(course_id));
CREATE POLICY plans_insert_own ON public.plans FOR INSERT TO authenticated
  WITH CHECK (teacher_id = (SELECT auth.uid()));
CREATE POLICY plans_update_own ON public.plans FOR UPDATE TO authenticated
  USING (teacher_id = (SELECT auth.uid())) WITH CHECK (teacher_id = (SELECT auth.uid()));
CREATE POLICY plans_delete_own ON public.plans FOR DELETE TO authenticated
  USING (teacher_id = (SELECT auth.uid()));
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.plans FROM anon;

-- Policy helper: the caller may read the plan (owner, or directivo of its course's school).
CREATE FUNCTION private.can_read_plan(plan uuid) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = ''
AS $$
  SELECT EXISTS (
    SELECT 1 FROM public.plans p
     WHERE p.id = plan AND (p.teacher_id = auth.uid() OR private.can_read_course(p.course_id)))
$$;
COMMENT ON FUNCTION private.can_read_plan(uuid) IS 'Policy helper: the caller owns the plan or is the directivo of its course''s school.';
GRANT EXECUTE ON FUNCTION private.can_read_plan(uuid) TO authenticated;

ALTER TABLE public.plan_classes ENABLE ROW LEVEL SECURITY;
CREATE POLICY plan_classes_read ON public.plan_classes FOR SELECT TO authenticated
  USING (teacher_id = (SELECT auth.uid()) OR private.can_read_plan(plan_id));
CREATE POLICY plan_classes_update_own ON public.plan_classes FOR UPDATE TO authenticated
  USING (teacher_id = (SELECT auth.uid())) WITH CHECK (teacher_id = (SELECT auth.uid()));
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.plan_classes FROM anon, authenticated;
GRANT UPDATE (title, class_session_id) ON public.plan_classes TO authenticated;

ALTER TABLE public.plan_zones ENABLE ROW LEVEL SECURITY;
CREATE POLICY plan_zones_read ON public.plan_zones FOR SELECT TO authenticated
  USING (teacher_id = (SELECT auth.uid())
         OR private.can_read_plan((SELECT pc.plan_id FROM public.plan_classes pc WHERE pc.id = plan_class_id)));
CREATE POLICY plan_zones_insert_own ON public.plan_zones FOR INSERT TO authenticated
  WITH CHECK (teacher_id = (SELECT auth.uid()));
CREATE POLICY plan_zones_update_own ON public.plan_zones FOR UPDATE TO authenticated
  USING (teacher_id = (SELECT auth.uid())) WITH CHECK (teacher_id = (SELECT auth.uid()));
CREATE POLICY plan_zones_delete_own ON public.plan_zones FOR DELETE TO authenticated
  USING (teacher_id = (SELECT auth.uid()));
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.plan_zones FROM anon;

ALTER TABLE public.plan_learning_objectives ENABLE ROW LEVEL SECURITY;
CREATE POLICY plan_learning_objectives_read ON public.plan_learning_objectives FOR SELECT TO authenticated
  USING (teacher_id = (SELECT auth.uid()) OR private.can_read_plan(plan_id));
CREATE POLICY plan_learning_objectives_insert_own ON public.plan_learning_objectives FOR INSERT TO authenticated
  WITH CHECK (teacher_id = (SELECT auth.uid()));
CREATE POLICY plan_learning_objectives_delete_own ON public.plan_learning_objectives FOR DELETE TO authenticated
  USING (teacher_id = (SELECT auth.uid()));
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.plan_learning_objectives FROM anon;
REVOKE UPDATE ON public.plan_learning_objectives FROM authenticated;

-- Legacy plan migration -----------------------------------------------------------------------

-- One zone per known section, in the usual order of a class. HTML tags are dropped (the legacy
-- editor stored simple HTML); paragraphs follow the line breaks.
CREATE FUNCTION private.legacy_sections_to_zones(legacy jsonb)
RETURNS TABLE (zone_type public.zone_type, zone_position integer, content jsonb)
LANGUAGE plpgsql IMMUTABLE
SET search_path = ''
AS $$
DECLARE
  known constant text[] := ARRAY['objetivo', 'inicio', 'desarrollo', 'cierre', 'evaluacion',
                                 'recursos', 'adecuaciones', 'notas'];
  unknown text;
BEGIN
  IF pg_catalog.jsonb_typeof(legacy) IS DISTINCT FROM 'object' THEN
    RAISE EXCEPTION 'legacy content is not a JSON object';
  END IF;
  SELECT pg_catalog.string_agg(key, ', ') INTO unknown
    FROM pg_catalog.jsonb_each(legacy) WHERE NOT key = ANY (known);
  IF unknown IS NOT NULL THEN
    RAISE EXCEPTION 'unknown legacy sections: %', unknown;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_catalog.jsonb_each(legacy) WHERE pg_catalog.jsonb_typeof(value) NOT IN ('string', 'null')) THEN
    RAISE EXCEPTION 'legacy sections must be text';
  END IF;
  RETURN QUERY
  SELECT section::public.zone_type,
         (pg_catalog.row_number() OVER (ORDER BY ordinal))::integer,
         private.text_to_rich_text(private.strip_html(legacy ->> section))
    FROM pg_catalog.unnest(known) WITH ORDINALITY AS k(section, ordinal)
   WHERE pg_catalog.btrim(coalesce(legacy ->> section, '')) <> '';
END
$$;

-- Legacy HTML to text: paragraph-ending tags become line breaks, other tags go, and the few
-- entities the old editor wrote are decoded.
CREATE FUNCTION private.strip_html(html text) RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = ''
AS $$
  SELECT pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(
           pg_catalog.regexp_replace(
             pg_catalog.regexp_replace(html, '<\s*(br|/p|/li|/h[1-6]|/div)\s*/?>', E'\n', 'gi'),
             '<[^>]*>', '', 'g'),
           '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&amp;', '&')
$$;

-- Turns a class's legacy content into zones. On any problem with the legacy content the
-- whole of it becomes one planificacion_base zone instead, so no teacher's text is lost.
-- SECURITY DEFINER because it writes the format columns clients cannot write; it therefore
-- checks ownership itself (the caller's own class, or service_role for bulk migrations).
CREATE FUNCTION public.migrate_legacy_plan_class(plan_class_id uuid) RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = ''
AS $$
DECLARE
  target public.plan_classes;
  outcome text := 'migrated';
BEGIN
  SELECT * INTO target FROM public.plan_classes pc
   WHERE pc.id = migrate_legacy_plan_class.plan_class_id
     AND (pc.teacher_id = auth.uid() OR auth.role() = 'service_role')
   FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'No existe la clase % o no es tuya', migrate_legacy_plan_class.plan_class_id
      USING ERRCODE = 'P0002';
  END IF;
  IF target.content_format = 'zones' THEN
    RETURN 'already_migrated';
  END IF;

  UPDATE public.plan_classes
     SET content_format = 'zones', legacy_migration = 'migrated', legacy_migrated_at = pg_catalog.now()
   WHERE id = target.id;
  BEGIN
    INSERT INTO public.plan_zones (plan_class_id, teacher_id, zone_type, position, content)
    SELECT target.id, target.teacher_id, z.zone_type, z.zone_position, z.content
      FROM private.legacy_sections_to_zones(target.legacy_content) AS z;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'legacy content has no text';
    END IF;
  EXCEPTION WHEN OTHERS THEN
    outcome := 'fallback';
    INSERT INTO public.plan_zones (plan_class_id, teacher_id, zone_type, position, title, content)
    VALUES (target.id, target.teacher_id, 'planificacion_base', 1, 'Planificación',
            private.text_to_rich_text(coalesce(
              (SELECT pg_catalog.string_agg(private.strip_html(value #>> '{}'), E'\n' ORDER BY key)
                 FROM pg_catalog.jsonb_each(
                        CASE WHEN pg_catalog.jsonb_typeof(target.legacy_content) = 'object'
                             THEN target.legacy_content ELSE '{}'::jsonb END)
                WHERE pg_catalog.jsonb_typeof(value) = 'string'),
              target.legacy_content::text)));
    UPDATE public.plan_classes SET legacy_migration = 'fallback' WHERE id = target.id;
  END;
  RETURN outcome;
END
$$;
COMMENT ON FUNCTION public.migrate_legacy_plan_class(uuid) IS 'Migrates a class''s legacy plan content into zones; returns migrated, fallback (one base planning zone) or already_migrated. rpc(''migrate_legacy_plan_class'', {plan_class_id}).';
REVOKE EXECUTE ON FUNCTION public.migrate_legacy_plan_class(uuid) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.migrate_legacy_plan_class(uuid) TO authenticated, service_role;

-- Drafts ----------------------------------------------------------------------------------------

CREATE TABLE public.drafts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  teacher_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  course_id uuid,
  title text NOT NULL DEFAULT 'Borrador sin título' CHECK (char_length(btrim(title)) BETWEEN 1 AND 200),
  content jsonb NOT NULL DEFAULT '{"type": "doc", "content": []}',
  content_length integer GENERATED ALWAYS AS (private.rich_text_length(content)) STORED,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT drafts_course_fkey FOREIGN KEY (course_id, teacher_id)
    REFERENCES public.courses (id, teacher_id) ON DELETE CASCADE,
  CONSTRAINT drafts_content_is_document CHECK (private.is_rich_text_doc(content)),
  CONSTRAINT drafts_content_size CHECK (octet_length(content::text) <= 524288)
);
COMMENT ON TABLE public.drafts IS 'Free-form drafts (Borradores) edited in the document editor; private to their teacher.';
COMMENT ON COLUMN public.drafts.id IS 'Draft id (/editor/draft/{id}).';
COMMENT ON COLUMN public.drafts.teacher_id IS 'Owner; defaults to the caller.';
COMMENT ON COLUMN public.drafts.course_id IS 'Course the draft is for, if any (must be the owner''s).';
COMMENT ON COLUMN public.drafts.title IS 'Title.';
COMMENT ON COLUMN public.drafts.content IS 'Rich text as the editor''s JSON document, at most 512 KiB.';
COMMENT ON COLUMN public.drafts.content_length IS 'Characters of text in content (computed).';
COMMENT ON COLUMN public.drafts.created_at IS 'When the draft was created.';
COMMENT ON COLUMN public.drafts.updated_at IS 'Last change (set by the database).';
CREATE INDEX drafts_teacher_idx ON public.drafts (teacher_id, updated_at DESC);
CREATE TRIGGER drafts_touch BEFORE UPDATE ON public.drafts
  FOR EACH ROW EXECUTE FUNCTION private.touch_updated_at();

ALTER TABLE public.drafts ENABLE ROW LEVEL SECURITY;
CREATE POLICY drafts_own ON public.drafts FOR ALL TO authenticated
  USING (teacher_id = (SELECT auth.uid())) WITH CHECK (teacher_id = (SELECT auth.uid()));
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.drafts FROM anon;

-- Functions in private are executable only where granted above.
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA private FROM PUBLIC;

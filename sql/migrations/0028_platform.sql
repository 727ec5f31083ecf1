-- Platform data: monitoring alerts and the security audit log (admins), announcements,
-- content creators' resources and the curriculum indicators they maintain, and the AI usage
-- ledger that spends Estrellas Cielo.

-- Admin alerts -------------------------------------------------------------------------------

CREATE TYPE public.alert_severity AS ENUM ('info', 'warning', 'error', 'critical');
COMMENT ON TYPE public.alert_severity IS 'Severity of an admin alert; the admin badge counts unresolved error and critical ones.';

CREATE TABLE public.admin_alerts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  severity public.alert_severity NOT NULL,
  title text NOT NULL CHECK (char_length(btrim(title)) BETWEEN 1 AND 200),
  message text NOT NULL DEFAULT '' CHECK (char_length(message) <= 10000),
  source text NOT NULL DEFAULT 'sistema' CHECK (char_length(btrim(source)) BETWEEN 1 AND 100),
  metadata jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object' AND octet_length(metadata::text) <= 65536),
  is_resolved boolean NOT NULL DEFAULT false,
  resolved_by uuid REFERENCES auth.users (id) ON DELETE SET NULL,
  resolved_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT admin_alerts_resolution CHECK (
    is_resolved = (resolved_at IS NOT NULL) AND (resolved_by IS NULL OR is_resolved))
);
COMMENT ON TABLE public.admin_alerts IS 'Monitoring alerts for admins (Monitoreo Cielo). Raised by the platform (service_role) or admins; only admins read and resolve them.';
COMMENT ON COLUMN public.admin_alerts.id IS 'Alert id.';
COMMENT ON COLUMN public.admin_alerts.severity IS 'info, warning, error or critical.';
COMMENT ON COLUMN public.admin_alerts.title IS 'Short summary.';
COMMENT ON COLUMN public.admin_alerts.message IS 'Details.';
COMMENT ON COLUMN public.admin_alerts.source IS 'Part of the platform that raised it, e.g. "functions", "auth".';
COMMENT ON COLUMN public.admin_alerts.metadata IS 'Structured context (JSON object, at most 64 KiB).';
COMMENT ON COLUMN public.admin_alerts.is_resolved IS 'True once an admin resolved it.';
COMMENT ON COLUMN public.admin_alerts.resolved_by IS 'Admin who resolved it (set by the database).';
COMMENT ON COLUMN public.admin_alerts.resolved_at IS 'When it was resolved (set by the database).';
COMMENT ON COLUMN public.admin_alerts.created_at IS 'When it was raised.';
CREATE INDEX admin_alerts_unresolved_idx ON public.admin_alerts (severity, created_at DESC) WHERE NOT is_resolved;

-- Resolution is recorded by the database: who and when follow is_resolved.
CREATE FUNCTION private.record_alert_resolution() RETURNS trigger
LANGUAGE plpgsql
SET search_path = ''
AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.created_at := pg_catalog.now();
  END IF;
  IF NEW.is_resolved AND (TG_OP = 'INSERT' OR NOT OLD.is_resolved) THEN
    NEW.resolved_at := pg_catalog.now();
    NEW.resolved_by := auth.uid();
  ELSIF NOT NEW.is_resolved THEN
    NEW.resolved_at := NULL;
    NEW.resolved_by := NULL;
  ELSE
    NEW.resolved_at := OLD.resolved_at;
    NEW.resolved_by := OLD.resolved_by;
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER admin_alerts_resolution BEFORE INSERT OR UPDATE ON public.admin_alerts
  FOR EACH ROW EXECUTE FUNCTION private.record_alert_resolution();

ALTER TABLE public.admin_alerts ENABLE ROW LEVEL SECURITY;
CREATE POLICY admin_alerts_admin_read ON public.admin_alerts FOR SELECT TO authenticated
  USING ((SELECT public.is_admin()));
CREATE POLICY admin_alerts_admin_insert ON public.admin_alerts FOR INSERT TO authenticated
  WITH CHECK ((SELECT public.is_admin()));
CREATE POLICY admin_alerts_admin_update ON public.admin_alerts FOR UPDATE TO authenticated
  USING ((SELECT public.is_admin())) WITH CHECK ((SELECT public.is_admin()));
-- Alerts are history: resolved, never deleted through the API.
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.admin_alerts FROM anon;
REVOKE DELETE, TRUNCATE ON public.admin_alerts FROM authenticated;

ALTER PUBLICATION supabase_realtime ADD TABLE public.admin_alerts;

-- Security audit log ---------------------------------------------------------------------------

-- Values whose key names a secret or personal contact are replaced, at any depth: the spec's
-- password, token, key, secret, email, phone, and their Spanish forms.
CREATE FUNCTION private.redact_sensitive(value jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE
SET search_path = ''
AS $$
  SELECT CASE pg_catalog.jsonb_typeof(value)
    WHEN 'object' THEN (
      SELECT coalesce(pg_catalog.jsonb_object_agg(key,
               CASE WHEN key ~* '(password|token|key|secret|email|phone|contrase(n|ñ)a|clave|correo|tel(e|é)fono|celular)'
                    THEN '"[REDACTED]"'::jsonb
                    ELSE private.redact_sensitive(item) END), '{}'::jsonb)
        FROM pg_catalog.jsonb_each(value) AS entry(key, item))
    WHEN 'array' THEN (
      SELECT coalesce(pg_catalog.jsonb_agg(private.redact_sensitive(item) ORDER BY position), '[]'::jsonb)
        FROM pg_catalog.jsonb_array_elements(value) WITH ORDINALITY AS element(item, position))
    ELSE value
  END
$$;
COMMENT ON FUNCTION private.redact_sensitive(jsonb) IS 'Replaces the values of keys naming passwords, tokens, keys, secrets, e-mails or phones (English or Spanish) with "[REDACTED]", at any depth.';
GRANT EXECUTE ON FUNCTION private.redact_sensitive(jsonb) TO authenticated, service_role;

CREATE TABLE public.security_audit_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id uuid DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE SET NULL,
  action text NOT NULL CHECK (action ~ '^logger_[A-Za-z0-9_.:-]+$' AND char_length(action) <= 120),
  resource_type text NOT NULL DEFAULT 'system' CHECK (resource_type ~ '^[a-z][a-z0-9_]{0,39}$'),
  resource_id text CHECK (char_length(resource_id) <= 200),
  new_values jsonb CHECK (octet_length(new_values::text) <= 16384),
  user_agent text CHECK (char_length(user_agent) <= 512),
  created_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE public.security_audit_log IS 'Security audit trail written by the app (one insert per event, outside development builds). Insert-only for users, readable only by admins, never updated or deleted through the API.';
COMMENT ON COLUMN public.security_audit_log.id IS 'Entry number.';
COMMENT ON COLUMN public.security_audit_log.user_id IS 'User who caused the event: always the caller.';
COMMENT ON COLUMN public.security_audit_log.action IS 'What happened; starts with "logger_", e.g. "logger_error".';
COMMENT ON COLUMN public.security_audit_log.resource_type IS 'Kind of thing concerned, e.g. "system".';
COMMENT ON COLUMN public.security_audit_log.resource_id IS 'Identifier of the thing concerned, if any.';
COMMENT ON COLUMN public.security_audit_log.new_values IS 'Context of the event (JSON, at most 16 KiB), with sensitive fields redacted by the database.';
COMMENT ON COLUMN public.security_audit_log.user_agent IS 'Browser user agent (from the request when not given).';
COMMENT ON COLUMN public.security_audit_log.created_at IS 'When it was logged (set by the database).';
CREATE INDEX security_audit_log_created_idx ON public.security_audit_log (created_at DESC);
CREATE INDEX security_audit_log_user_idx ON public.security_audit_log (user_id, created_at DESC);

CREATE FUNCTION private.prepare_audit_entry() RETURNS trigger
LANGUAGE plpgsql
SET search_path = ''
AS $$
BEGIN
  NEW.created_at := pg_catalog.now();
  NEW.new_values := private.redact_sensitive(NEW.new_values);
  IF NEW.user_agent IS NULL THEN
    NEW.user_agent := pg_catalog.left(
      nullif(pg_catalog.current_setting('request.headers', true), '')::jsonb ->> 'user-agent', 512);
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER security_audit_log_prepare BEFORE INSERT ON public.security_audit_log
  FOR EACH ROW EXECUTE FUNCTION private.prepare_audit_entry();

ALTER TABLE public.security_audit_log ENABLE ROW LEVEL SECURITY;
CREATE POLICY security_audit_log_insert_own ON public.security_audit_log FOR INSERT TO authenticated
  WITH CHECK (user_id = (SELECT auth.uid()));
CREATE POLICY security_audit_log_admin_read ON public.security_audit_log FOR SELECT TO authenticated
  USING ((SELECT public.is_admin()));
REVOKE ALL ON public.security_audit_log FROM anon;
REVOKE UPDATE, DELETE, TRUNCATE ON public.security_audit_log FROM authenticated, service_role;

-- Announcements --------------------------------------------------------------------------------

CREATE TYPE public.announcement_audience AS ENUM ('publico', 'docentes', 'demo', 'administradores');
COMMENT ON TYPE public.announcement_audience IS 'Who sees an announcement: publico (anyone, also signed out), docentes (signed-in users), demo (Demo 2025 users), administradores.';

CREATE TABLE public.announcements (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  title text NOT NULL CHECK (char_length(btrim(title)) BETWEEN 1 AND 200),
  body text NOT NULL DEFAULT '' CHECK (char_length(body) <= 20000),
  audience public.announcement_audience NOT NULL DEFAULT 'docentes',
  is_pinned boolean NOT NULL DEFAULT false,
  published_at timestamptz,
  expires_at timestamptz,
  created_by uuid DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT announcements_expiry_after_publication CHECK (
    expires_at IS NULL OR (published_at IS NOT NULL AND expires_at > published_at))
);
COMMENT ON TABLE public.announcements IS 'Announcements (Anuncios) written by admins; shown to their audience between published_at and expires_at.';
COMMENT ON COLUMN public.announcements.id IS 'Announcement id.';
COMMENT ON COLUMN public.announcements.title IS 'Title.';
COMMENT ON COLUMN public.announcements.body IS 'Text (Markdown).';
COMMENT ON COLUMN public.announcements.audience IS 'Who sees it.';
COMMENT ON COLUMN public.announcements.is_pinned IS 'Shown first.';
COMMENT ON COLUMN public.announcements.published_at IS 'From when it is shown; null while it is a draft.';
COMMENT ON COLUMN public.announcements.expires_at IS 'Until when it is shown; null for no end.';
COMMENT ON COLUMN public.announcements.created_by IS 'Admin who wrote it.';
COMMENT ON COLUMN public.announcements.created_at IS 'When it was written.';
COMMENT ON COLUMN public.announcements.updated_at IS 'Last change (set by the database).';
CREATE INDEX announcements_published_idx ON public.announcements (published_at DESC) WHERE published_at IS NOT NULL;
CREATE TRIGGER announcements_touch BEFORE UPDATE ON public.announcements
  FOR EACH ROW EXECUTE FUNCTION private.touch_updated_at();

-- Policy helper: the caller is in the Demo 2025 programme.
CREATE FUNCTION private.is_demo_user() RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = ''
AS $$ SELECT EXISTS (SELECT 1 FROM public.demo_users_2025 WHERE user_id = auth.uid()) $$;
COMMENT ON FUNCTION private.is_demo_user() IS 'Policy helper: the caller has a demo_users_2025 row.';
GRANT EXECUTE ON FUNCTION private.is_demo_user() TO authenticated;

ALTER TABLE public.announcements ENABLE ROW LEVEL SECURITY;
CREATE POLICY announcements_public_read ON public.announcements FOR SELECT TO anon
  USING (audience = 'publico' AND published_at <= now() AND (expires_at IS NULL OR expires_at > now()));
CREATE POLICY announcements_read ON public.announcements FOR SELECT TO authenticated
  USING ((SELECT public.is_admin())
         OR (published_at <= now() AND (expires_at IS NULL OR expires_at > now())
             AND (audience IN ('publico', 'docentes')
                  OR (audience = 'demo' AND (SELECT private.is_demo_user())))));
CREATE POLICY announcements_admin_insert ON public.announcements FOR INSERT TO authenticated
  WITH CHECK ((SELECT public.is_admin()));
CREATE POLICY announcements_admin_update ON public.announcements FOR UPDATE TO authenticated
  USING ((SELECT public.is_admin())) WITH CHECK ((SELECT public.is_admin()));
CREATE POLICY announcements_admin_delete ON public.announcements FOR DELETE TO authenticated
  USING ((SELECT public.is_admin()));
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.announcements FROM anon;

ALTER PUBLICATION supabase_realtime ADD TABLE public.announcements;

CREATE TABLE public.announcement_reads (
  user_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  announcement_id uuid NOT NULL REFERENCES public.announcements (id) ON DELETE CASCADE,
  read_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, announcement_id)
);
COMMENT ON TABLE public.announcement_reads IS 'Which announcements a user has read (for the unread badge).';
COMMENT ON COLUMN public.announcement_reads.user_id IS 'Reader; defaults to the caller.';
COMMENT ON COLUMN public.announcement_reads.announcement_id IS 'Announcement read.';
COMMENT ON COLUMN public.announcement_reads.read_at IS 'When it was read.';
ALTER TABLE public.announcement_reads ENABLE ROW LEVEL SECURITY;
CREATE POLICY announcement_reads_own ON public.announcement_reads FOR ALL TO authenticated
  USING (user_id = (SELECT auth.uid())) WITH CHECK (user_id = (SELECT auth.uid()));
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.announcement_reads FROM anon;

-- Content creators' resources -------------------------------------------------------------------

CREATE TYPE public.resource_kind AS ENUM (
  'guia', 'actividad', 'evaluacion', 'rubrica', 'presentacion', 'lectura', 'video', 'otro');
COMMENT ON TYPE public.resource_kind IS 'Kind of teaching resource: guía, actividad, evaluación, rúbrica, presentación, lectura, video, otro.';
CREATE TYPE public.resource_status AS ENUM ('borrador', 'en_revision', 'publicado', 'archivado');
COMMENT ON TYPE public.resource_status IS 'Editorial state of a resource; teachers see publicado only.';

CREATE TABLE public.content_creator_resources (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_by uuid DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE SET NULL,
  title text NOT NULL CHECK (char_length(btrim(title)) BETWEEN 1 AND 200),
  description text NOT NULL DEFAULT '' CHECK (char_length(description) <= 4000),
  kind public.resource_kind NOT NULL,
  level_code text REFERENCES public.levels (code),
  subject_code text REFERENCES public.subjects (code),
  content jsonb NOT NULL DEFAULT '{"type": "doc", "content": []}',
  content_length integer GENERATED ALWAYS AS (private.rich_text_length(content)) STORED,
  storage_path text CHECK (storage_path ~ '^[A-Za-z0-9_/!.*''() &$=@;:+,?-]+$' AND storage_path !~ '(^|/)\.\.?(/|$)' AND char_length(storage_path) <= 500),
  status public.resource_status NOT NULL DEFAULT 'borrador',
  published_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT content_creator_resources_content_is_document CHECK (private.is_rich_text_doc(content)),
  CONSTRAINT content_creator_resources_content_size CHECK (octet_length(content::text) <= 524288),
  CONSTRAINT content_creator_resources_published CHECK ((status = 'publicado') = (published_at IS NOT NULL))
);
COMMENT ON TABLE public.content_creator_resources IS 'Teaching resources made by content creators (Creación Contenido): drafts visible to creators and admins, published ones to every signed-in teacher.';
COMMENT ON COLUMN public.content_creator_resources.id IS 'Resource id.';
COMMENT ON COLUMN public.content_creator_resources.created_by IS 'Content creator who made it (defaults to the caller).';
COMMENT ON COLUMN public.content_creator_resources.title IS 'Title.';
COMMENT ON COLUMN public.content_creator_resources.description IS 'Short description.';
COMMENT ON COLUMN public.content_creator_resources.kind IS 'Kind of resource.';
COMMENT ON COLUMN public.content_creator_resources.level_code IS 'Level it is for, if one.';
COMMENT ON COLUMN public.content_creator_resources.subject_code IS 'Subject it is for, if one.';
COMMENT ON COLUMN public.content_creator_resources.content IS 'Rich text as the editor''s JSON document, at most 512 KiB.';
COMMENT ON COLUMN public.content_creator_resources.content_length IS 'Characters of text in content (computed).';
COMMENT ON COLUMN public.content_creator_resources.storage_path IS 'Attached file: object key in storage (no "." or ".." segments).';
COMMENT ON COLUMN public.content_creator_resources.status IS 'borrador, en_revision, publicado or archivado.';
COMMENT ON COLUMN public.content_creator_resources.published_at IS 'When it was published (set by the database; null unless publicado).';
COMMENT ON COLUMN public.content_creator_resources.created_at IS 'When it was created.';
COMMENT ON COLUMN public.content_creator_resources.updated_at IS 'Last change (set by the database).';
CREATE INDEX content_creator_resources_catalog_idx ON public.content_creator_resources (level_code, subject_code) WHERE status = 'publicado';
CREATE TRIGGER content_creator_resources_touch BEFORE UPDATE ON public.content_creator_resources
  FOR EACH ROW EXECUTE FUNCTION private.touch_updated_at();

CREATE FUNCTION private.stamp_resource_publication() RETURNS trigger
LANGUAGE plpgsql
SET search_path = ''
AS $$
BEGIN
  IF NEW.status = 'publicado' THEN
    IF TG_OP = 'INSERT' OR OLD.status <> 'publicado' THEN
      NEW.published_at := pg_catalog.now();
    ELSE
      NEW.published_at := OLD.published_at;
    END IF;
  ELSE
    NEW.published_at := NULL;
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER content_creator_resources_publication BEFORE INSERT OR UPDATE ON public.content_creator_resources
  FOR EACH ROW EXECUTE FUNCTION private.stamp_resource_publication();

ALTER TABLE public.content_creator_resources ENABLE ROW LEVEL SECURITY;
CREATE POLICY content_creator_resources_read ON public.content_creator_resources FOR SELECT TO authenticated
  USING (status = 'publicado' OR (SELECT public.is_content_creator()) OR (SELECT public.is_admin()));
CREATE POLICY content_creator_resources_insert ON public.content_creator_resources FOR INSERT TO authenticated
  WITH CHECK (created_by = (SELECT auth.uid()) AND (SELECT public.is_content_creator()));
CREATE POLICY content_creator_resources_update ON public.content_creator_resources FOR UPDATE TO authenticated
  USING ((created_by = (SELECT auth.uid()) AND (SELECT public.is_content_creator())) OR (SELECT public.is_admin()))
  WITH CHECK ((created_by = (SELECT auth.uid()) AND (SELECT public.is_content_creator())) OR (SELECT public.is_admin()));
CREATE POLICY content_creator_resources_delete ON public.content_creator_resources FOR DELETE TO authenticated
  USING ((created_by = (SELECT auth.uid()) AND (SELECT public.is_content_creator())) OR (SELECT public.is_admin()));
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.content_creator_resources FROM anon;

CREATE TABLE public.resource_learning_objectives (
  resource_id uuid NOT NULL REFERENCES public.content_creator_resources (id) ON DELETE CASCADE,
  objective_id text NOT NULL REFERENCES public.learning_objectives (id),
  PRIMARY KEY (resource_id, objective_id)
);
COMMENT ON TABLE public.resource_learning_objectives IS 'Learning objectives (OA) a resource supports.';
COMMENT ON COLUMN public.resource_learning_objectives.resource_id IS 'Resource.';
COMMENT ON COLUMN public.resource_learning_objectives.objective_id IS 'Learning objective.';
ALTER TABLE public.resource_learning_objectives ENABLE ROW LEVEL SECURITY;
-- Visible with the resource; changed by whoever may change the resource.
CREATE POLICY resource_learning_objectives_read ON public.resource_learning_objectives FOR SELECT TO authenticated
  USING (EXISTS (SELECT 1 FROM public.content_creator_resources r WHERE r.id = resource_id));
CREATE POLICY resource_learning_objectives_insert ON public.resource_learning_objectives FOR INSERT TO authenticated
  WITH CHECK (EXISTS (SELECT 1 FROM public.content_creator_resources r
                       WHERE r.id = resource_id
                         AND ((r.created_by = (SELECT auth.uid()) AND (SELECT public.is_content_creator()))
                              OR (SELECT public.is_admin()))));
CREATE POLICY resource_learning_objectives_delete ON public.resource_learning_objectives FOR DELETE TO authenticated
  USING (EXISTS (SELECT 1 FROM public.content_creator_resources r
                  WHERE r.id = resource_id
                    AND ((r.created_by = (SELECT auth.uid()) AND (SELECT public.is_content_creator()))
                         OR (SELECT public.is_admin()))));
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.resource_learning_objectives FROM anon;
REVOKE UPDATE ON public.resource_learning_objectives FROM authenticated;

-- Suggested indicators (indicadores de evaluación), which the loaded curriculum lacks; content
-- creators write them, every signed-in teacher reads them.
CREATE TABLE public.learning_objective_indicators (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  objective_id text NOT NULL REFERENCES public.learning_objectives (id) ON DELETE CASCADE,
  position smallint NOT NULL CHECK (position BETWEEN 1 AND 100),
  text text NOT NULL CHECK (char_length(btrim(text)) BETWEEN 1 AND 1000),
  created_by uuid DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT learning_objective_indicators_position_key UNIQUE (objective_id, position)
);
COMMENT ON TABLE public.learning_objective_indicators IS 'Suggested assessment indicators (indicadores de evaluación) of a learning objective, written by content creators.';
COMMENT ON COLUMN public.learning_objective_indicators.id IS 'Indicator id.';
COMMENT ON COLUMN public.learning_objective_indicators.objective_id IS 'Learning objective.';
COMMENT ON COLUMN public.learning_objective_indicators.position IS 'Order among the objective''s indicators.';
COMMENT ON COLUMN public.learning_objective_indicators.text IS 'The indicator, e.g. "Representan fracciones en la recta numérica".';
COMMENT ON COLUMN public.learning_objective_indicators.created_by IS 'Content creator who wrote it.';
COMMENT ON COLUMN public.learning_objective_indicators.created_at IS 'When it was written.';
COMMENT ON COLUMN public.learning_objective_indicators.updated_at IS 'Last change (set by the database).';
CREATE TRIGGER learning_objective_indicators_touch BEFORE UPDATE ON public.learning_objective_indicators
  FOR EACH ROW EXECUTE FUNCTION private.touch_updated_at();
ALTER TABLE public.learning_objective_indicators ENABLE ROW LEVEL SECURITY;
CREATE POLICY learning_objective_indicators_read ON public.learning_objective_indicators FOR SELECT TO authenticated
  USING (true);
CREATE POLICY learning_objective_indicators_insert ON public.learning_objective_indicators FOR INSERT TO authenticated
  WITH CHECK ((SELECT public.is_content_creator()) OR (SELECT public.is_admin()));
CREATE POLICY learning_objective_indicators_update ON public.learning_objective_indicators FOR UPDATE TO authenticated
  USING ((SELECT public.is_content_creator()) OR (SELECT public.is_admin()))
  WITH CHECK ((SELECT public.is_content_creator()) OR (SELECT public.is_admin()));
CREATE POLICY learning_objective_indicators_delete ON public.learning_objective_indicators FOR DELETE TO authenticated
  USING ((SELECT public.is_content_creator()) OR (SELECT public.is_admin()));
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.learning_objective_indicators FROM anon;

-- AI usage ledger (Estrellas Cielo) --------------------------------------------------------------

CREATE TABLE public.ai_usage_ledger (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  request_id text NOT NULL UNIQUE CHECK (char_length(request_id) BETWEEN 1 AND 200),
  feature text NOT NULL CHECK (feature ~ '^[a-z][a-z0-9_]{0,39}$'),
  model text CHECK (char_length(model) <= 100),
  prompt_tokens integer NOT NULL CHECK (prompt_tokens BETWEEN 0 AND 10000000),
  completion_tokens integer NOT NULL CHECK (completion_tokens BETWEEN 0 AND 10000000),
  total_tokens integer GENERATED ALWAYS AS (prompt_tokens + completion_tokens) STORED,
  stars_cost integer GENERATED ALWAYS AS ((prompt_tokens + completion_tokens + 514) / 515) STORED,
  stars_charged integer NOT NULL CHECK (stars_charged >= 0),
  plan_id uuid REFERENCES public.plans (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT ai_usage_ledger_charge_within_cost CHECK (
    stars_charged <= (prompt_tokens + completion_tokens + 514) / 515)
);
COMMENT ON TABLE public.ai_usage_ledger IS 'Every AI generation and the Estrellas Cielo it cost (1 star per started 515 tokens). Written only by record_ai_usage(); users read their own entries, admins all.';
COMMENT ON COLUMN public.ai_usage_ledger.id IS 'Entry number.';
COMMENT ON COLUMN public.ai_usage_ledger.user_id IS 'User the generation was for.';
COMMENT ON COLUMN public.ai_usage_ledger.request_id IS 'Idempotency key of the generation: recording it twice charges once.';
COMMENT ON COLUMN public.ai_usage_ledger.feature IS 'What was generated, e.g. "plan_simple", "plan_secuencial", "zona".';
COMMENT ON COLUMN public.ai_usage_ledger.model IS 'AI model used.';
COMMENT ON COLUMN public.ai_usage_ledger.prompt_tokens IS 'Input tokens.';
COMMENT ON COLUMN public.ai_usage_ledger.completion_tokens IS 'Output tokens.';
COMMENT ON COLUMN public.ai_usage_ledger.total_tokens IS 'prompt_tokens + completion_tokens (computed).';
COMMENT ON COLUMN public.ai_usage_ledger.stars_cost IS 'Stars the tokens are worth: ceil(total_tokens / 515) (computed).';
COMMENT ON COLUMN public.ai_usage_ledger.stars_charged IS 'Stars taken from the demo balance: the cost, capped at what remained; 0 for users outside the demo.';
COMMENT ON COLUMN public.ai_usage_ledger.plan_id IS 'Plan the generation was for, if any.';
COMMENT ON COLUMN public.ai_usage_ledger.created_at IS 'When it was recorded.';
CREATE INDEX ai_usage_ledger_user_idx ON public.ai_usage_ledger (user_id, created_at DESC);

ALTER TABLE public.ai_usage_ledger ENABLE ROW LEVEL SECURITY;
CREATE POLICY ai_usage_ledger_read ON public.ai_usage_ledger FOR SELECT TO authenticated
  USING (user_id = (SELECT auth.uid()) OR (SELECT public.is_admin()));
REVOKE ALL ON public.ai_usage_ledger FROM anon;
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.ai_usage_ledger FROM authenticated, service_role;

-- Records one generation and spends its stars, atomically: the demo row is locked, the charge
-- is capped at the remaining stars (used_stars never exceeds total_stars), and the ledger entry
-- and the new balance commit together. A demo user with no stars left, an inactive demo or an
-- expired one is refused before anything is written; the server checks demo_stars before
-- generating and records afterwards. Called by trusted servers (service_role) only.
CREATE FUNCTION public.record_ai_usage(
  user_id uuid,
  request_id text,
  feature text,
  prompt_tokens integer,
  completion_tokens integer,
  model text DEFAULT NULL,
  plan_id uuid DEFAULT NULL
) RETURNS public.ai_usage_ledger
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = ''
AS $$
DECLARE
  existing public.ai_usage_ledger;
  demo public.demo_users_2025;
  cost integer := (record_ai_usage.prompt_tokens + record_ai_usage.completion_tokens + 514) / 515;
  charge integer := 0;
  entry public.ai_usage_ledger;
BEGIN
  SELECT * INTO existing FROM public.ai_usage_ledger l WHERE l.request_id = record_ai_usage.request_id;
  IF FOUND THEN
    IF existing.user_id <> record_ai_usage.user_id THEN
      RAISE EXCEPTION 'request_id % ya fue usado por otro usuario', record_ai_usage.request_id
        USING ERRCODE = '23505';
    END IF;
    RETURN existing;
  END IF;

  SELECT * INTO demo FROM public.demo_users_2025 d WHERE d.user_id = record_ai_usage.user_id FOR UPDATE;
  IF FOUND THEN
    IF NOT demo.is_active OR private.chile_today() > demo.demo_end_date THEN
      RAISE EXCEPTION 'La demo de Estrellas Cielo no está activa'
        USING ERRCODE = 'PT403', HINT = 'La demo terminó o fue suspendida.';
    END IF;
    IF demo.used_stars >= demo.total_stars THEN
      RAISE EXCEPTION 'Estrellas Cielo agotadas'
        USING ERRCODE = 'PT402',
              DETAIL = 'No se puede generar más contenido con IA hasta que se renueve el período de demostración.';
    END IF;
    charge := least(cost, demo.total_stars - demo.used_stars);
    UPDATE public.demo_users_2025 d SET used_stars = d.used_stars + charge
     WHERE d.user_id = record_ai_usage.user_id;
  END IF;

  INSERT INTO public.ai_usage_ledger
    (user_id, request_id, feature, model, prompt_tokens, completion_tokens, stars_charged, plan_id)
  VALUES (record_ai_usage.user_id, record_ai_usage.request_id, record_ai_usage.feature,
          record_ai_usage.model, record_ai_usage.prompt_tokens, record_ai_usage.completion_tokens,
          charge, record_ai_usage.plan_id)
  RETURNING * INTO entry;
  RETURN entry;
END
$$;
COMMENT ON FUNCTION public.record_ai_usage(uuid, text, text, integer, integer, text, uuid) IS 'Records an AI generation for a user and spends its Estrellas Cielo (capped at the remaining balance; refused with PT402 when none remain, PT403 when the demo is inactive or expired). Idempotent per request_id. service_role only.';
REVOKE EXECUTE ON FUNCTION public.record_ai_usage(uuid, text, text, integer, integer, text, uuid)
  FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.record_ai_usage(uuid, text, text, integer, integer, text, uuid)
  TO service_role;

-- Functions in private are executable only where granted above.
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA private FROM PUBLIC;

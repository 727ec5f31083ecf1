-- Product data model (teacher planning app), part 1: what every product table relies on.
--
-- Product tables live in `public`, the schema supabase-js talks to through rest/v1. Every one
-- of them has row-level security enabled with explicit policies; Supabase's default grants on
-- `public` (0002) stay, so RLS is the gate, and privileges are revoked on top of it only where a
-- kind of write must never happen at all (reference data, append-only logs).
--
-- Internals the API must never reach (encryption keys, trigger functions, helpers) live in the
-- schema `private`, which rest/v1 does not serve. The API roles get USAGE on it so that
-- policies and triggers running as them can call its helpers; its tables carry no grants.

CREATE EXTENSION IF NOT EXISTS btree_gist WITH SCHEMA extensions;

CREATE SCHEMA private;
COMMENT ON SCHEMA private IS
  'Product internals (keys, trigger functions, policy helpers); not served by rest/v1.';
REVOKE ALL ON SCHEMA private FROM PUBLIC;
GRANT USAGE ON SCHEMA private TO anon, authenticated, service_role;
-- PostgreSQL lets PUBLIC execute every new function, and per-schema default privileges cannot
-- take that away. So each migration that adds functions here ends with
-- `REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA private FROM PUBLIC` and grants what the API
-- roles need one by one. (Triggers fire whatever the privileges on their functions.)

-- The school year runs on Chilean time: "today" for expiry dates and for "a class cannot be
-- done in the future" is the date in Santiago, whatever the server's time zone.
CREATE FUNCTION private.chile_today() RETURNS date
LANGUAGE sql STABLE
SET search_path = ''
AS $$ SELECT (pg_catalog.now() AT TIME ZONE 'America/Santiago')::date $$;
COMMENT ON FUNCTION private.chile_today() IS 'Current date in Chile (America/Santiago).';
GRANT EXECUTE ON FUNCTION private.chile_today() TO anon, authenticated, service_role;

-- Keeps updated_at honest: set by the database on every update, never by the client.
CREATE FUNCTION private.touch_updated_at() RETURNS trigger
LANGUAGE plpgsql
SET search_path = ''
AS $$
BEGIN
  NEW.updated_at := pg_catalog.now();
  RETURN NEW;
END
$$;
COMMENT ON FUNCTION private.touch_updated_at() IS 'BEFORE UPDATE trigger: updated_at := now().';

-- Rich text (plan zones, drafts, resources) is stored as the editor's JSON document, a
-- ProseMirror/Tiptap-style tree: {"type": "doc", "content": [ …nodes… ]} whose text nodes
-- carry {"type": "text", "text": "…"}.
CREATE FUNCTION private.is_rich_text_doc(document jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE
SET search_path = ''
AS $$
  SELECT pg_catalog.jsonb_typeof(document) = 'object'
     AND document ->> 'type' = 'doc'
     AND pg_catalog.jsonb_typeof(coalesce(document -> 'content', '[]'::jsonb)) = 'array'
$$;
COMMENT ON FUNCTION private.is_rich_text_doc(jsonb) IS
  'True when the value is an editor document: an object {"type": "doc", "content": [...]}.';
GRANT EXECUTE ON FUNCTION private.is_rich_text_doc(jsonb) TO anon, authenticated, service_role;

-- Number of characters of text in a document (the "content length" the app reports for a
-- zone): the sum of the lengths of every "text" string anywhere in the tree.
CREATE FUNCTION private.rich_text_length(document jsonb) RETURNS integer
LANGUAGE sql IMMUTABLE
SET search_path = ''
AS $$
  SELECT coalesce(pg_catalog.sum(pg_catalog.char_length(text_node #>> '{}')), 0)::integer
    FROM pg_catalog.jsonb_path_query(document, 'strict $.**.text ? (@.type() == "string")') AS text_node
$$;
COMMENT ON FUNCTION private.rich_text_length(jsonb) IS
  'Characters of text in an editor document (sum of every "text" string in the tree).';
GRANT EXECUTE ON FUNCTION private.rich_text_length(jsonb) TO anon, authenticated, service_role;

-- A plain-text paragraph list as an editor document (used when the database itself has to
-- write rich text: migrating legacy plans, the demo seed).
CREATE FUNCTION private.text_to_rich_text(body text) RETURNS jsonb
LANGUAGE sql IMMUTABLE
SET search_path = ''
AS $$
  SELECT pg_catalog.jsonb_build_object(
    'type', 'doc',
    'content', coalesce(pg_catalog.jsonb_agg(
      pg_catalog.jsonb_build_object(
        'type', 'paragraph',
        'content', pg_catalog.jsonb_build_array(
          pg_catalog.jsonb_build_object('type', 'text', 'text', paragraph)))
      ORDER BY position), '[]'::jsonb))
    FROM pg_catalog.regexp_split_to_table(coalesce(body, ''), E'\\s*\\n\\s*') WITH ORDINALITY AS part(paragraph, position)
   WHERE pg_catalog.btrim(paragraph) <> ''
$$;
COMMENT ON FUNCTION private.text_to_rich_text(text) IS
  'Plain text as an editor document: one paragraph per non-empty line.';
GRANT EXECUTE ON FUNCTION private.text_to_rich_text(text) TO authenticated, service_role;

REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA private FROM PUBLIC;

-- Helpers of the SQL test suite (pgTAP), installed by scripts/test-sql.sh into the private
-- test cluster only: never part of the migrations.
--
-- Tests run as the cluster's superuser and switch into the API roles exactly as rest/v1 does
-- for a request (the role, and the JWT claims in request.jwt.claims), so RLS, grants and
-- triggers behave as they do for supabase-js.

CREATE SCHEMA IF NOT EXISTS tests;
GRANT USAGE ON SCHEMA tests TO anon, authenticated, service_role;
CREATE EXTENSION IF NOT EXISTS pgtap WITH SCHEMA tests;

-- A confirmed e-mail user, as auth/v1 would create it. Returns its id.
CREATE OR REPLACE FUNCTION tests.create_user(email text) RETURNS uuid
LANGUAGE sql
AS $$
  INSERT INTO auth.users (instance_id, id, aud, role, email, email_confirmed_at,
                          raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
  VALUES ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated',
          'authenticated', email, now(), '{"provider": "email", "providers": ["email"]}', '{}',
          now(), now())
  RETURNING id
$$;

-- Back to the superuser the test started as.
CREATE OR REPLACE FUNCTION tests.reset_role() RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
  PERFORM set_config('role', 'none', true);
  PERFORM set_config('request.jwt.claims', '', true);
END
$$;

-- Acts as a signed-in user: role authenticated, claims with sub = the user.
CREATE OR REPLACE FUNCTION tests.as_user(user_id uuid) RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
  PERFORM tests.reset_role();
  PERFORM set_config('request.jwt.claims', json_build_object(
    'sub', user_id, 'role', 'authenticated', 'aud', 'authenticated')::text, true);
  PERFORM set_config('role', 'authenticated', true);
END
$$;

-- Acts as a request with only the anon key.
CREATE OR REPLACE FUNCTION tests.as_anon() RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
  PERFORM tests.reset_role();
  PERFORM set_config('request.jwt.claims', '{"role": "anon"}', true);
  PERFORM set_config('role', 'anon', true);
END
$$;

-- Acts as a trusted server with the service_role key.
CREATE OR REPLACE FUNCTION tests.as_service() RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
  PERFORM tests.reset_role();
  PERFORM set_config('request.jwt.claims', '{"role": "service_role"}', true);
  PERFORM set_config('role', 'service_role', true);
END
$$;

-- Grants a product role (as the superuser, outside any policy).
CREATE OR REPLACE FUNCTION tests.grant_role(user_id uuid, role public.app_role, school_rbd integer DEFAULT NULL)
RETURNS void
LANGUAGE sql
AS $$
  INSERT INTO public.user_roles (user_id, role, school_rbd, granted_by)
  VALUES (user_id, role, school_rbd, NULL)
$$;

GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA tests TO anon, authenticated, service_role;

-- The cast every test file uses, with fixed ids so files can name them:
--   teacher_a (Ana) and teacher_b (Beto), plain teachers; admin; creator (content creator);
--   directivo, school leader of RBD 8485 (Liceo Instituto Nacional, where Ana teaches).
CREATE OR REPLACE FUNCTION tests.teacher_a() RETURNS uuid LANGUAGE sql IMMUTABLE
AS $$ SELECT 'a0000000-0000-4000-8000-00000000000a'::uuid $$;
CREATE OR REPLACE FUNCTION tests.teacher_b() RETURNS uuid LANGUAGE sql IMMUTABLE
AS $$ SELECT 'b0000000-0000-4000-8000-00000000000b'::uuid $$;
CREATE OR REPLACE FUNCTION tests.admin() RETURNS uuid LANGUAGE sql IMMUTABLE
AS $$ SELECT 'ad000000-0000-4000-8000-0000000000ad'::uuid $$;
CREATE OR REPLACE FUNCTION tests.creator() RETURNS uuid LANGUAGE sql IMMUTABLE
AS $$ SELECT 'cc000000-0000-4000-8000-0000000000cc'::uuid $$;
CREATE OR REPLACE FUNCTION tests.directivo() RETURNS uuid LANGUAGE sql IMMUTABLE
AS $$ SELECT 'd1000000-0000-4000-8000-0000000000d1'::uuid $$;

CREATE OR REPLACE FUNCTION tests.create_cast() RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
  INSERT INTO auth.users (instance_id, id, aud, role, email, email_confirmed_at,
                          raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
  SELECT '00000000-0000-0000-0000-000000000000', id, 'authenticated', 'authenticated', email,
         now(), '{"provider": "email", "providers": ["email"]}', '{}', now(), now()
    FROM (VALUES (tests.teacher_a(), 'ana@profe.cl'), (tests.teacher_b(), 'beto@profe.cl'),
                 (tests.admin(), 'admin@cielo.cl'), (tests.creator(), 'creadora@cielo.cl'),
                 (tests.directivo(), 'directora@liceo.cl')) AS cast_member(id, email);
  PERFORM tests.grant_role(tests.admin(), 'admin');
  PERFORM tests.grant_role(tests.creator(), 'content_creator');
  PERFORM tests.grant_role(tests.directivo(), 'directivo', 8485);
END
$$;

GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA tests TO anon, authenticated, service_role;

-- The shape every product table must have: RLS on with policies, comments, safe SECURITY
-- DEFINER functions, privileges that keep internals out of reach, and the reference data.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(25);

SELECT is_empty(
  $$SELECT c.relname FROM pg_class c
     WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relrowsecurity$$,
  'every table in public has row-level security enabled');

SELECT is_empty(
  $$SELECT c.relname FROM pg_class c
     WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
       AND NOT EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid)$$,
  'every table in public has at least one policy');

SELECT is_empty(
  $$SELECT c.relname FROM pg_class c
     WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v')
       AND obj_description(c.oid, 'pg_class') IS NULL$$,
  'every table and view in public has a comment');

SELECT is_empty(
  $$SELECT c.relname || '.' || a.attname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
     WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v')
       AND a.attnum > 0 AND NOT a.attisdropped AND col_description(c.oid, a.attnum) IS NULL$$,
  'every column of every table and view in public has a comment');

SELECT is_empty(
  $$SELECT p.oid::regprocedure::text FROM pg_proc p
     WHERE p.pronamespace IN ('public'::regnamespace, 'private'::regnamespace) AND p.prosecdef
       AND NOT coalesce(p.proconfig, '{}') @> ARRAY['search_path=""']$$,
  'every SECURITY DEFINER function pins an empty search_path');

SELECT ok((SELECT prosecdef FROM pg_proc WHERE oid = 'public.is_admin()'::regprocedure),
  'is_admin() is SECURITY DEFINER');
SELECT ok((SELECT prosecdef FROM pg_proc WHERE oid = 'public.is_content_creator()'::regprocedure),
  'is_content_creator() is SECURITY DEFINER');
SELECT ok(has_function_privilege('authenticated', 'public.is_admin()', 'EXECUTE')
          AND has_function_privilege('authenticated', 'public.is_content_creator()', 'EXECUTE'),
  'signed-in users can call is_admin() and is_content_creator() through rpc');

SELECT ok(NOT has_function_privilege('authenticated',
            'public.record_ai_usage(uuid, text, text, integer, integer, text, uuid)', 'EXECUTE')
          AND NOT has_function_privilege('anon',
            'public.record_ai_usage(uuid, text, text, integer, integer, text, uuid)', 'EXECUTE')
          AND has_function_privilege('service_role',
            'public.record_ai_usage(uuid, text, text, integer, integer, text, uuid)', 'EXECUTE'),
  'only service_role can spend stars');
SELECT ok(NOT has_function_privilege('anon', 'public.decrypt_phone(text)', 'EXECUTE')
          AND NOT has_function_privilege('anon', 'public.set_phone(text)', 'EXECUTE'),
  'anon cannot touch phone numbers');
SELECT ok(NOT has_function_privilege('authenticated', 'private.phone_key()', 'EXECUTE')
          AND NOT has_function_privilege('service_role', 'private.phone_key()', 'EXECUTE'),
  'no API role can read the phone key through its function');
SELECT is_empty(
  $$SELECT p.oid::regprocedure::text FROM pg_proc p, aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) acl
     WHERE p.pronamespace = 'private'::regnamespace AND acl.grantee = 0 AND acl.privilege_type = 'EXECUTE'$$,
  'no function in private is executable by PUBLIC');
SELECT ok(NOT has_table_privilege('anon', 'private.encryption_keys', 'SELECT')
          AND NOT has_table_privilege('authenticated', 'private.encryption_keys', 'SELECT')
          AND NOT has_table_privilege('service_role', 'private.encryption_keys', 'SELECT'),
  'no API role can read the encryption keys');
SELECT is((SELECT octet_length(key) FROM private.encryption_keys WHERE name = 'profiles.phone'), 32,
  'the phone key is 32 random bytes');

SELECT is((SELECT count(*)::int FROM schools), 12898, 'the whole 2025 schools directory is loaded');
SELECT results_eq(
  $$SELECT "NOM_RBD", comuna, dependencia, region_code FROM schools WHERE "RBD" = 8485$$,
  $$VALUES ('LICEO INSTITUTO NACIONAL', 'Santiago', 'Municipal', 13::smallint)$$,
  'RBD 8485 is the Liceo Instituto Nacional, Santiago, municipal');
SELECT is((SELECT count(*)::int FROM learning_objectives), 3429, 'all 3 429 objectives are loaded');
SELECT is((SELECT count(*)::int FROM learning_objectives WHERE level_code = '1B' AND subject_code = 'matematica' AND kind = 'OA'), 20,
  '1° Básico Matemática has its 20 OA');
SELECT results_eq(
  $$SELECT statement, items[1], cardinality(items) FROM learning_objectives WHERE id = '1B|lenguaje_y_comunicacion|LE01OA05'$$,
  $$VALUES ('Leer textos breves en voz alta para adquirir fluidez:',
            'pronunciando cada palabra con precisión, aunque se autocorrijan en algunas ocasiones', 3)$$,
  'statements and their sub-items are split');
SELECT is((SELECT count(*)::int FROM levels), 12, 'twelve levels, 1° Básico to 4° Medio');
SELECT is((SELECT count(*)::int FROM holidays), 20, 'the 20 holidays of 2025 are loaded');
SELECT results_eq(
  $$SELECT winter_break_start, winter_break_end FROM school_calendars WHERE academic_year = 2025 AND region_code IN (13, 12) ORDER BY region_code$$,
  $$VALUES ('2025-06-30'::date, '2025-07-18'::date), ('2025-06-23'::date, '2025-07-04'::date)$$,
  'winter break differs by region (Magallanes, Metropolitana)');
SELECT results_eq(
  $$SELECT scope::text, region_code, comunas FROM holidays WHERE holiday_date = '2025-08-20'$$,
  $$VALUES ('comunal', 16::smallint, ARRAY['Chillán', 'Chillán Viejo'])$$,
  'communal holidays name their region and comunas');

-- The user JSON of every auth/v1 answer must not call a SQL function per row: a wrapper
-- that is not inlined costs more than the rest of the JSON (migration 0030).
CREATE FUNCTION pg_temp.plan_text(query text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
  line text;
  plan text := '';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || query LOOP
    plan := plan || line || E'\n';
  END LOOP;
  RETURN plan;
END
$f$;
SELECT unalike(pg_temp.plan_text($$SELECT cielo.auth_identity_json(i) FROM auth.identities i$$),
  '%auth_time(%', 'GoTrue timestamps inline into the identity JSON');
SELECT unalike(pg_temp.plan_text($$SELECT cielo.auth_factor_json(f) FROM auth.mfa_factors f$$),
  '%auth_time(%', 'GoTrue timestamps inline into the factor JSON');

SELECT * FROM finish();
ROLLBACK;

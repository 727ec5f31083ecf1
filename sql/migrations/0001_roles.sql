-- Roles every Supabase app relies on.
--
-- Roles are cluster-wide while migrations run per database, so every statement here is
-- idempotent: a second database in the same cluster finds the roles already there.
--
--   anon           requests without a user session (the anon / publishable key)
--   authenticated  requests carrying a signed-in user's JWT
--   service_role   trusted servers (service_role / secret key); bypasses RLS
--   authenticator  the login role of the API pool; it only switches into the three above
--   supabase_*     owners of the platform schemas, so dumps and grants from Supabase
--                  projects that name them apply unchanged

DO $roles$
DECLARE
  spec record;
BEGIN
  FOR spec IN
    SELECT * FROM (VALUES
      ('anon',                    'NOLOGIN NOINHERIT'),
      ('authenticated',           'NOLOGIN NOINHERIT'),
      ('service_role',            'NOLOGIN NOINHERIT BYPASSRLS'),
      ('authenticator',           'LOGIN NOINHERIT'),
      ('supabase_admin',          'NOLOGIN SUPERUSER CREATEDB CREATEROLE REPLICATION BYPASSRLS'),
      ('supabase_auth_admin',     'NOLOGIN NOINHERIT CREATEROLE'),
      ('supabase_storage_admin',  'NOLOGIN NOINHERIT CREATEROLE'),
      ('supabase_realtime_admin', 'NOLOGIN NOINHERIT')
    ) AS wanted(name, attributes)
  LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = spec.name) THEN
      EXECUTE format('CREATE ROLE %I %s', spec.name, spec.attributes);
    END IF;
  END LOOP;
END
$roles$;

-- The API pool logs in as authenticator and may become only these three roles (never a
-- superuser: a correctly signed token claiming `role: postgres` must not work).
GRANT anon, authenticated, service_role TO authenticator;

-- Supabase's default per-role statement timeouts, so a slow query cannot hold the pool.
ALTER ROLE anon SET statement_timeout = '3s';
ALTER ROLE authenticated SET statement_timeout = '8s';
ALTER ROLE authenticator SET statement_timeout = '8s';

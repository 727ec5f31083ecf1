-- Platform schemas, extensions and the default privileges Supabase projects expect.

CREATE SCHEMA IF NOT EXISTS extensions;
CREATE SCHEMA IF NOT EXISTS auth AUTHORIZATION supabase_auth_admin;
CREATE SCHEMA IF NOT EXISTS storage AUTHORIZATION supabase_storage_admin;
CREATE SCHEMA IF NOT EXISTS realtime AUTHORIZATION supabase_realtime_admin;

COMMENT ON SCHEMA extensions IS 'Extensions, kept out of public as on Supabase.';
COMMENT ON SCHEMA auth IS 'Users, identities and sessions of auth/v1 (GoTrue layout).';
COMMENT ON SCHEMA storage IS 'Buckets and objects of storage/v1.';
COMMENT ON SCHEMA realtime IS 'State of realtime/v1.';

CREATE EXTENSION IF NOT EXISTS pgcrypto WITH SCHEMA extensions;
CREATE EXTENSION IF NOT EXISTS "uuid-ossp" WITH SCHEMA extensions;

-- API roles can use public and extensions; RLS policies decide which rows they see.
GRANT USAGE ON SCHEMA public TO anon, authenticated, service_role;
GRANT USAGE ON SCHEMA extensions TO anon, authenticated, service_role;
GRANT ALL ON SCHEMA extensions TO supabase_admin;

-- Tables, functions and sequences created in public later (by this database's owner
-- roles) are reachable by the API roles, exactly like on Supabase: exposure is the
-- default and row-level security is the gate.
DO $defaults$
DECLARE
  owner_role text;
BEGIN
  FOREACH owner_role IN ARRAY ARRAY[current_user::text, 'supabase_admin'] LOOP
    EXECUTE format('ALTER DEFAULT PRIVILEGES FOR ROLE %I IN SCHEMA public GRANT ALL ON TABLES TO anon, authenticated, service_role', owner_role);
    EXECUTE format('ALTER DEFAULT PRIVILEGES FOR ROLE %I IN SCHEMA public GRANT ALL ON FUNCTIONS TO anon, authenticated, service_role', owner_role);
    EXECUTE format('ALTER DEFAULT PRIVILEGES FOR ROLE %I IN SCHEMA public GRANT ALL ON SEQUENCES TO anon, authenticated, service_role', owner_role);
  END LOOP;
END
$defaults$;

-- Apps add tables to this publication to receive postgres_changes over realtime/v1.
DO $publication$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = 'supabase_realtime') THEN
    CREATE PUBLICATION supabase_realtime;
  END IF;
END
$publication$;

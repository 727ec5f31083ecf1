-- Reload rest/v1's schema cache after DDL, with the event triggers Supabase installs under
-- the same names: any change to tables, views, functions or types notifies channel
-- `pgrst`, which the gateway listens on. `NOTIFY pgrst, 'reload schema'` does it by hand.

CREATE FUNCTION extensions.pgrst_ddl_watch() RETURNS event_trigger
LANGUAGE plpgsql
AS $$
DECLARE
  cmd record;
BEGIN
  FOR cmd IN SELECT * FROM pg_event_trigger_ddl_commands() LOOP
    IF cmd.command_tag IN (
        'CREATE SCHEMA', 'ALTER SCHEMA',
        'CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO', 'ALTER TABLE',
        'CREATE FOREIGN TABLE', 'ALTER FOREIGN TABLE',
        'CREATE VIEW', 'ALTER VIEW', 'CREATE MATERIALIZED VIEW', 'ALTER MATERIALIZED VIEW',
        'CREATE FUNCTION', 'ALTER FUNCTION', 'CREATE TRIGGER',
        'CREATE TYPE', 'ALTER TYPE', 'CREATE RULE', 'COMMENT')
       AND cmd.schema_name IS DISTINCT FROM 'pg_temp'
    THEN
      NOTIFY pgrst, 'reload schema';
    END IF;
  END LOOP;
END
$$;

CREATE FUNCTION extensions.pgrst_drop_watch() RETURNS event_trigger
LANGUAGE plpgsql
AS $$
DECLARE
  obj record;
BEGIN
  FOR obj IN SELECT * FROM pg_event_trigger_dropped_objects() LOOP
    IF obj.object_type IN (
        'schema', 'table', 'foreign table', 'view', 'materialized view',
        'function', 'trigger', 'type', 'rule')
       AND obj.is_temporary IS false
    THEN
      NOTIFY pgrst, 'reload schema';
    END IF;
  END LOOP;
END
$$;

CREATE EVENT TRIGGER pgrst_ddl_watch ON ddl_command_end
  EXECUTE FUNCTION extensions.pgrst_ddl_watch();
CREATE EVENT TRIGGER pgrst_drop_watch ON sql_drop
  EXECUTE FUNCTION extensions.pgrst_drop_watch();

-- A login role in anon's place (bench/run.sh: pg_read_nosettings, pg_insert_nosettings): the
-- gateway's statements alone, with RLS applying, without the settings statement that switches
-- roles.  psql -v password=... -f bench/sql/anon-login.sql
CREATE ROLE bench_anon_login LOGIN PASSWORD :'password' IN ROLE anon;

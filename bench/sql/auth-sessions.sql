-- One live session per user that auth_bench refreshed, numbered from 0 for refresh.pgbench,
-- whose client n rotates the live refresh token of session n as a refresh grant does.
CREATE TABLE cielo_bench_sessions AS
  SELECT (row_number() OVER (ORDER BY id) - 1)::int AS n, id AS session_id
    FROM (SELECT DISTINCT ON (user_id) id FROM auth.sessions
           WHERE refreshed_at IS NOT NULL ORDER BY user_id, refreshed_at DESC) s;

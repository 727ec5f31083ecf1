-- GoTrue's timestamp text, declared STABLE like the to_char it wraps. An IMMUTABLE SQL
-- function over a STABLE expression is never inlined, and a call that is not inlined
-- costs more than the rest of a user's JSON: three calls per identity and per factor on
-- every answer that carries a user (sign-ins, refresh grants, /user).
CREATE OR REPLACE FUNCTION cielo.auth_time(t timestamptz) RETURNS text
LANGUAGE sql STABLE STRICT
AS $$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') $$;

-- What auth/v1 needs besides GoTrue's base tables: the AMR claims of sessions (as GoTrue's
-- mfa_amr_claims), look-up indexes for the queries auth/v1 runs, and the JSON shape of an
-- identity as GoTrue's API returns it.

SET ROLE supabase_auth_admin;

-- How each session was authenticated (password, otp, magiclink, …): the JWT `amr` claim.
CREATE TABLE auth.mfa_amr_claims (
  session_id uuid NOT NULL REFERENCES auth.sessions (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  authentication_method text NOT NULL,
  id uuid NOT NULL,
  CONSTRAINT amr_id_pk PRIMARY KEY (id),
  CONSTRAINT mfa_amr_claims_session_id_authentication_method_pkey UNIQUE (session_id, authentication_method)
);
COMMENT ON TABLE auth.mfa_amr_claims IS 'auth: stores authenticator method reference claims for multi factor authentication';
ALTER TABLE auth.mfa_amr_claims ENABLE ROW LEVEL SECURITY;

RESET ROLE;

-- Sign-in looks users up by lower(email) without an instance id (one tenant per database).
CREATE INDEX IF NOT EXISTS users_lower_email_idx ON auth.users (lower(email::text));
-- The currently active refresh token of a session.
CREATE INDEX IF NOT EXISTS refresh_tokens_session_id_active_idx
  ON auth.refresh_tokens (session_id, id DESC) WHERE revoked IS NOT TRUE;
CREATE INDEX IF NOT EXISTS flow_state_auth_code_idx ON auth.flow_state (auth_code);
CREATE INDEX IF NOT EXISTS audit_log_entries_created_at_idx ON auth.audit_log_entries (created_at DESC);

-- Timestamps as GoTrue writes them (RFC 3339, UTC, `Z`).
CREATE FUNCTION cielo.auth_time(t timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE STRICT
AS $$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') $$;

-- One identity as GoTrue's API shows it (`identity_id` is the row id, `id` the provider's
-- user id).
CREATE FUNCTION cielo.auth_identity_json(i auth.identities) RETURNS json
LANGUAGE sql STABLE
AS $$
  SELECT json_strip_nulls(json_build_object(
    'identity_id', i.id,
    'id', i.provider_id,
    'user_id', i.user_id,
    'identity_data', i.identity_data,
    'provider', i.provider,
    'last_sign_in_at', cielo.auth_time(i.last_sign_in_at),
    'created_at', coalesce(cielo.auth_time(i.created_at), ''),
    'updated_at', coalesce(cielo.auth_time(i.updated_at), ''),
    'email', i.email
  ))
$$;

-- Multi-factor authentication with TOTP, in GoTrue's tables (auth.mfa_factors,
-- auth.mfa_challenges) with their columns, constraints and indexes, so factors exported
-- from Supabase keep their meaning. Sessions already carry `aal` and `factor_id`, and
-- auth.mfa_amr_claims records the `totp` method of a verified session.

SET ROLE supabase_auth_admin;

CREATE TYPE auth.factor_type AS ENUM ('totp', 'webauthn', 'phone');
CREATE TYPE auth.factor_status AS ENUM ('unverified', 'verified');

CREATE TABLE auth.mfa_factors (
  id uuid NOT NULL,
  user_id uuid NOT NULL,
  friendly_name text,
  factor_type auth.factor_type NOT NULL,
  status auth.factor_status NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  secret text,
  phone text DEFAULT NULL,
  last_challenged_at timestamptz UNIQUE DEFAULT NULL,
  web_authn_credential jsonb,
  web_authn_aaguid uuid,
  last_webauthn_challenge_data jsonb,
  CONSTRAINT mfa_factors_pkey PRIMARY KEY (id),
  CONSTRAINT mfa_factors_user_id_fkey FOREIGN KEY (user_id) REFERENCES auth.users (id) ON DELETE CASCADE
);
COMMENT ON TABLE auth.mfa_factors IS 'auth: stores metadata about factors';
CREATE UNIQUE INDEX mfa_factors_user_friendly_name_unique ON auth.mfa_factors (friendly_name, user_id)
  WHERE trim(friendly_name) <> '';
CREATE UNIQUE INDEX unique_phone_factor_per_user ON auth.mfa_factors (user_id, phone);
CREATE INDEX factor_id_created_at_idx ON auth.mfa_factors (user_id, created_at);
CREATE INDEX mfa_factors_user_id_idx ON auth.mfa_factors (user_id);

CREATE TABLE auth.mfa_challenges (
  id uuid NOT NULL,
  factor_id uuid NOT NULL,
  created_at timestamptz NOT NULL,
  verified_at timestamptz,
  ip_address inet NOT NULL,
  otp_code text,
  web_authn_session_data jsonb,
  CONSTRAINT mfa_challenges_pkey PRIMARY KEY (id),
  CONSTRAINT mfa_challenges_auth_factor_id_fkey FOREIGN KEY (factor_id) REFERENCES auth.mfa_factors (id) ON DELETE CASCADE
);
COMMENT ON TABLE auth.mfa_challenges IS 'auth: stores metadata about challenge requests made';
CREATE INDEX mfa_challenge_created_at_idx ON auth.mfa_challenges (created_at DESC);

ALTER TABLE auth.mfa_factors ENABLE ROW LEVEL SECURITY;
ALTER TABLE auth.mfa_challenges ENABLE ROW LEVEL SECURITY;

RESET ROLE;

-- A factor as GoTrue's API shows it (the user object's `factors`, the admin's factor
-- list): `friendly_name` left out when empty, `phone` "" when unset, `last_challenged_at`
-- null until the first challenge. The secret never leaves the database this way.
CREATE FUNCTION cielo.auth_factor_json(f auth.mfa_factors) RETURNS jsonb
LANGUAGE sql STABLE
AS $$
  SELECT jsonb_build_object(
    'id', f.id,
    'created_at', cielo.auth_time(f.created_at),
    'updated_at', cielo.auth_time(f.updated_at),
    'status', f.status,
    'factor_type', f.factor_type,
    'phone', coalesce(f.phone, ''),
    'last_challenged_at', cielo.auth_time(f.last_challenged_at)
  ) || CASE WHEN coalesce(f.friendly_name, '') = '' THEN '{}'::jsonb
            ELSE jsonb_build_object('friendly_name', f.friendly_name) END
$$;

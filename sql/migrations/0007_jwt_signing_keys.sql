-- Managed JWT signing keys (when JWT_KEYS is not configured): asymmetric keys with a key id
-- that go through Supabase's life cycle standby → in_use → previously_used → revoked.
-- Keys that are not revoked are published at /auth/v1/.well-known/jwks.json and accepted
-- by every service; the one in_use signs new user tokens. Private keys are stored
-- encrypted (AES-256-GCM, key derived from JWT_SECRET), so a dump alone cannot mint tokens.

CREATE TABLE cielo.jwt_signing_keys (
  kid uuid PRIMARY KEY,
  algorithm text NOT NULL CHECK (algorithm IN ('ES256', 'RS256')),
  status text NOT NULL CHECK (status IN ('standby', 'in_use', 'previously_used', 'revoked')),
  public_jwk jsonb NOT NULL,
  encrypted_private_jwk bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE cielo.jwt_signing_keys IS 'Managed JWT signing keys of auth/v1 (see README, "Signing keys").';
-- At most one key signs.
CREATE UNIQUE INDEX jwt_signing_keys_one_in_use ON cielo.jwt_signing_keys ((true)) WHERE status = 'in_use';

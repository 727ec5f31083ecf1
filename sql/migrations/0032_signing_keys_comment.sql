-- The signing keys' table comment pointed at a README section that moved to docs/auth-v1.md.
COMMENT ON TABLE cielo.jwt_signing_keys IS
  'Managed JWT signing keys of auth/v1 (docs/auth-v1.md, "Signing keys").';

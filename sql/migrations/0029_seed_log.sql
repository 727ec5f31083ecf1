-- Which seeds a database has received, so `cielo serve` loads the demo (SEED_DEMO) once per
-- database: a restart does not bring back demo rows the user deleted.
CREATE TABLE cielo.seeds (
  name text PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE cielo.seeds IS 'Seeds applied to this database (e.g. demo); gateway internals.';
COMMENT ON COLUMN cielo.seeds.name IS 'Seed name.';
COMMENT ON COLUMN cielo.seeds.applied_at IS 'When it was applied.';

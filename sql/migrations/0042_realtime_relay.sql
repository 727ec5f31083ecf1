-- Several gateway processes on one database: a broadcast made on one process reaches the
-- others by NOTIFY on channel `cielo_realtime_relay`. A broadcast too large for a NOTIFY
-- payload (8000 bytes) waits here, named by its id in the notification, until every process
-- has had time to read it; rows older than a minute are removed by the next large broadcast.
CREATE UNLOGGED TABLE private.realtime_relay (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  body jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE private.realtime_relay IS 'Large realtime/v1 broadcasts on their way between gateway processes (read by their id, kept a minute).';
ALTER TABLE private.realtime_relay ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON private.realtime_relay FROM PUBLIC, anon, authenticated, service_role;

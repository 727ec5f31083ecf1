-- Broadcast from the database, as Supabase Realtime offers it: realtime.send(payload, event,
-- topic, private) writes a row in realtime.messages, and every gateway process delivers it to
-- the topic's subscribers. The rows reach the gateways by NOTIFY on channel
-- `cielo_realtime`, sent when the inserting transaction commits (so a rolled-back send is
-- never delivered). Supabase partitions the table by day; here it is one table.

CREATE TABLE realtime.messages (
  topic text NOT NULL,
  extension text NOT NULL CHECK (extension IN ('broadcast', 'presence')),
  payload jsonb,
  event text,
  private boolean DEFAULT false,
  updated_at timestamp without time zone NOT NULL DEFAULT now(),
  inserted_at timestamp without time zone NOT NULL DEFAULT now(),
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  PRIMARY KEY (id, inserted_at)
);
COMMENT ON TABLE realtime.messages IS 'Messages of realtime/v1 channels (Supabase''s realtime.messages): inserted broadcasts are delivered to the topic''s subscribers; RLS policies on it authorise private channels.';
ALTER TABLE realtime.messages ENABLE ROW LEVEL SECURITY;
GRANT USAGE ON SCHEMA realtime TO anon, authenticated, service_role;
GRANT SELECT, INSERT, UPDATE ON realtime.messages TO anon, authenticated, service_role;
CREATE INDEX messages_inserted_at_topic_index ON realtime.messages (inserted_at DESC, topic);

CREATE FUNCTION realtime.topic() RETURNS text
LANGUAGE sql STABLE
AS $$ SELECT nullif(current_setting('realtime.topic', true), '')::text $$;
COMMENT ON FUNCTION realtime.topic() IS 'The topic a Realtime Authorization check is about (for RLS policies on realtime.messages).';
GRANT EXECUTE ON FUNCTION realtime.topic() TO anon, authenticated, service_role;

CREATE FUNCTION realtime.send(payload jsonb, event text, topic text, private boolean DEFAULT true)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
  generated_id uuid := gen_random_uuid();
  final_payload jsonb := CASE
    WHEN payload ? 'id' THEN payload
    ELSE payload || jsonb_build_object('id', generated_id)
  END;
BEGIN
  PERFORM set_config('realtime.topic', topic, true);
  INSERT INTO realtime.messages (id, payload, event, topic, private, extension)
  VALUES (generated_id, final_payload, event, topic, private, 'broadcast');
EXCEPTION WHEN OTHERS THEN
  -- As Supabase's: a failed send never fails the caller's transaction.
  RAISE WARNING 'WarnSendingBroadcastMessage: %', SQLERRM;
END
$$;
COMMENT ON FUNCTION realtime.send(jsonb, text, text, boolean) IS 'Broadcasts payload as event on topic (private: only to channels Realtime Authorization lets read it); the payload gets an id if it has none. Never raises: a failure is a warning.';
GRANT EXECUTE ON FUNCTION realtime.send(jsonb, text, text, boolean) TO anon, authenticated, service_role;

-- NOTIFY payloads are limited to 8000 bytes: a larger message is announced by its key, and the
-- gateway reads it.
CREATE FUNCTION private.announce_realtime_message() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = ''
AS $$
DECLARE
  whole text := pg_catalog.json_build_object(
    'id', NEW.id, 'topic', NEW.topic, 'event', NEW.event, 'payload', NEW.payload,
    'private', coalesce(NEW.private, false))::text;
BEGIN
  IF pg_catalog.octet_length(whole) <= 7900 THEN
    PERFORM pg_catalog.pg_notify('cielo_realtime', whole);
  ELSE
    PERFORM pg_catalog.pg_notify('cielo_realtime',
      pg_catalog.json_build_object('id', NEW.id, 'inserted_at', NEW.inserted_at)::text);
  END IF;
  RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION private.announce_realtime_message() FROM PUBLIC;
CREATE TRIGGER messages_announce AFTER INSERT ON realtime.messages
  FOR EACH ROW WHEN (NEW.extension = 'broadcast') EXECUTE FUNCTION private.announce_realtime_message();

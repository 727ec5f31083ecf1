-- postgres_changes: what the gateway asks of the database besides the replication slot.
-- A column value whose JSON form only PostgreSQL writes right (arrays, composites, domains,
-- BC dates) is converted here, as Supabase converts every value: to_jsonb of the value read
-- as its type. A subscription's filter value is read as its column's type the same way, so
-- the gateway compares it with the rows' values; a bad column or value is refused with the
-- messages Supabase's subscription check raises.
CREATE FUNCTION private.realtime_to_jsonb(value text, type_oid oid)
RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = ''
AS $$
DECLARE
  result jsonb;
BEGIN
  EXECUTE format('SELECT to_jsonb(%L::%s)', value, type_oid::regtype) INTO result;
  RETURN result;
END
$$;
COMMENT ON FUNCTION private.realtime_to_jsonb(text, oid) IS 'A replicated column value as Supabase Realtime sends it (to_jsonb of the typed value).';

CREATE FUNCTION private.realtime_filter_value(entity regclass, column_name text, op text, value text)
RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = ''
AS $$
DECLARE
  column_type regtype;
  result jsonb;
BEGIN
  SELECT a.atttypid::regtype INTO column_type
  FROM pg_catalog.pg_attribute a
  WHERE a.attrelid = entity AND a.attname = column_name AND a.attnum > 0 AND NOT a.attisdropped;
  IF column_type IS NULL THEN
    RAISE EXCEPTION 'invalid column for filter %', column_name;
  END IF;
  IF op = 'is' THEN
    IF lower(value) NOT IN ('null', 'true', 'false', 'unknown') THEN
      RAISE EXCEPTION 'invalid value for is filter: must be null, true, false, or unknown';
    END IF;
    IF lower(value) <> 'null' AND column_type <> 'boolean'::regtype THEN
      RAISE EXCEPTION 'is % filter requires a boolean column, got %', lower(value), column_type;
    END IF;
    RETURN CASE lower(value)
      WHEN 'null' THEN 'null'::jsonb
      WHEN 'unknown' THEN '"unknown"'::jsonb
      ELSE to_jsonb(value::boolean)
    END;
  END IF;
  IF op = 'in' THEN
    EXECUTE format('SELECT to_jsonb(%L::%s[])', value, column_type) INTO result;
    IF jsonb_array_length(result) > 100 THEN
      RAISE EXCEPTION 'too many values for `in` filter. Maximum 100';
    END IF;
    RETURN result;
  END IF;
  EXECUTE format('SELECT to_jsonb(%L::%s)', value, column_type) INTO result;
  RETURN result;
END
$$;
COMMENT ON FUNCTION private.realtime_filter_value(regclass, text, text, text) IS 'A realtime/v1 filter value read as its column''s type, or Supabase''s refusal.';

REVOKE EXECUTE ON FUNCTION private.realtime_to_jsonb(text, oid) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION private.realtime_filter_value(regclass, text, text, text) FROM PUBLIC;

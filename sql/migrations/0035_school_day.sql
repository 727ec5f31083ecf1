-- The shape of a teacher's school day, which the weekly grid (Horario) is drawn on: when the
-- first pedagogical hour starts, how many 45-minute hours the day has, and the breaks
-- (recreos, almuerzo) after some of them. One row per teacher; without a row the app uses a
-- usual jornada escolar completa (08:00, eight hours, two recreos and lunch).

-- Whether `breaks` is a list of at most six {"after_hour", "minutes", "label"}: after_hour a
-- whole hour inside the day (never after the last), one break per hour, 5 to 90 minutes, a
-- short label.
CREATE FUNCTION private.valid_day_breaks(breaks jsonb, hours smallint) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE
SET search_path = ''
AS $$
DECLARE
  item jsonb;
  seen integer[] := '{}';
BEGIN
  IF pg_catalog.jsonb_typeof(breaks) IS DISTINCT FROM 'array' OR pg_catalog.jsonb_array_length(breaks) > 6 THEN
    RETURN false;
  END IF;
  FOR item IN SELECT value FROM pg_catalog.jsonb_array_elements(breaks) LOOP
    IF pg_catalog.jsonb_typeof(item) <> 'object'
       OR (SELECT count(*) FROM pg_catalog.jsonb_object_keys(item)) <> 3
       OR pg_catalog.jsonb_typeof(item -> 'after_hour') IS DISTINCT FROM 'number'
       OR pg_catalog.jsonb_typeof(item -> 'minutes') IS DISTINCT FROM 'number'
       OR pg_catalog.jsonb_typeof(item -> 'label') IS DISTINCT FROM 'string' THEN
      RETURN false;
    END IF;
    IF (item ->> 'after_hour') !~ '^\d+$' OR (item ->> 'minutes') !~ '^\d+$'
       OR (item ->> 'after_hour')::integer NOT BETWEEN 1 AND hours - 1
       OR (item ->> 'after_hour')::integer = ANY (seen)
       OR (item ->> 'minutes')::integer NOT BETWEEN 5 AND 90
       OR pg_catalog.char_length(pg_catalog.btrim(item ->> 'label')) NOT BETWEEN 1 AND 30 THEN
      RETURN false;
    END IF;
    seen := seen || (item ->> 'after_hour')::integer;
  END LOOP;
  RETURN true;
END
$$;

-- Minutes the breaks of a valid `breaks` list add to the day.
CREATE FUNCTION private.day_break_minutes(breaks jsonb) RETURNS integer
LANGUAGE sql IMMUTABLE
SET search_path = ''
AS $$
  SELECT CASE WHEN pg_catalog.jsonb_typeof(breaks) <> 'array' THEN 0 ELSE
         (SELECT coalesce(sum((b ->> 'minutes')::numeric), 0)::integer
            FROM pg_catalog.jsonb_array_elements(breaks) AS b
           WHERE pg_catalog.jsonb_typeof(b -> 'minutes') = 'number')
         END
$$;

CREATE TABLE public.school_days (
  teacher_id uuid PRIMARY KEY DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  day_start time(0) NOT NULL DEFAULT '08:00'
    CHECK (day_start >= time '07:00' AND extract(minute FROM day_start)::integer % 5 = 0),
  pedagogical_hours smallint NOT NULL DEFAULT 8 CHECK (pedagogical_hours BETWEEN 1 AND 14),
  breaks jsonb NOT NULL DEFAULT '[{"after_hour": 2, "minutes": 15, "label": "Recreo"},
                                  {"after_hour": 4, "minutes": 15, "label": "Recreo"},
                                  {"after_hour": 6, "minutes": 45, "label": "Almuerzo"}]',
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT school_days_valid_breaks CHECK (private.valid_day_breaks(breaks, pedagogical_hours)),
  CONSTRAINT school_days_ends_by_23 CHECK (
    extract(epoch FROM day_start) / 60 + 45 * pedagogical_hours + private.day_break_minutes(breaks) <= 23 * 60)
);
COMMENT ON TABLE public.school_days IS 'The shape of each teacher''s school day for the weekly grid: start, 45-minute pedagogical hours and breaks. Without a row the app shows 08:00, eight hours, recreos after the 2nd and 4th hour and lunch after the 6th.';
COMMENT ON COLUMN public.school_days.teacher_id IS 'The teacher (auth.users.id); defaults to the caller.';
COMMENT ON COLUMN public.school_days.day_start IS 'Start of the first pedagogical hour (07:00 or later, on a 5-minute mark).';
COMMENT ON COLUMN public.school_days.pedagogical_hours IS 'Pedagogical hours (45 minutes) in the day, 1 to 14.';
COMMENT ON COLUMN public.school_days.breaks IS 'Breaks: [{"after_hour": 2, "minutes": 15, "label": "Recreo"}, …]; at most one after each hour, never after the last, 5 to 90 minutes.';
COMMENT ON COLUMN public.school_days.updated_at IS 'Last change (set by the database).';
CREATE TRIGGER school_days_touch BEFORE UPDATE ON public.school_days
  FOR EACH ROW EXECUTE FUNCTION private.touch_updated_at();

ALTER TABLE public.school_days ENABLE ROW LEVEL SECURITY;
CREATE POLICY school_days_own ON public.school_days FOR ALL TO authenticated
  USING (teacher_id = (SELECT auth.uid())) WITH CHECK (teacher_id = (SELECT auth.uid()));
REVOKE ALL ON public.school_days FROM anon;

-- The checks run as the writer, so the writers may call the helpers; nobody else needs them.
REVOKE EXECUTE ON FUNCTION private.valid_day_breaks(jsonb, smallint), private.day_break_minutes(jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION private.valid_day_breaks(jsonb, smallint), private.day_break_minutes(jsonb)
  TO authenticated, service_role;

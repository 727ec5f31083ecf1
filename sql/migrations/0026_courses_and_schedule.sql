-- A teacher's courses, weekly schedule, class instances and calendar events.
--
-- Ownership is carried by teacher_id on every row and tied to the course with composite
-- foreign keys (course_id, teacher_id) → courses (id, teacher_id): a row can never point at
-- another teacher's course, whatever the policies say. A directivo (school leader) reads the
-- courses of their school and what hangs off them; nobody else sees another teacher's rows.

-- Courses ----------------------------------------------------------------------------------

CREATE TABLE public.courses (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  teacher_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  school_rbd integer REFERENCES public.schools ("RBD"),
  academic_year smallint NOT NULL DEFAULT 2025 CHECK (academic_year BETWEEN 2025 AND 2100),
  level_code text NOT NULL,
  letter text NOT NULL CHECK (letter ~ '^[A-Z]$'),
  subject_code text NOT NULL,
  students_count smallint CHECK (students_count BETWEEN 1 AND 60),
  color text NOT NULL DEFAULT '#2563eb' CHECK (color ~ '^#[0-9a-f]{6}$'),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT courses_id_teacher_key UNIQUE (id, teacher_id),
  CONSTRAINT courses_level_subject_fkey FOREIGN KEY (level_code, subject_code)
    REFERENCES public.level_subjects (level_code, subject_code)
);
COMMENT ON TABLE public.courses IS 'A subject a teacher teaches to one class group in a school year, e.g. Matemática in 3° Básico B (2025).';
COMMENT ON COLUMN public.courses.id IS 'Course id.';
COMMENT ON COLUMN public.courses.teacher_id IS 'Teacher (auth.users.id) who owns the course; defaults to the caller.';
COMMENT ON COLUMN public.courses.school_rbd IS 'School where it is taught (a teacher may work in several); defaults to the profile''s school.';
COMMENT ON COLUMN public.courses.academic_year IS 'School year, 2025 for the current programme.';
COMMENT ON COLUMN public.courses.level_code IS 'Level (nivel) 1B…8B, 1M…4M.';
COMMENT ON COLUMN public.courses.letter IS 'Class group letter (letra): A–Z, as in "3° Básico B".';
COMMENT ON COLUMN public.courses.subject_code IS 'Subject (asignatura); must be taught at the level (level_subjects).';
COMMENT ON COLUMN public.courses.students_count IS 'Number of students (1–60), when known.';
COMMENT ON COLUMN public.courses.color IS 'Colour of the course in the schedule and calendar (#rrggbb).';
COMMENT ON COLUMN public.courses.created_at IS 'When the course was created.';
COMMENT ON COLUMN public.courses.updated_at IS 'Last change (set by the database).';
-- The same teacher cannot create the same course twice (no school counts as one school).
CREATE UNIQUE INDEX courses_unique_per_teacher_idx ON public.courses
  (teacher_id, academic_year, coalesce(school_rbd, 0), level_code, letter, subject_code);
CREATE INDEX courses_school_idx ON public.courses (school_rbd) WHERE school_rbd IS NOT NULL;
CREATE TRIGGER courses_touch BEFORE UPDATE ON public.courses
  FOR EACH ROW EXECUTE FUNCTION private.touch_updated_at();

-- A course without a school is taught at the teacher's main school, when they have one.
CREATE FUNCTION private.default_course_school() RETURNS trigger
LANGUAGE plpgsql
SET search_path = ''
AS $$
BEGIN
  IF NEW.school_rbd IS NULL THEN
    SELECT school_rbd INTO NEW.school_rbd FROM public.profiles WHERE user_id = NEW.teacher_id;
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER courses_default_school BEFORE INSERT ON public.courses
  FOR EACH ROW EXECUTE FUNCTION private.default_course_school();

-- Demo users may have at most max_courses courses. The demo row is locked first, so two
-- concurrent inserts by the same user are counted one after the other. SECURITY DEFINER:
-- the lock needs rights on demo_users_2025 that users do not have.
CREATE FUNCTION private.enforce_demo_course_limit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = ''
AS $$
DECLARE
  course_limit smallint;
  existing integer;
BEGIN
  SELECT max_courses INTO course_limit
    FROM public.demo_users_2025 WHERE user_id = NEW.teacher_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN NEW;
  END IF;
  SELECT count(*) INTO existing FROM public.courses
   WHERE teacher_id = NEW.teacher_id AND id IS DISTINCT FROM NEW.id;
  IF existing >= course_limit THEN
    RAISE EXCEPTION 'Alcanzaste el máximo de % cursos de la demo', course_limit
      USING ERRCODE = '23514',
            CONSTRAINT = 'courses_demo_max_courses',
            DETAIL = pg_catalog.format('La demo 2025 permite %s cursos y ya tienes %s.', course_limit, existing),
            HINT = 'Elimina un curso o pide más cupos al equipo de Cielo.';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER courses_demo_limit BEFORE INSERT OR UPDATE OF teacher_id ON public.courses
  FOR EACH ROW EXECUTE FUNCTION private.enforce_demo_course_limit();

ALTER TABLE public.courses ENABLE ROW LEVEL SECURITY;
CREATE POLICY courses_read ON public.courses FOR SELECT TO authenticated
  USING (teacher_id = (SELECT auth.uid())
         OR (school_rbd IS NOT NULL AND public.is_directivo_of(school_rbd)));
CREATE POLICY courses_insert_own ON public.courses FOR INSERT TO authenticated
  WITH CHECK (teacher_id = (SELECT auth.uid()));
CREATE POLICY courses_update_own ON public.courses FOR UPDATE TO authenticated
  USING (teacher_id = (SELECT auth.uid())) WITH CHECK (teacher_id = (SELECT auth.uid()));
CREATE POLICY courses_delete_own ON public.courses FOR DELETE TO authenticated
  USING (teacher_id = (SELECT auth.uid()));
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.courses FROM anon;

-- A policy helper: the caller owns the course, or leads its school.
CREATE FUNCTION private.can_read_course(course uuid) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = ''
AS $$
  SELECT EXISTS (
    SELECT 1 FROM public.courses c
     WHERE c.id = course
       AND (c.teacher_id = auth.uid()
            OR (c.school_rbd IS NOT NULL AND public.is_directivo_of(c.school_rbd))))
$$;
COMMENT ON FUNCTION private.can_read_course(uuid) IS 'Policy helper: the caller teaches the course or is the directivo of its school.';
GRANT EXECUTE ON FUNCTION private.can_read_course(uuid) TO authenticated;

-- Weekly schedule ----------------------------------------------------------------------------

CREATE TABLE public.schedule_blocks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  teacher_id uuid NOT NULL DEFAULT auth.uid(),
  course_id uuid NOT NULL,
  weekday smallint NOT NULL CHECK (weekday BETWEEN 1 AND 6),
  start_time time(0) NOT NULL CHECK (start_time >= time '07:00'),
  pedagogical_hours smallint NOT NULL CHECK (pedagogical_hours BETWEEN 1 AND 4),
  end_time time(0) GENERATED ALWAYS AS (start_time + interval '45 minutes' * pedagogical_hours) STORED,
  room text CHECK (char_length(btrim(room)) BETWEEN 1 AND 60),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT schedule_blocks_course_fkey FOREIGN KEY (course_id, teacher_id)
    REFERENCES public.courses (id, teacher_id) ON DELETE CASCADE,
  CONSTRAINT schedule_blocks_id_course_key UNIQUE (id, course_id),
  CONSTRAINT schedule_blocks_ends_by_23 CHECK (
    extract(epoch FROM start_time) + 2700 * pedagogical_hours <= 23 * 3600),
  CONSTRAINT schedule_blocks_no_overlap EXCLUDE USING gist (
    teacher_id WITH =, weekday WITH =,
    int4range((extract(epoch FROM start_time) / 60)::integer,
              (extract(epoch FROM start_time) / 60)::integer + 45 * pedagogical_hours) WITH &&)
);
COMMENT ON TABLE public.schedule_blocks IS 'Weekly schedule (horario): recurring blocks of 45-minute pedagogical hours. A teacher''s blocks never overlap.';
COMMENT ON COLUMN public.schedule_blocks.id IS 'Block id.';
COMMENT ON COLUMN public.schedule_blocks.teacher_id IS 'Owner; the course must be theirs.';
COMMENT ON COLUMN public.schedule_blocks.course_id IS 'Course taught in the block.';
COMMENT ON COLUMN public.schedule_blocks.weekday IS 'ISO weekday: 1 lunes … 5 viernes, 6 sábado.';
COMMENT ON COLUMN public.schedule_blocks.start_time IS 'Start time (from 07:00).';
COMMENT ON COLUMN public.schedule_blocks.pedagogical_hours IS 'Length in pedagogical hours of 45 minutes (1–4; a usual block is 2 = 90 min).';
COMMENT ON COLUMN public.schedule_blocks.end_time IS 'start_time + 45 min × pedagogical_hours (computed; 23:00 at the latest).';
COMMENT ON COLUMN public.schedule_blocks.room IS 'Classroom (sala), optional.';
COMMENT ON COLUMN public.schedule_blocks.created_at IS 'When the block was created.';
COMMENT ON COLUMN public.schedule_blocks.updated_at IS 'Last change (set by the database).';
CREATE INDEX schedule_blocks_course_idx ON public.schedule_blocks (course_id);
CREATE TRIGGER schedule_blocks_touch BEFORE UPDATE ON public.schedule_blocks
  FOR EACH ROW EXECUTE FUNCTION private.touch_updated_at();

ALTER TABLE public.schedule_blocks ENABLE ROW LEVEL SECURITY;
CREATE POLICY schedule_blocks_read ON public.schedule_blocks FOR SELECT TO authenticated
  USING (teacher_id = (SELECT auth.uid()) OR private.can_read_course(course_id));
CREATE POLICY schedule_blocks_insert_own ON public.schedule_blocks FOR INSERT TO authenticated
  WITH CHECK (teacher_id = (SELECT auth.uid()));
CREATE POLICY schedule_blocks_update_own ON public.schedule_blocks FOR UPDATE TO authenticated
  USING (teacher_id = (SELECT auth.uid())) WITH CHECK (teacher_id = (SELECT auth.uid()));
CREATE POLICY schedule_blocks_delete_own ON public.schedule_blocks FOR DELETE TO authenticated
  USING (teacher_id = (SELECT auth.uid()));
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.schedule_blocks FROM anon;

-- Class instances ----------------------------------------------------------------------------

CREATE TYPE public.class_status AS ENUM ('Programada', 'Realizada', 'Cancelada');
COMMENT ON TYPE public.class_status IS 'State of a class: Programada → Realizada | Cancelada; Cancelada → Programada (re-scheduled). Realizada is final.';

CREATE TABLE public.class_sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  teacher_id uuid NOT NULL DEFAULT auth.uid(),
  course_id uuid NOT NULL,
  schedule_block_id uuid REFERENCES public.schedule_blocks (id) ON DELETE SET NULL,
  session_date date NOT NULL CHECK (extract(isodow FROM session_date) BETWEEN 1 AND 6),
  start_time time(0) NOT NULL CHECK (start_time >= time '07:00'),
  pedagogical_hours smallint NOT NULL CHECK (pedagogical_hours BETWEEN 1 AND 4),
  end_time time(0) GENERATED ALWAYS AS (start_time + interval '45 minutes' * pedagogical_hours) STORED,
  status public.class_status NOT NULL DEFAULT 'Programada',
  status_changed_at timestamptz NOT NULL DEFAULT now(),
  cancellation_reason text,
  notes text CHECK (char_length(notes) <= 4000),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT class_sessions_course_fkey FOREIGN KEY (course_id, teacher_id)
    REFERENCES public.courses (id, teacher_id) ON DELETE CASCADE,
  CONSTRAINT class_sessions_id_teacher_key UNIQUE (id, teacher_id),
  CONSTRAINT class_sessions_ends_by_23 CHECK (
    extract(epoch FROM start_time) + 2700 * pedagogical_hours <= 23 * 3600),
  CONSTRAINT class_sessions_reason_iff_cancelled CHECK (
    (status = 'Cancelada') = (cancellation_reason IS NOT NULL)
    AND (cancellation_reason IS NULL OR btrim(cancellation_reason) <> '')),
  CONSTRAINT class_sessions_no_overlap EXCLUDE USING gist (
    teacher_id WITH =,
    tsrange(session_date + start_time, session_date + start_time + interval '45 minutes' * pedagogical_hours) WITH &&)
    WHERE (status <> 'Cancelada')
);
COMMENT ON TABLE public.class_sessions IS 'Class instances on the calendar: one class of a course on a date. Its state moves Programada → Realizada or Cancelada, Cancelada → Programada; a teacher''s non-cancelled classes never overlap.';
COMMENT ON COLUMN public.class_sessions.id IS 'Class id.';
COMMENT ON COLUMN public.class_sessions.teacher_id IS 'Owner; the course must be theirs.';
COMMENT ON COLUMN public.class_sessions.course_id IS 'Course of the class.';
COMMENT ON COLUMN public.class_sessions.schedule_block_id IS 'Weekly block it was scheduled from (same course), if any.';
COMMENT ON COLUMN public.class_sessions.session_date IS 'Date (Monday to Saturday), in the course''s academic year.';
COMMENT ON COLUMN public.class_sessions.start_time IS 'Start time.';
COMMENT ON COLUMN public.class_sessions.pedagogical_hours IS 'Length in pedagogical hours of 45 minutes (1–4).';
COMMENT ON COLUMN public.class_sessions.end_time IS 'start_time + 45 min × pedagogical_hours (computed).';
COMMENT ON COLUMN public.class_sessions.status IS 'Programada, Realizada or Cancelada; new classes are Programada.';
COMMENT ON COLUMN public.class_sessions.status_changed_at IS 'When the status last changed (set by the database).';
COMMENT ON COLUMN public.class_sessions.cancellation_reason IS 'Why the class was cancelled; required exactly when Cancelada (cleared when re-scheduled).';
COMMENT ON COLUMN public.class_sessions.notes IS 'Teacher''s notes about the class.';
COMMENT ON COLUMN public.class_sessions.created_at IS 'When the class was created.';
COMMENT ON COLUMN public.class_sessions.updated_at IS 'Last change (set by the database).';
CREATE INDEX class_sessions_teacher_date_idx ON public.class_sessions (teacher_id, session_date);
CREATE INDEX class_sessions_course_idx ON public.class_sessions (course_id, session_date);
CREATE TRIGGER class_sessions_touch BEFORE UPDATE ON public.class_sessions
  FOR EACH ROW EXECUTE FUNCTION private.touch_updated_at();

-- The state machine and the rules no CHECK can express (they read the clock or other rows).
CREATE FUNCTION private.check_class_session() RETURNS trigger
LANGUAGE plpgsql
SET search_path = ''
AS $$
DECLARE
  course_year smallint;
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.status <> 'Programada' THEN
      RAISE EXCEPTION 'Una clase nueva debe estar Programada (recibida: %)', NEW.status
        USING ERRCODE = '23514', CONSTRAINT = 'class_sessions_valid_transition';
    END IF;
  ELSE
    IF NEW.status IS DISTINCT FROM OLD.status THEN
      IF (OLD.status, NEW.status) NOT IN (
           ('Programada'::public.class_status, 'Realizada'::public.class_status),
           ('Programada', 'Cancelada'),
           ('Cancelada', 'Programada')) THEN
        RAISE EXCEPTION 'Una clase % no puede pasar a %', OLD.status, NEW.status
          USING ERRCODE = '23514', CONSTRAINT = 'class_sessions_valid_transition',
                HINT = 'Programada → Realizada o Cancelada; Cancelada → Programada. Una clase Realizada no cambia de estado.';
      END IF;
      NEW.status_changed_at := pg_catalog.now();
      IF NEW.status = 'Programada' THEN
        NEW.cancellation_reason := NULL;
      END IF;
    ELSIF OLD.status = 'Realizada'
          AND (NEW.session_date, NEW.start_time, NEW.pedagogical_hours, NEW.course_id)
              IS DISTINCT FROM (OLD.session_date, OLD.start_time, OLD.pedagogical_hours, OLD.course_id) THEN
      RAISE EXCEPTION 'Una clase Realizada no se puede mover'
        USING ERRCODE = '23514', CONSTRAINT = 'class_sessions_valid_transition';
    END IF;
  END IF;
  IF NEW.status = 'Realizada' AND NEW.session_date > private.chile_today() THEN
    RAISE EXCEPTION 'Una clase futura (%) no puede estar Realizada', NEW.session_date
      USING ERRCODE = '23514', CONSTRAINT = 'class_sessions_valid_transition';
  END IF;
  SELECT academic_year INTO course_year FROM public.courses WHERE id = NEW.course_id;
  IF course_year IS NOT NULL AND extract(year FROM NEW.session_date) <> course_year THEN
    RAISE EXCEPTION 'La fecha % no está en el año escolar % del curso', NEW.session_date, course_year
      USING ERRCODE = '23514', CONSTRAINT = 'class_sessions_in_academic_year';
  END IF;
  IF NEW.schedule_block_id IS NOT NULL AND NOT EXISTS (
       SELECT 1 FROM public.schedule_blocks
        WHERE id = NEW.schedule_block_id AND course_id = NEW.course_id) THEN
    RAISE EXCEPTION 'El bloque del horario no es de este curso'
      USING ERRCODE = '23503', CONSTRAINT = 'class_sessions_schedule_block_fkey';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER class_sessions_check BEFORE INSERT OR UPDATE ON public.class_sessions
  FOR EACH ROW EXECUTE FUNCTION private.check_class_session();

ALTER TABLE public.class_sessions ENABLE ROW LEVEL SECURITY;
CREATE POLICY class_sessions_read ON public.class_sessions FOR SELECT TO authenticated
  USING (teacher_id = (SELECT auth.uid()) OR private.can_read_course(course_id));
CREATE POLICY class_sessions_insert_own ON public.class_sessions FOR INSERT TO authenticated
  WITH CHECK (teacher_id = (SELECT auth.uid()));
CREATE POLICY class_sessions_update_own ON public.class_sessions FOR UPDATE TO authenticated
  USING (teacher_id = (SELECT auth.uid())) WITH CHECK (teacher_id = (SELECT auth.uid()));
CREATE POLICY class_sessions_delete_own ON public.class_sessions FOR DELETE TO authenticated
  USING (teacher_id = (SELECT auth.uid()));
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.class_sessions FROM anon;

-- School and personal calendar events --------------------------------------------------------

CREATE TYPE public.school_event_kind AS ENUM (
  'evaluacion', 'reunion', 'acto', 'jornada', 'salida_pedagogica', 'suspension', 'otro');
COMMENT ON TYPE public.school_event_kind IS 'Kind of calendar event: evaluación, reunión (apoderados, consejo), acto, jornada (de reflexión, de evaluación), salida pedagógica, suspensión de clases, otro.';

CREATE TABLE public.school_events (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_by uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  school_rbd integer REFERENCES public.schools ("RBD") ON DELETE CASCADE,
  course_id uuid,
  title text NOT NULL CHECK (char_length(btrim(title)) BETWEEN 1 AND 160),
  description text CHECK (char_length(description) <= 4000),
  kind public.school_event_kind NOT NULL DEFAULT 'otro',
  starts_on date NOT NULL,
  ends_on date NOT NULL,
  start_time time(0),
  end_time time(0),
  suspends_classes boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT school_events_course_fkey FOREIGN KEY (course_id, created_by)
    REFERENCES public.courses (id, teacher_id) ON DELETE CASCADE,
  CONSTRAINT school_events_dates_in_order CHECK (ends_on >= starts_on AND ends_on - starts_on <= 92),
  CONSTRAINT school_events_times CHECK (
    (start_time IS NULL AND end_time IS NULL)
    OR (start_time IS NOT NULL AND end_time IS NOT NULL AND end_time > start_time AND starts_on = ends_on)),
  CONSTRAINT school_events_school_or_course CHECK (school_rbd IS NULL OR course_id IS NULL)
);
COMMENT ON TABLE public.school_events IS 'Calendar events beyond holidays and the official calendar: school-wide ones (school_rbd set, managed by the school''s directivo, seen by its teachers) and a teacher''s own (school_rbd null, optionally for one course).';
COMMENT ON COLUMN public.school_events.id IS 'Event id.';
COMMENT ON COLUMN public.school_events.created_by IS 'Who created it (defaults to the caller).';
COMMENT ON COLUMN public.school_events.school_rbd IS 'School-wide event of this school; null for a personal event.';
COMMENT ON COLUMN public.school_events.course_id IS 'Course a personal event concerns (e.g. a test), if any; must be the creator''s.';
COMMENT ON COLUMN public.school_events.title IS 'Title, e.g. "Prueba de fracciones".';
COMMENT ON COLUMN public.school_events.description IS 'Details.';
COMMENT ON COLUMN public.school_events.kind IS 'Kind of event.';
COMMENT ON COLUMN public.school_events.starts_on IS 'First day.';
COMMENT ON COLUMN public.school_events.ends_on IS 'Last day (same as starts_on for one day; at most 92 days later).';
COMMENT ON COLUMN public.school_events.start_time IS 'Start time on a one-day event; null for all-day.';
COMMENT ON COLUMN public.school_events.end_time IS 'End time on a one-day event; null for all-day.';
COMMENT ON COLUMN public.school_events.suspends_classes IS 'No classes on these days (schedule_classes() skips them).';
COMMENT ON COLUMN public.school_events.created_at IS 'When the event was created.';
COMMENT ON COLUMN public.school_events.updated_at IS 'Last change (set by the database).';
CREATE INDEX school_events_school_idx ON public.school_events (school_rbd, starts_on) WHERE school_rbd IS NOT NULL;
CREATE INDEX school_events_creator_idx ON public.school_events (created_by, starts_on);
CREATE TRIGGER school_events_touch BEFORE UPDATE ON public.school_events
  FOR EACH ROW EXECUTE FUNCTION private.touch_updated_at();

-- Schools the caller belongs to: their profile's school and those of their courses.
CREATE FUNCTION private.my_school_rbds() RETURNS SETOF integer
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = ''
AS $$
  SELECT school_rbd FROM public.profiles WHERE user_id = auth.uid() AND school_rbd IS NOT NULL
  UNION
  SELECT school_rbd FROM public.courses WHERE teacher_id = auth.uid() AND school_rbd IS NOT NULL
$$;
COMMENT ON FUNCTION private.my_school_rbds() IS 'Policy helper: schools of the caller (profile and courses).';
GRANT EXECUTE ON FUNCTION private.my_school_rbds() TO authenticated;

ALTER TABLE public.school_events ENABLE ROW LEVEL SECURITY;
CREATE POLICY school_events_read ON public.school_events FOR SELECT TO authenticated
  USING (created_by = (SELECT auth.uid())
         OR school_rbd IN (SELECT private.my_school_rbds())
         OR (school_rbd IS NOT NULL AND public.is_directivo_of(school_rbd))
         OR (SELECT public.is_admin()));
CREATE POLICY school_events_insert ON public.school_events FOR INSERT TO authenticated
  WITH CHECK (created_by = (SELECT auth.uid())
              AND (school_rbd IS NULL OR public.is_directivo_of(school_rbd)));
CREATE POLICY school_events_update ON public.school_events FOR UPDATE TO authenticated
  USING ((school_rbd IS NULL AND created_by = (SELECT auth.uid()))
         OR (school_rbd IS NOT NULL AND public.is_directivo_of(school_rbd)))
  WITH CHECK ((school_rbd IS NULL AND created_by = (SELECT auth.uid()))
              OR (school_rbd IS NOT NULL AND public.is_directivo_of(school_rbd)));
CREATE POLICY school_events_delete ON public.school_events FOR DELETE TO authenticated
  USING ((school_rbd IS NULL AND created_by = (SELECT auth.uid()))
         OR (school_rbd IS NOT NULL AND public.is_directivo_of(school_rbd)));
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.school_events FROM anon;

-- Filling the calendar from the weekly schedule -----------------------------------------------

-- Creates the Programada classes of the caller's weekly blocks between two dates, skipping
-- days without classes: national holidays and those of the school's region or comuna, the
-- region's winter break, and school or personal events that suspend classes. Days that
-- already have the class are left alone. Runs as the caller, so RLS applies throughout.
CREATE FUNCTION public.schedule_classes(from_date date, to_date date) RETURNS integer
LANGUAGE plpgsql VOLATILE
SET search_path = ''
AS $$
DECLARE
  created integer;
BEGIN
  IF auth.uid() IS NULL THEN
    RAISE EXCEPTION 'Debes iniciar sesión' USING ERRCODE = '42501';
  END IF;
  IF to_date < from_date OR to_date - from_date > 366 THEN
    RAISE EXCEPTION 'El rango de fechas no es válido (máximo un año)' USING ERRCODE = '22023';
  END IF;
  INSERT INTO public.class_sessions (teacher_id, course_id, schedule_block_id, session_date, start_time, pedagogical_hours)
  SELECT b.teacher_id, b.course_id, b.id, day::date, b.start_time, b.pedagogical_hours
    FROM public.schedule_blocks b
    JOIN public.courses c ON c.id = b.course_id
    LEFT JOIN public.schools s ON s."RBD" = c.school_rbd
    CROSS JOIN LATERAL pg_catalog.generate_series(from_date, to_date, interval '1 day') AS day
   WHERE b.teacher_id = auth.uid()
     AND extract(isodow FROM day) = b.weekday
     AND extract(year FROM day) = c.academic_year
     AND NOT EXISTS (
       SELECT 1 FROM public.holidays h
        WHERE h.holiday_date = day::date
          AND (h.scope = 'nacional'
               OR (h.scope = 'regional' AND h.region_code = s.region_code)
               OR (h.scope = 'comunal' AND h.region_code = s.region_code AND s.comuna = ANY (h.comunas))))
     AND NOT EXISTS (
       SELECT 1 FROM public.school_calendars k
        WHERE k.academic_year = c.academic_year
          AND k.region_code = coalesce(s.region_code, 13)
          AND day::date BETWEEN k.winter_break_start AND k.winter_break_end)
     AND NOT EXISTS (
       SELECT 1 FROM public.school_events e
        WHERE e.suspends_classes
          AND day::date BETWEEN e.starts_on AND e.ends_on
          AND (e.school_rbd = c.school_rbd
               OR (e.school_rbd IS NULL AND e.created_by = b.teacher_id
                   AND (e.course_id IS NULL OR e.course_id = c.id))))
     AND NOT EXISTS (
       SELECT 1 FROM public.class_sessions x
        WHERE x.course_id = b.course_id AND x.session_date = day::date AND x.start_time = b.start_time);
  GET DIAGNOSTICS created = ROW_COUNT;
  RETURN created;
END
$$;
COMMENT ON FUNCTION public.schedule_classes(date, date) IS 'Creates the caller''s Programada classes from their weekly schedule between two dates (at most a year), skipping holidays, the regional winter break and events that suspend classes; returns how many. Schools without a region use the Metropolitana calendar. rpc(''schedule_classes'', {from_date, to_date}).';
REVOKE EXECUTE ON FUNCTION public.schedule_classes(date, date) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.schedule_classes(date, date) TO authenticated;

ALTER PUBLICATION supabase_realtime ADD TABLE public.class_sessions;

-- Functions in private are executable only where granted above.
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA private FROM PUBLIC;

-- Reference data: Chile's 16 regions and the 2025 school calendar (public holidays, and per
-- region the start of the year, the winter break and the end of classes).
--
-- Source: sql/data/calendar/calendario_escolar_feriados_2025.json (compiled by hand from
-- Mineduc's announcement and the holiday law; see the README there). Reference tables are
-- readable by every signed-in user and written only by migrations (or service_role).

CREATE TABLE public.regions (
  code smallint PRIMARY KEY CHECK (code BETWEEN 1 AND 16),
  roman_numeral text NOT NULL UNIQUE CHECK (roman_numeral ~ '^[IVXL]+$'),
  name text NOT NULL UNIQUE CHECK (btrim(name) <> '')
);
COMMENT ON TABLE public.regions IS 'Regions of Chile (official numbering, as in the Mineduc schools directory).';
COMMENT ON COLUMN public.regions.code IS 'Official region code 1–16 (COD_REG_RBD), e.g. 13 = Metropolitana.';
COMMENT ON COLUMN public.regions.roman_numeral IS 'Traditional Roman numeral, e.g. XV = Arica y Parinacota, RM written as XIII.';
COMMENT ON COLUMN public.regions.name IS 'Region name as used in the school calendar, e.g. "Ñuble".';

INSERT INTO public.regions (code, roman_numeral, name) VALUES
  (1, 'I', 'Tarapacá'),
  (2, 'II', 'Antofagasta'),
  (3, 'III', 'Atacama'),
  (4, 'IV', 'Coquimbo'),
  (5, 'V', 'Valparaíso'),
  (6, 'VI', 'Libertador General Bernardo O''Higgins'),
  (7, 'VII', 'Maule'),
  (8, 'VIII', 'Biobío'),
  (9, 'IX', 'La Araucanía'),
  (10, 'X', 'Los Lagos'),
  (11, 'XI', 'Aysén del General Carlos Ibáñez del Campo'),
  (12, 'XII', 'Magallanes y de la Antártica Chilena'),
  (13, 'XIII', 'Metropolitana de Santiago'),
  (14, 'XIV', 'Los Ríos'),
  (15, 'XV', 'Arica y Parinacota'),
  (16, 'XVI', 'Ñuble');

-- The calendar file is JSON spread over many lines. COPY reads rows, so it is read as one
-- text row per line (CSV with a delimiter and quote that never occur in it: nothing is
-- split or unescaped), numbered in file order, and joined back into one document.
CREATE TEMP TABLE calendar_source_lines (
  line_number bigint GENERATED ALWAYS AS IDENTITY,
  line text
) ON COMMIT DROP;
--! copy pg_temp.calendar_source_lines (line) FROM 'calendar/calendario_escolar_feriados_2025.json' WITH (FORMAT csv, DELIMITER E'\x01', QUOTE E'\x02')
CREATE TEMP TABLE calendar_source ON COMMIT DROP AS
  SELECT string_agg(coalesce(line, ''), E'\n' ORDER BY line_number)::jsonb AS document
    FROM pg_temp.calendar_source_lines;

DO $check$
DECLARE
  unknown text;
BEGIN
  SELECT string_agg(region ->> 'cod_region' || ' ' || (region ->> 'region'), ', ') INTO unknown
    FROM pg_temp.calendar_source, jsonb_array_elements(document -> 'regiones') AS region
   WHERE NOT EXISTS (SELECT 1 FROM public.regions r
                      WHERE r.code = (region ->> 'cod_region')::smallint AND r.name = region ->> 'region');
  IF unknown IS NOT NULL THEN
    RAISE EXCEPTION 'calendar regions do not match public.regions: %', unknown;
  END IF;
END
$check$;

-- Public holidays -------------------------------------------------------------------------

CREATE TYPE public.holiday_scope AS ENUM ('nacional', 'regional', 'comunal');
COMMENT ON TYPE public.holiday_scope IS 'Where a public holiday applies: the whole country, one region, or some comunas.';

CREATE TABLE public.holidays (
  holiday_date date NOT NULL,
  name text NOT NULL CHECK (btrim(name) <> ''),
  scope public.holiday_scope NOT NULL,
  region_code smallint REFERENCES public.regions (code),
  comunas text[] NOT NULL DEFAULT '{}',
  is_irrenunciable boolean NOT NULL DEFAULT false,
  note text NOT NULL DEFAULT '',
  PRIMARY KEY (holiday_date, name),
  CONSTRAINT holidays_scope_matches_place CHECK (
    (scope = 'nacional' AND region_code IS NULL AND comunas = '{}')
    OR (scope = 'regional' AND region_code IS NOT NULL AND comunas = '{}')
    OR (scope = 'comunal' AND region_code IS NOT NULL AND comunas <> '{}'))
);
COMMENT ON TABLE public.holidays IS 'Public holidays (feriados legales) of Chile, including election days; no classes on them where they apply.';
COMMENT ON COLUMN public.holidays.holiday_date IS 'Date of the holiday.';
COMMENT ON COLUMN public.holidays.name IS 'Name, e.g. "Día de las Glorias Navales".';
COMMENT ON COLUMN public.holidays.scope IS 'nacional, regional (region_code) or comunal (region_code and comunas).';
COMMENT ON COLUMN public.holidays.region_code IS 'Region where a regional or communal holiday applies.';
COMMENT ON COLUMN public.holidays.comunas IS 'Comuna names where a communal holiday applies (empty otherwise).';
COMMENT ON COLUMN public.holidays.is_irrenunciable IS 'Irrenunciable for retail workers (Ley 19.973 and electoral law).';
COMMENT ON COLUMN public.holidays.note IS 'Remarks from the source, e.g. "cae domingo en 2025".';

-- `ambito` is "nacional", "regional:XV Arica y Parinacota" or
-- "comunal:Chillán y Chillán Viejo (Ñuble)".
INSERT INTO public.holidays (holiday_date, name, scope, region_code, comunas, is_irrenunciable, note)
SELECT (holiday ->> 'fecha')::date,
       holiday ->> 'nombre',
       split_part(holiday ->> 'ambito', ':', 1)::public.holiday_scope,
       CASE split_part(holiday ->> 'ambito', ':', 1)
         WHEN 'regional' THEN (SELECT code FROM public.regions
                                WHERE roman_numeral = split_part(split_part(holiday ->> 'ambito', ':', 2), ' ', 1))
         WHEN 'comunal' THEN (SELECT code FROM public.regions
                               WHERE name = substring(holiday ->> 'ambito' FROM '\(([^)]+)\)$'))
       END,
       CASE WHEN split_part(holiday ->> 'ambito', ':', 1) = 'comunal'
         THEN regexp_split_to_array(
                btrim(regexp_replace(split_part(holiday ->> 'ambito', ':', 2), '\s*\([^)]*\)$', '')),
                '\s+y\s+')
         ELSE '{}'::text[]
       END,
       (holiday ->> 'irrenunciable')::boolean,
       coalesce(holiday ->> 'nota', '')
  FROM pg_temp.calendar_source, jsonb_array_elements(document -> 'feriados_2025') AS holiday;

DO $check$
BEGIN
  IF (SELECT count(*) FROM public.holidays) <> 20 THEN
    RAISE EXCEPTION 'expected the 20 holidays of 2025, loaded %', (SELECT count(*) FROM public.holidays);
  END IF;
END
$check$;

-- School calendar per region ----------------------------------------------------------------

CREATE TABLE public.school_calendars (
  academic_year smallint NOT NULL CHECK (academic_year BETWEEN 2025 AND 2100),
  region_code smallint NOT NULL REFERENCES public.regions (code),
  school_year_start date NOT NULL,
  students_start date NOT NULL,
  winter_break_start date NOT NULL,
  winter_break_end date NOT NULL,
  classes_end_jec date NOT NULL,
  classes_end_without_jec date NOT NULL,
  confidence text NOT NULL CHECK (confidence IN ('alta', 'media', 'baja')),
  note text NOT NULL DEFAULT '',
  PRIMARY KEY (academic_year, region_code),
  CONSTRAINT school_calendars_dates_in_order CHECK (
    school_year_start <= students_start
    AND students_start < winter_break_start
    AND winter_break_start <= winter_break_end
    AND winter_break_end < classes_end_jec
    AND classes_end_jec <= classes_end_without_jec),
  CONSTRAINT school_calendars_dates_in_year CHECK (
    extract(year FROM school_year_start) = academic_year
    AND extract(year FROM classes_end_without_jec) = academic_year)
);
COMMENT ON TABLE public.school_calendars IS 'Official school calendar per region and year (semestral regime): start, winter break, end of classes. Schools may get changes approved; they add their own school_events.';
COMMENT ON COLUMN public.school_calendars.academic_year IS 'School year, e.g. 2025.';
COMMENT ON COLUMN public.school_calendars.region_code IS 'Region the calendar applies to.';
COMMENT ON COLUMN public.school_calendars.school_year_start IS 'First working day of the school year for teachers (planning).';
COMMENT ON COLUMN public.school_calendars.students_start IS 'First day of classes for students.';
COMMENT ON COLUMN public.school_calendars.winter_break_start IS 'First day of the winter break (vacaciones de invierno).';
COMMENT ON COLUMN public.school_calendars.winter_break_end IS 'Last day of the winter break.';
COMMENT ON COLUMN public.school_calendars.classes_end_jec IS 'Last day of classes in schools with Jornada Escolar Completa.';
COMMENT ON COLUMN public.school_calendars.classes_end_without_jec IS 'Last day of classes in schools without JEC.';
COMMENT ON COLUMN public.school_calendars.confidence IS 'How sure the source is: alta, media, baja.';
COMMENT ON COLUMN public.school_calendars.note IS 'Remarks from the source (conflicting reports and the like).';

INSERT INTO public.school_calendars
  (academic_year, region_code, school_year_start, students_start, winter_break_start,
   winter_break_end, classes_end_jec, classes_end_without_jec, confidence, note)
SELECT (document ->> 'anio_escolar')::smallint,
       (region ->> 'cod_region')::smallint,
       (region ->> 'inicio_anio_escolar')::date,
       (region ->> 'ingreso_estudiantes')::date,
       (region -> 'vacaciones_invierno_semestral' ->> 'desde')::date,
       (region -> 'vacaciones_invierno_semestral' ->> 'hasta')::date,
       (region ->> 'termino_clases_jec')::date,
       (region ->> 'termino_clases_sin_jec')::date,
       region ->> 'confianza',
       coalesce(region ->> 'nota', '')
  FROM pg_temp.calendar_source, jsonb_array_elements(document -> 'regiones') AS region;

DO $check$
BEGIN
  IF (SELECT count(*) FROM public.school_calendars WHERE academic_year = 2025) <> 16 THEN
    RAISE EXCEPTION 'expected a 2025 calendar for each of the 16 regions';
  END IF;
END
$check$;

-- Access: read-only reference data for signed-in users ------------------------------------

ALTER TABLE public.regions ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.holidays ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.school_calendars ENABLE ROW LEVEL SECURITY;
CREATE POLICY regions_read ON public.regions FOR SELECT TO authenticated USING (true);
CREATE POLICY holidays_read ON public.holidays FOR SELECT TO authenticated USING (true);
CREATE POLICY school_calendars_read ON public.school_calendars FOR SELECT TO authenticated USING (true);
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.regions, public.holidays, public.school_calendars
  FROM anon, authenticated;

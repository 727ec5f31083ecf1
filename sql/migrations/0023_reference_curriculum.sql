-- Reference data: the national curriculum (Bases Curriculares), 1° Básico to 4° Medio.
--
-- Source: sql/data/curriculum/oa_bases_curriculares_1b_4m.csv.gz (curriculumnacional.cl,
-- Mineduc; see the README there). Levels are written out here; subjects, which subject is
-- taught at which level, and the learning objectives come from the file.

CREATE TABLE public.levels (
  code text PRIMARY KEY CHECK (code ~ '^([1-8]B|[1-4]M)$'),
  name text NOT NULL UNIQUE,
  cycle text NOT NULL CHECK (cycle IN ('basica', 'media')),
  grade smallint NOT NULL UNIQUE CHECK (grade BETWEEN 1 AND 12)
);
COMMENT ON TABLE public.levels IS 'School levels (niveles) from 1° Básico to 4° Medio.';
COMMENT ON COLUMN public.levels.code IS 'Level code: 1B…8B (Educación Básica), 1M…4M (Educación Media).';
COMMENT ON COLUMN public.levels.name IS 'Display name, e.g. "1° Básico", "4° Medio".';
COMMENT ON COLUMN public.levels.cycle IS 'basica or media.';
COMMENT ON COLUMN public.levels.grade IS 'Year of schooling 1–12, for ordering.';

INSERT INTO public.levels (code, name, cycle, grade) VALUES
  ('1B', '1° Básico', 'basica', 1), ('2B', '2° Básico', 'basica', 2),
  ('3B', '3° Básico', 'basica', 3), ('4B', '4° Básico', 'basica', 4),
  ('5B', '5° Básico', 'basica', 5), ('6B', '6° Básico', 'basica', 6),
  ('7B', '7° Básico', 'basica', 7), ('8B', '8° Básico', 'basica', 8),
  ('1M', '1° Medio', 'media', 9), ('2M', '2° Medio', 'media', 10),
  ('3M', '3° Medio', 'media', 11), ('4M', '4° Medio', 'media', 12);

CREATE TYPE public.curriculum_plan AS ENUM ('comun', 'FG', 'HC', 'TP');
COMMENT ON TYPE public.curriculum_plan IS 'Part of the curriculum: comun (1°B–2°M), FG (3°–4°M Formación General), HC (Diferenciada Humanístico-Científica), TP (Técnico-Profesional specialties).';

CREATE TABLE public.subjects (
  code text PRIMARY KEY CHECK (code ~ '^[a-z0-9_]+$'),
  name text NOT NULL CHECK (btrim(name) <> '')
);
COMMENT ON TABLE public.subjects IS 'Subjects (asignaturas), including 3°–4° Medio electives and TP specialties.';
COMMENT ON COLUMN public.subjects.code IS 'Stable identifier (slug), e.g. "matematica", "lenguaje_y_comunicacion".';
COMMENT ON COLUMN public.subjects.name IS 'Name as published, e.g. "Matemática".';

CREATE TABLE public.level_subjects (
  level_code text NOT NULL REFERENCES public.levels (code),
  subject_code text NOT NULL REFERENCES public.subjects (code),
  plan public.curriculum_plan NOT NULL,
  PRIMARY KEY (level_code, subject_code)
);
COMMENT ON TABLE public.level_subjects IS 'Which subject is taught at which level, and in which part of the curriculum. Courses must pick a pair listed here.';
COMMENT ON COLUMN public.level_subjects.level_code IS 'Level.';
COMMENT ON COLUMN public.level_subjects.subject_code IS 'Subject taught at that level.';
COMMENT ON COLUMN public.level_subjects.plan IS 'Part of the curriculum the subject belongs to at that level.';

CREATE TYPE public.objective_kind AS ENUM ('OA', 'OAH', 'OAA', 'OAT');
COMMENT ON TYPE public.objective_kind IS 'OA: learning objective; OAH: skill objective; OAA: attitude objective; OAT: cross-curricular (transversal) objective.';

CREATE TABLE public.learning_objectives (
  id text PRIMARY KEY CHECK (id ~ '^[^|]+\|[^|]+\|[^|]+$'),
  level_code text NOT NULL,
  subject_code text NOT NULL,
  plan public.curriculum_plan NOT NULL,
  eje text CHECK (eje IS NULL OR btrim(eje) <> ''),
  code text NOT NULL CHECK (btrim(code) <> ''),
  kind public.objective_kind NOT NULL,
  statement text NOT NULL CHECK (btrim(statement) <> ''),
  items text[] NOT NULL DEFAULT '{}',
  full_text text NOT NULL,
  position integer NOT NULL UNIQUE,
  UNIQUE (level_code, subject_code, code)
);
COMMENT ON TABLE public.learning_objectives IS 'Learning objectives of the Bases Curriculares (OA, OAA; OAH/OAT when available), curriculumnacional.cl, Mineduc.';
COMMENT ON COLUMN public.learning_objectives.id IS 'Stable identifier "level|subject|CODE", e.g. "1B|matematica|MA01OA01".';
COMMENT ON COLUMN public.learning_objectives.level_code IS 'Level of the objective.';
COMMENT ON COLUMN public.learning_objectives.subject_code IS 'Subject of the objective.';
COMMENT ON COLUMN public.learning_objectives.plan IS 'Part of the curriculum (comun, FG, HC, TP).';
COMMENT ON COLUMN public.learning_objectives.eje IS 'Curricular axis (eje), e.g. "Números y operaciones"; null in 3°–4° Medio, which have none.';
COMMENT ON COLUMN public.learning_objectives.code IS 'Official code, e.g. "MA01 OA 01", "FG-MATE-3M-OAC-01"; TP codes ("OA 1") are unique within a specialty.';
COMMENT ON COLUMN public.learning_objectives.kind IS 'OA, OAH, OAA or OAT.';
COMMENT ON COLUMN public.learning_objectives.statement IS 'The objective''s statement (without its sub-items).';
COMMENT ON COLUMN public.learning_objectives.items IS 'Sub-items of the statement, in order (may be empty).';
COMMENT ON COLUMN public.learning_objectives.full_text IS 'Statement followed by its sub-items, one per line starting with "- ".';
COMMENT ON COLUMN public.learning_objectives.position IS 'Order of publication (level, subject, code).';

CREATE TEMP TABLE curriculum_source (
  position bigint GENERATED ALWAYS AS IDENTITY,
  id text, nivel text, nivel_nombre text, plan text, asignatura text, eje text, codigo text,
  tipo text, texto text
) ON COMMIT DROP;
--! copy pg_temp.curriculum_source (id, nivel, nivel_nombre, plan, asignatura, eje, codigo, tipo, texto) FROM 'curriculum/oa_bases_curriculares_1b_4m.csv.gz' WITH (FORMAT csv, HEADER true, ENCODING 'UTF8')

DO $check$
DECLARE
  mismatch text;
BEGIN
  SELECT string_agg(DISTINCT s.nivel || ' ' || s.nivel_nombre, ', ') INTO mismatch
    FROM pg_temp.curriculum_source s
    LEFT JOIN public.levels l ON l.code = s.nivel AND l.name = s.nivel_nombre
   WHERE l.code IS NULL;
  IF mismatch IS NOT NULL THEN
    RAISE EXCEPTION 'curriculum levels do not match public.levels: %', mismatch;
  END IF;
END
$check$;

-- One subject per slug (the middle part of the id). A slug can be published under two
-- spellings ("Artes Visuales" in 1°B–2°M, "Artes visuales" in 3°–4°M): the common
-- curriculum's spelling wins, then the first one published.
INSERT INTO public.subjects (code, name)
SELECT DISTINCT ON (split_part(id, '|', 2)) split_part(id, '|', 2), asignatura
  FROM pg_temp.curriculum_source
 ORDER BY split_part(id, '|', 2), plan <> 'comun', position;

-- Religión has no objectives in the Bases Curriculares (it follows Decreto 924) but is a
-- subject of every level; courses of it can be planned like any other.
INSERT INTO public.subjects (code, name) VALUES ('religion', 'Religión');

INSERT INTO public.level_subjects (level_code, subject_code, plan)
SELECT DISTINCT nivel, split_part(id, '|', 2), plan::public.curriculum_plan
  FROM pg_temp.curriculum_source;
INSERT INTO public.level_subjects (level_code, subject_code, plan)
SELECT code, 'religion', CASE WHEN grade <= 10 THEN 'comun' ELSE 'FG' END::public.curriculum_plan
  FROM public.levels;

-- `texto` is the statement followed by "\n- item" lines.
INSERT INTO public.learning_objectives
  (id, level_code, subject_code, plan, eje, code, kind, statement, items, full_text, position)
SELECT s.id, s.nivel, split_part(s.id, '|', 2), s.plan::public.curriculum_plan,
       nullif(btrim(s.eje), ''), s.codigo, s.tipo::public.objective_kind,
       parts[1], coalesce(parts[2:], '{}'), s.texto, s.position
  FROM pg_temp.curriculum_source s,
       LATERAL (SELECT string_to_array(s.texto, E'\n- ') AS parts) split;

-- Checked once over the loaded rows (one join, not 3 429 single-row checks). Searching the
-- text (ILIKE on full_text) scans 3 429 rows in milliseconds: no text index is needed.
ALTER TABLE public.learning_objectives
  ADD CONSTRAINT learning_objectives_level_subject_fkey FOREIGN KEY (level_code, subject_code)
    REFERENCES public.level_subjects (level_code, subject_code);
CREATE INDEX learning_objectives_level_subject_idx ON public.learning_objectives (level_code, subject_code, position);

DO $check$
BEGIN
  IF (SELECT count(*) FROM public.learning_objectives) <> 3429
     OR (SELECT count(*) FROM public.learning_objectives WHERE kind = 'OA') <> 2799 THEN
    RAISE EXCEPTION 'expected 3 429 objectives (2 799 OA), loaded %',
      (SELECT count(*) FROM public.learning_objectives);
  END IF;
END
$check$;

ALTER TABLE public.levels ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.subjects ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.level_subjects ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.learning_objectives ENABLE ROW LEVEL SECURITY;
CREATE POLICY levels_read ON public.levels FOR SELECT TO authenticated USING (true);
CREATE POLICY subjects_read ON public.subjects FOR SELECT TO authenticated USING (true);
CREATE POLICY level_subjects_read ON public.level_subjects FOR SELECT TO authenticated USING (true);
CREATE POLICY learning_objectives_read ON public.learning_objectives FOR SELECT TO authenticated USING (true);
REVOKE INSERT, UPDATE, DELETE, TRUNCATE
  ON public.levels, public.subjects, public.level_subjects, public.learning_objectives
  FROM anon, authenticated;

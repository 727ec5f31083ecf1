-- Reference data: every school in Chile, from Mineduc's official directory 2025.
--
-- Source: sql/data/schools/directorio_establecimientos_2025.csv.gz (Directorio Oficial de
-- Establecimientos, Centro de Estudios MINEDUC, CC BY 3.0 CL; see the README there). The
-- spec queries schools by "RBD" and shows "NOM_RBD", so those two keep Mineduc's column names.

CREATE TABLE public.schools (
  "RBD" integer PRIMARY KEY CHECK ("RBD" > 0),
  dgv_rbd text NOT NULL CHECK (dgv_rbd ~ '^[0-9K]$'),
  "NOM_RBD" text NOT NULL CHECK (btrim("NOM_RBD") <> ''),
  region_code smallint NOT NULL,
  provincia_code smallint NOT NULL CHECK (provincia_code > 0),
  provincia text NOT NULL,
  comuna_code integer NOT NULL CHECK (comuna_code > 0),
  comuna text NOT NULL CHECK (btrim(comuna) <> ''),
  dependencia text NOT NULL CHECK (dependencia IN (
    'Municipal', 'Particular Subvencionado', 'Particular Pagado',
    'Servicio Local de Educación (SLEP)', 'Corporación de Administración Delegada')),
  estado text NOT NULL CHECK (estado IN ('Vigente', 'Receso', 'Autorizado sin matrícula')),
  latitude double precision CHECK (latitude BETWEEN -90 AND 0),
  longitude double precision CHECK (longitude BETWEEN -180 AND 0),
  CONSTRAINT schools_coordinates_together CHECK ((latitude IS NULL) = (longitude IS NULL))
);
COMMENT ON TABLE public.schools IS 'Chilean schools (Directorio Oficial de Establecimientos 2025, Centro de Estudios MINEDUC, CC BY 3.0 CL). One row per RBD.';
COMMENT ON COLUMN public.schools."RBD" IS 'Rol Base de Datos: Mineduc''s school number (without check digit).';
COMMENT ON COLUMN public.schools.dgv_rbd IS 'Check digit of the RBD (DGV_RBD), as published.';
COMMENT ON COLUMN public.schools."NOM_RBD" IS 'School name as registered with Mineduc.';
COMMENT ON COLUMN public.schools.region_code IS 'Region of the school (COD_REG_RBD).';
COMMENT ON COLUMN public.schools.provincia_code IS 'Province code (COD_PRO_RBD).';
COMMENT ON COLUMN public.schools.provincia IS 'Province name (NOM_PRO_RBD).';
COMMENT ON COLUMN public.schools.comuna_code IS 'Comuna code, CUT (COD_COM_RBD), e.g. 13101 = Santiago.';
COMMENT ON COLUMN public.schools.comuna IS 'Comuna name (NOM_COM_RBD).';
COMMENT ON COLUMN public.schools.dependencia IS 'Administrative dependency (NOM_DEPE): Municipal, Particular Subvencionado, Particular Pagado, SLEP, Corporación de Administración Delegada.';
COMMENT ON COLUMN public.schools.estado IS 'Operating status (ESTADO_ESTAB): Vigente, Receso, Autorizado sin matrícula.';
COMMENT ON COLUMN public.schools.latitude IS 'Latitude (LATITUD); null when unknown.';
COMMENT ON COLUMN public.schools.longitude IS 'Longitude (LONGITUD); null when unknown.';

-- The official file, as published (every column text), then typed into public.schools.
CREATE TEMP TABLE school_directory (
  "RBD" text, "DGV_RBD" text, "NOM_RBD" text, "COD_REG_RBD" text, "NOM_REG_RBD" text,
  "COD_PRO_RBD" text, "NOM_PRO_RBD" text, "COD_COM_RBD" text, "NOM_COM_RBD" text,
  "NOM_DEPE" text, "ESTADO_ESTAB" text, "LATITUD" text, "LONGITUD" text
) ON COMMIT DROP;
--! copy pg_temp.school_directory FROM 'schools/directorio_establecimientos_2025.csv.gz' WITH (FORMAT csv, HEADER true, ENCODING 'UTF8')

-- Two rows carry only one coordinate: a point needs both, so such rows get none.
INSERT INTO public.schools
  ("RBD", dgv_rbd, "NOM_RBD", region_code, provincia_code, provincia, comuna_code, comuna,
   dependencia, estado, latitude, longitude)
SELECT "RBD"::integer, "DGV_RBD", btrim("NOM_RBD"), "COD_REG_RBD"::smallint,
       "COD_PRO_RBD"::smallint, "NOM_PRO_RBD", "COD_COM_RBD"::integer, "NOM_COM_RBD",
       "NOM_DEPE", "ESTADO_ESTAB",
       CASE WHEN "LATITUD" <> '' AND "LONGITUD" <> '' THEN "LATITUD"::double precision END,
       CASE WHEN "LATITUD" <> '' AND "LONGITUD" <> '' THEN "LONGITUD"::double precision END
  FROM pg_temp.school_directory;

-- Constraints and indexes that check or cover other rows are added once over the loaded rows:
-- one join instead of 12 898 single-row checks. Searching a school by name (ILIKE) scans
-- the table in milliseconds at this size, so it needs no trigram index.
ALTER TABLE public.schools
  ADD CONSTRAINT schools_region_code_fkey FOREIGN KEY (region_code) REFERENCES public.regions (code);
CREATE INDEX schools_comuna_idx ON public.schools (comuna_code);

DO $check$
DECLARE
  loaded bigint := (SELECT count(*) FROM public.schools);
BEGIN
  IF loaded <> 12898 THEN
    RAISE EXCEPTION 'expected the 12 898 schools of the 2025 directory, loaded %', loaded;
  END IF;
END
$check$;

ALTER TABLE public.schools ENABLE ROW LEVEL SECURITY;
CREATE POLICY schools_read ON public.schools FOR SELECT TO authenticated USING (true);
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.schools FROM anon, authenticated;

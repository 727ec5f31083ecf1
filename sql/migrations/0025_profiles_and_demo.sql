-- Teacher profiles (with the phone number encrypted at rest) and the Demo 2025 programme
-- (Estrellas Cielo: AI credits, and a cap on courses).

-- Profiles ---------------------------------------------------------------------------------

CREATE TABLE public.profiles (
  user_id uuid PRIMARY KEY DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  first_name text CHECK (char_length(first_name) BETWEEN 1 AND 80),
  last_name text CHECK (char_length(last_name) BETWEEN 1 AND 80),
  how_found_us text CHECK (char_length(how_found_us) BETWEEN 1 AND 200),
  encrypted_phone text CHECK (encrypted_phone ~ '^[A-Za-z0-9+/]+={0,2}$'),
  school_rbd integer REFERENCES public.schools ("RBD") ON DELETE SET NULL,
  is_complete boolean GENERATED ALWAYS AS (
    first_name IS NOT NULL AND last_name IS NOT NULL AND how_found_us IS NOT NULL) STORED,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE public.profiles IS 'One profile per user (teacher). Created by the app during onboarding; complete when first_name, last_name and how_found_us are set.';
COMMENT ON COLUMN public.profiles.user_id IS 'The user (auth.users.id); defaults to the caller.';
COMMENT ON COLUMN public.profiles.first_name IS 'First name (trimmed; blank becomes null).';
COMMENT ON COLUMN public.profiles.last_name IS 'Last name (trimmed; blank becomes null).';
COMMENT ON COLUMN public.profiles.how_found_us IS 'How the teacher heard about Cielo (onboarding answer).';
COMMENT ON COLUMN public.profiles.encrypted_phone IS 'Phone number, PGP-encrypted (pgcrypto, AES-256) and base64-encoded. Written only by rpc(''set_phone''), read back with rpc(''decrypt_phone'').';
COMMENT ON COLUMN public.profiles.school_rbd IS 'Main school of the teacher (schools.RBD); the sidebar shows its name.';
COMMENT ON COLUMN public.profiles.is_complete IS 'True when first_name, last_name and how_found_us are all set (onboarding step 1 done).';
COMMENT ON COLUMN public.profiles.created_at IS 'When the profile was created.';
COMMENT ON COLUMN public.profiles.updated_at IS 'Last change (set by the database).';
CREATE INDEX profiles_school_idx ON public.profiles (school_rbd) WHERE school_rbd IS NOT NULL;

-- Forms send "" for an empty field and may keep stray spaces: store trimmed text or null.
CREATE FUNCTION private.normalize_profile() RETURNS trigger
LANGUAGE plpgsql
SET search_path = ''
AS $$
BEGIN
  NEW.first_name := nullif(pg_catalog.btrim(NEW.first_name), '');
  NEW.last_name := nullif(pg_catalog.btrim(NEW.last_name), '');
  NEW.how_found_us := nullif(pg_catalog.btrim(NEW.how_found_us), '');
  RETURN NEW;
END
$$;
CREATE TRIGGER profiles_normalize BEFORE INSERT OR UPDATE ON public.profiles
  FOR EACH ROW EXECUTE FUNCTION private.normalize_profile();
CREATE TRIGGER profiles_touch BEFORE UPDATE ON public.profiles
  FOR EACH ROW EXECUTE FUNCTION private.touch_updated_at();

ALTER TABLE public.profiles ENABLE ROW LEVEL SECURITY;
CREATE POLICY profiles_read ON public.profiles FOR SELECT TO authenticated
  USING (user_id = (SELECT auth.uid())
         OR (SELECT public.is_admin())
         OR (school_rbd IS NOT NULL AND public.is_directivo_of(school_rbd)));
CREATE POLICY profiles_insert_own ON public.profiles FOR INSERT TO authenticated
  WITH CHECK (user_id = (SELECT auth.uid()));
CREATE POLICY profiles_update_own ON public.profiles FOR UPDATE TO authenticated
  USING (user_id = (SELECT auth.uid())) WITH CHECK (user_id = (SELECT auth.uid()));
-- The phone is written only through set_phone(), which encrypts it: clients may write every
-- other column (user_id included, since upserts repeat the key in DO UPDATE SET).
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.profiles FROM anon, authenticated;
GRANT INSERT (user_id, first_name, last_name, how_found_us, school_rbd) ON public.profiles TO authenticated;
GRANT UPDATE (user_id, first_name, last_name, how_found_us, school_rbd) ON public.profiles TO authenticated;

-- Phone encryption ---------------------------------------------------------------------------
--
-- The key is 32 random bytes made by this migration, one per database, kept in a table that
-- no API role can read; only the two SECURITY DEFINER functions below use it. It therefore
-- travels with backups of the database (like Supabase Vault's secrets); whoever restores a
-- backup can read phones, whoever reads the API cannot. Rotating: add a row with a new name,
-- re-encrypt with it in one UPDATE, then point the functions at it.

CREATE TABLE private.encryption_keys (
  name text PRIMARY KEY,
  key bytea NOT NULL CHECK (octet_length(key) >= 32),
  created_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE private.encryption_keys IS 'Symmetric keys for column encryption (pgcrypto). No grants: reachable only by SECURITY DEFINER functions.';
COMMENT ON COLUMN private.encryption_keys.name IS 'What the key encrypts, e.g. profiles.phone.';
COMMENT ON COLUMN private.encryption_keys.key IS 'Random key bytes.';
COMMENT ON COLUMN private.encryption_keys.created_at IS 'When the key was made.';
REVOKE ALL ON private.encryption_keys FROM PUBLIC, anon, authenticated, service_role;
INSERT INTO private.encryption_keys (name, key) VALUES ('profiles.phone', extensions.gen_random_bytes(32));

CREATE FUNCTION private.phone_key() RETURNS text
LANGUAGE sql STABLE
SET search_path = ''
AS $$ SELECT pg_catalog.encode(key, 'hex') FROM private.encryption_keys WHERE name = 'profiles.phone' $$;
COMMENT ON FUNCTION private.phone_key() IS 'The phone encryption key as pgp_sym_encrypt''s password. Not executable by API roles.';

-- Chilean numbers are +56 followed by 9 digits (mobiles start with 9). Accepts what people
-- type: spaces, dashes, dots, parentheses, with or without +56.
CREATE FUNCTION public.set_phone(phone text) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = ''
AS $$
DECLARE
  caller uuid := auth.uid();
  digits text := pg_catalog.regexp_replace(coalesce(phone, ''), '[\s().-]', '', 'g');
  normalized text;
BEGIN
  IF caller IS NULL THEN
    RAISE EXCEPTION 'Debes iniciar sesión para guardar tu teléfono' USING ERRCODE = '42501';
  END IF;
  IF digits = '' THEN
    normalized := NULL;
  ELSIF digits ~ '^(\+?56)?[2-9][0-9]{8}$' THEN
    normalized := '+56' || pg_catalog.right(digits, 9);
  ELSE
    RAISE EXCEPTION 'El teléfono no es un número chileno válido'
      USING ERRCODE = '22023', HINT = 'Usa el formato +56 9 1234 5678.';
  END IF;
  INSERT INTO public.profiles (user_id, encrypted_phone)
  VALUES (caller, CASE WHEN normalized IS NOT NULL THEN pg_catalog.translate(pg_catalog.encode(
            extensions.pgp_sym_encrypt(normalized, private.phone_key(), 'cipher-algo=aes256'),
            'base64'), E'\n', '') END)
  ON CONFLICT (user_id) DO UPDATE SET encrypted_phone = EXCLUDED.encrypted_phone;
END
$$;
COMMENT ON FUNCTION public.set_phone(text) IS 'Stores the caller''s phone number encrypted in profiles.encrypted_phone (null or "" clears it). rpc(''set_phone'', {phone}).';
REVOKE EXECUTE ON FUNCTION public.set_phone(text) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.set_phone(text) TO authenticated;

-- Decrypts only a ciphertext stored in a profile the caller may see for this purpose (their
-- own, or any for admins): the function is not a decryption oracle for copied values.
CREATE FUNCTION public.decrypt_phone(encrypted_phone text) RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = ''
AS $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM public.profiles p
     WHERE p.encrypted_phone = decrypt_phone.encrypted_phone
       AND (p.user_id = auth.uid() OR public.is_admin()))
  THEN
    RAISE EXCEPTION 'No puedes descifrar este teléfono' USING ERRCODE = '42501';
  END IF;
  RETURN extensions.pgp_sym_decrypt(
    pg_catalog.decode(decrypt_phone.encrypted_phone, 'base64'), private.phone_key());
END
$$;
COMMENT ON FUNCTION public.decrypt_phone(text) IS 'The phone number in a profile''s encrypted_phone; only for the profile''s owner and admins. rpc(''decrypt_phone'', {encrypted_phone}).';
REVOKE EXECUTE ON FUNCTION public.decrypt_phone(text) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.decrypt_phone(text) TO authenticated;

-- Demo 2025 ------------------------------------------------------------------------------

CREATE TABLE public.demo_users_2025 (
  user_id uuid PRIMARY KEY REFERENCES auth.users (id) ON DELETE CASCADE,
  total_stars integer NOT NULL DEFAULT 500 CHECK (total_stars >= 0),
  used_stars integer NOT NULL DEFAULT 0 CHECK (used_stars >= 0),
  demo_end_date date NOT NULL,
  max_courses smallint NOT NULL DEFAULT 3 CHECK (max_courses BETWEEN 0 AND 50),
  is_active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT demo_users_2025_used_within_total CHECK (used_stars <= total_stars)
);
COMMENT ON TABLE public.demo_users_2025 IS 'Users in the Demo 2025 programme: their Estrellas Cielo (AI credits; 1 star ≈ 515 tokens) and course cap. Admins manage rows; users read their own.';
COMMENT ON COLUMN public.demo_users_2025.user_id IS 'The demo user.';
COMMENT ON COLUMN public.demo_users_2025.total_stars IS 'Stars granted for the demo.';
COMMENT ON COLUMN public.demo_users_2025.used_stars IS 'Stars spent; never above total_stars. Raised by record_ai_usage().';
COMMENT ON COLUMN public.demo_users_2025.demo_end_date IS 'Last day of the demo; expired when today (Chile) is after it.';
COMMENT ON COLUMN public.demo_users_2025.max_courses IS 'Most courses the demo user may have; enforced when a course is created.';
COMMENT ON COLUMN public.demo_users_2025.is_active IS 'False when an admin suspends the demo (no AI use).';
COMMENT ON COLUMN public.demo_users_2025.created_at IS 'When the user joined the demo.';
COMMENT ON COLUMN public.demo_users_2025.updated_at IS 'Last change (set by the database).';
CREATE TRIGGER demo_users_2025_touch BEFORE UPDATE ON public.demo_users_2025
  FOR EACH ROW EXECUTE FUNCTION private.touch_updated_at();

ALTER TABLE public.demo_users_2025 ENABLE ROW LEVEL SECURITY;
CREATE POLICY demo_users_2025_read ON public.demo_users_2025 FOR SELECT TO authenticated
  USING (user_id = (SELECT auth.uid()) OR (SELECT public.is_admin()));
CREATE POLICY demo_users_2025_admin_insert ON public.demo_users_2025 FOR INSERT TO authenticated
  WITH CHECK ((SELECT public.is_admin()));
CREATE POLICY demo_users_2025_admin_update ON public.demo_users_2025 FOR UPDATE TO authenticated
  USING ((SELECT public.is_admin())) WITH CHECK ((SELECT public.is_admin()));
CREATE POLICY demo_users_2025_admin_delete ON public.demo_users_2025 FOR DELETE TO authenticated
  USING ((SELECT public.is_admin()));
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.demo_users_2025 FROM anon;

-- The stars widget's numbers, derived in one place. One row for any signed-in caller (with
-- is_demo_user false when they are not in the demo), none for anon. The view reads only the
-- caller's own row (its WHERE), so it works without RLS on PostgreSQL 14 as well.
CREATE VIEW public.demo_stars AS
SELECT me.user_id,
       d.user_id IS NOT NULL AS is_demo_user,
       coalesce(private.chile_today() > d.demo_end_date, false) AS is_expired,
       coalesce(d.total_stars, 0) AS total_stars,
       coalesce(d.used_stars, 0) AS used_stars,
       coalesce(d.total_stars - d.used_stars, 0) AS remaining_stars,
       CASE WHEN coalesce(d.total_stars, 0) = 0 THEN 0::numeric
            ELSE round(d.used_stars * 100.0 / d.total_stars, 1) END AS usage_percentage,
       d.demo_end_date,
       d.max_courses,
       coalesce(d.is_active, false) AS is_active
  FROM (SELECT auth.uid() AS user_id) AS me
  LEFT JOIN public.demo_users_2025 d ON d.user_id = me.user_id
 WHERE me.user_id IS NOT NULL;
COMMENT ON VIEW public.demo_stars IS 'The caller''s Estrellas Cielo status (the spec''s derived demo-stars view): one row per signed-in caller.';
COMMENT ON COLUMN public.demo_stars.user_id IS 'The caller.';
COMMENT ON COLUMN public.demo_stars.is_demo_user IS 'True when the caller is in the Demo 2025 programme (isDemoUser).';
COMMENT ON COLUMN public.demo_stars.is_expired IS 'True when today (Chile) is after demo_end_date (isExpired).';
COMMENT ON COLUMN public.demo_stars.total_stars IS 'Stars granted (totalStars).';
COMMENT ON COLUMN public.demo_stars.used_stars IS 'Stars spent (usedStars).';
COMMENT ON COLUMN public.demo_stars.remaining_stars IS 'total_stars - used_stars (remainingStars).';
COMMENT ON COLUMN public.demo_stars.usage_percentage IS 'used / total × 100, one decimal; 0 without stars (usagePercentage). Warnings at 80 and 95.';
COMMENT ON COLUMN public.demo_stars.demo_end_date IS 'Last day of the demo (demoEndDate).';
COMMENT ON COLUMN public.demo_stars.max_courses IS 'Course cap of the demo (maxCourses).';
COMMENT ON COLUMN public.demo_stars.is_active IS 'Demo not suspended (isActive).';
REVOKE ALL ON public.demo_stars FROM anon;
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.demo_stars FROM authenticated;
GRANT SELECT ON public.demo_stars TO authenticated, service_role;

-- Stars and admin alerts change while the app is open (stars widget, alert badge).
ALTER PUBLICATION supabase_realtime ADD TABLE public.demo_users_2025;

-- Functions in private are executable only where granted above.
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA private FROM PUBLIC;

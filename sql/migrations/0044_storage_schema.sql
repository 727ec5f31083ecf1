-- storage/v1's metadata, in the shape Supabase Storage leaves after its own migrations, so that
-- policies written for Supabase (`storage.foldername(name)`, `bucket_id = 'avatars'`,
-- `owner_id = auth.uid()::text`) and SQL that reads these tables keep working. The files
-- themselves live in the storage backend; a row here is what makes one visible. Every request
-- runs as its caller's role, so RLS on storage.objects and storage.buckets decides; no policy
-- is created here (as in Supabase: without one only service_role reaches anything).

CREATE TYPE storage.buckettype AS ENUM ('STANDARD', 'ANALYTICS', 'VECTOR');

CREATE TABLE storage.buckets (
  id text PRIMARY KEY,
  name text NOT NULL,
  owner uuid,
  created_at timestamptz DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  public boolean DEFAULT false,
  avif_autodetection boolean DEFAULT false,
  file_size_limit bigint,
  allowed_mime_types text[],
  owner_id text,
  type storage.buckettype NOT NULL DEFAULT 'STANDARD',
  versioning_status text NOT NULL DEFAULT 'DISABLED'
    CONSTRAINT buckets_versioning_status_check CHECK (versioning_status IN ('DISABLED', 'ENABLED', 'SUSPENDED'))
    -- Object versioning is not offered (nor by Supabase yet).
    CONSTRAINT buckets_versioning_dark_check CHECK (versioning_status = 'DISABLED'),
  CONSTRAINT buckets_versioning_standard_only_check CHECK (type = 'STANDARD' OR versioning_status = 'DISABLED')
);
CREATE UNIQUE INDEX bname ON storage.buckets USING btree (name);
COMMENT ON TABLE storage.buckets IS 'storage/v1 buckets (Supabase''s storage.buckets): public buckets are readable through /object/public without a token; file_size_limit (bytes) and allowed_mime_types (wildcards like image/*) bound uploads.';
COMMENT ON COLUMN storage.buckets.owner IS 'Field is deprecated, use owner_id instead';

CREATE TABLE storage.objects (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  bucket_id text CONSTRAINT "objects_bucketId_fkey" REFERENCES storage.buckets (id),
  name text,
  owner uuid,
  created_at timestamptz DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  last_accessed_at timestamptz DEFAULT now(),
  metadata jsonb,
  path_tokens text[] GENERATED ALWAYS AS (string_to_array(name, '/')) STORED,
  version text,
  owner_id text,
  user_metadata jsonb,
  archived_at timestamptz,
  is_delete_marker boolean NOT NULL DEFAULT false,
  is_versioned boolean NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX bucketid_objname ON storage.objects USING btree (bucket_id, name);
CREATE INDEX name_prefix_search ON storage.objects USING btree (name text_pattern_ops);
CREATE INDEX idx_objects_bucket_id_name ON storage.objects (bucket_id, (name COLLATE "C"));
CREATE INDEX idx_objects_bucket_id_name_lower ON storage.objects (bucket_id, (lower(name) COLLATE "C"));
COMMENT ON TABLE storage.objects IS 'storage/v1 objects (Supabase''s storage.objects): one row per stored file, its key in name; metadata holds size, mimetype, eTag, cacheControl, lastModified, contentLength, httpStatusCode; user_metadata what the uploader sent.';
COMMENT ON COLUMN storage.objects.owner IS 'Field is deprecated, use owner_id instead';

-- S3 multipart uploads: not offered yet, but their references to buckets are part of what a
-- bucket's deletion must respect, and apps' SQL may name them.
CREATE TABLE storage.s3_multipart_uploads (
  id text PRIMARY KEY,
  in_progress_size bigint NOT NULL DEFAULT 0,
  upload_signature text NOT NULL,
  bucket_id text NOT NULL REFERENCES storage.buckets (id),
  key text COLLATE "C" NOT NULL,
  version text NOT NULL,
  owner_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  user_metadata jsonb,
  metadata jsonb
);
CREATE INDEX idx_multipart_uploads_list ON storage.s3_multipart_uploads (bucket_id, (key COLLATE "C"), created_at);
CREATE TABLE storage.s3_multipart_uploads_parts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  upload_id text NOT NULL REFERENCES storage.s3_multipart_uploads (id) ON DELETE CASCADE,
  size bigint NOT NULL DEFAULT 0,
  part_number int NOT NULL,
  bucket_id text NOT NULL REFERENCES storage.buckets (id),
  key text COLLATE "C" NOT NULL,
  etag text NOT NULL,
  owner_id text,
  version text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE storage.buckets ENABLE ROW LEVEL SECURITY;
ALTER TABLE storage.objects ENABLE ROW LEVEL SECURITY;
ALTER TABLE storage.s3_multipart_uploads ENABLE ROW LEVEL SECURITY;
ALTER TABLE storage.s3_multipart_uploads_parts ENABLE ROW LEVEL SECURITY;

GRANT USAGE ON SCHEMA storage TO anon, authenticated, service_role;
GRANT ALL ON storage.buckets, storage.objects TO anon, authenticated, service_role;
GRANT SELECT ON storage.s3_multipart_uploads, storage.s3_multipart_uploads_parts TO anon, authenticated;
GRANT ALL ON storage.s3_multipart_uploads, storage.s3_multipart_uploads_parts TO service_role;

-- Triggers, as Supabase's: names at most 100 characters, updated_at kept, and no row deleted
-- outside the Storage API (which sets storage.allow_delete_query for its own transaction), so
-- a file is never left without its row or a row without its file by a stray DELETE.
CREATE FUNCTION storage.enforce_bucket_name_length() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  IF length(NEW.name) > 100 THEN
    RAISE EXCEPTION 'bucket name "%" is too long (% characters). Max is 100.', NEW.name, length(NEW.name);
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER enforce_bucket_name_length_trigger BEFORE INSERT OR UPDATE OF name ON storage.buckets
FOR EACH ROW EXECUTE FUNCTION storage.enforce_bucket_name_length();

CREATE FUNCTION storage.update_updated_at_column() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  NEW.updated_at = now();
  RETURN NEW;
END
$$;
CREATE TRIGGER update_objects_updated_at BEFORE UPDATE ON storage.objects
FOR EACH ROW EXECUTE FUNCTION storage.update_updated_at_column();

CREATE FUNCTION storage.protect_delete() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  IF coalesce(current_setting('storage.allow_delete_query', true), '') <> 'true' THEN
    RAISE EXCEPTION 'Direct deletion from storage tables is not allowed. Use the Storage API instead.'
      USING ERRCODE = '42501', HINT = 'This prevents accidental data loss from orphaned objects.';
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER protect_buckets_delete BEFORE DELETE ON storage.buckets
FOR EACH STATEMENT EXECUTE FUNCTION storage.protect_delete();
CREATE TRIGGER protect_objects_delete BEFORE DELETE ON storage.objects
FOR EACH STATEMENT EXECUTE FUNCTION storage.protect_delete();

-- Helpers for policies, with Supabase's results: foldername('a/b/c.png') = {a,b},
-- filename = 'c.png', extension = 'png' (a name without a dot is its own extension).
CREATE FUNCTION storage.foldername(name text) RETURNS text[]
LANGUAGE sql IMMUTABLE
AS $$ SELECT (string_to_array(name, '/'))[1:cardinality(string_to_array(name, '/')) - 1] $$;

CREATE FUNCTION storage.filename(name text) RETURNS text
LANGUAGE sql IMMUTABLE
AS $$ SELECT (string_to_array(name, '/'))[cardinality(string_to_array(name, '/'))] $$;

CREATE FUNCTION storage.extension(name text) RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
  SELECT (string_to_array(storage.filename(name), '.'))[cardinality(string_to_array(storage.filename(name), '.'))]
$$;

CREATE FUNCTION storage.get_size_by_bucket() RETURNS TABLE (size bigint, bucket_id text)
LANGUAGE sql STABLE
AS $$ SELECT sum((metadata ->> 'size')::bigint)::bigint, bucket_id FROM storage.objects GROUP BY bucket_id $$;

-- The operation a request performs (storage.object.upload, …), for policies that allow some.
CREATE FUNCTION storage.operation() RETURNS text
LANGUAGE sql STABLE
AS $$ SELECT current_setting('storage.operation', true) $$;

CREATE FUNCTION storage.allow_only_operation(expected_operation text) RETURNS boolean
LANGUAGE sql STABLE
AS $$
  SELECT coalesce(nullif(expected_operation, ''), '') <> ''
     AND regexp_replace(coalesce(storage.operation(), ''), '^storage\.', '')
       = regexp_replace(expected_operation, '^storage\.', '')
$$;

CREATE FUNCTION storage.allow_any_operation(expected_operations text[]) RETURNS boolean
LANGUAGE sql STABLE
AS $$
  SELECT coalesce(bool_or(storage.allow_only_operation(expected)), false)
  FROM unnest(expected_operations) AS expected
$$;

GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA storage TO anon, authenticated, service_role;

-- storage.search: list v1 (`POST /storage/v1/object/list/{bucket}`), with Supabase Storage's
-- results, as the caller (SECURITY INVOKER: RLS decides which objects, and so which folders,
-- exist for them). Keys are matched case-insensitively on prefix || search; a key with a
-- `/` after that is shown as its folder (one row, named relative to the prefix, id and dates
-- null), other keys as files named relative to the prefix. By name (the default), folders and
-- files come interleaved in lower-cased byte order; by a date, folders first (by name), then
-- files by the date. `levels` is accepted and ignored, as Supabase does now.

CREATE FUNCTION storage.search(
  prefix text,
  bucketname text,
  limits int DEFAULT 100,
  levels int DEFAULT 1,
  offsets int DEFAULT 0,
  search text DEFAULT '',
  sortcolumn text DEFAULT 'name',
  sortorder text DEFAULT 'asc'
)
RETURNS TABLE (
  name text,
  id uuid,
  updated_at timestamptz,
  created_at timestamptz,
  last_accessed_at timestamptz,
  metadata jsonb
)
LANGUAGE plpgsql STABLE SECURITY INVOKER
AS $$
DECLARE
  v_prefix text := coalesce(prefix, '') || coalesce(search, '');
  v_lower text := lower(coalesce(prefix, '') || coalesce(search, ''));
  v_relative int := length(coalesce(prefix, ''));
  v_limit int := least(coalesce(limits, 100), 1500);
  v_asc boolean := lower(coalesce(sortorder, 'asc')) = 'asc';
  v_column text := CASE lower(coalesce(sortcolumn, 'name'))
    WHEN 'updated_at' THEN 'updated_at'
    WHEN 'created_at' THEN 'created_at'
    WHEN 'last_accessed_at' THEN 'last_accessed_at'
    ELSE 'name'
  END;
BEGIN
  RETURN QUERY
  WITH matched AS (
    SELECT o.name, o.id, o.updated_at, o.created_at, o.last_accessed_at, o.metadata,
           lower(o.name) COLLATE "C" AS key,
           -- where the key's folder ends (0: the key is a file at this level)
           position('/' IN substr(lower(o.name), length(v_lower) + 1)) AS cut
    FROM storage.objects o
    WHERE o.bucket_id = bucketname
      AND starts_with(lower(o.name), v_lower)
  ),
  entries AS (
    (SELECT DISTINCT ON (left(m.key, length(v_lower) + m.cut))
           substr(rtrim(left(m.name, length(v_prefix) + m.cut), '/'), v_relative + 1) AS name,
           NULL::uuid AS id, NULL::timestamptz AS updated_at, NULL::timestamptz AS created_at,
           NULL::timestamptz AS last_accessed_at, NULL::jsonb AS metadata,
           left(m.key, length(v_lower) + m.cut) COLLATE "C" AS sort_key,
           NULL::timestamptz AS sort_date
    FROM matched m
    WHERE m.cut > 0
    ORDER BY left(m.key, length(v_lower) + m.cut), m.key)
    UNION ALL
    SELECT substr(m.name, v_relative + 1), m.id, m.updated_at, m.created_at, m.last_accessed_at,
           m.metadata, m.key,
           CASE v_column
             WHEN 'updated_at' THEN m.updated_at
             WHEN 'created_at' THEN m.created_at
             WHEN 'last_accessed_at' THEN m.last_accessed_at
           END
    FROM matched m
    WHERE m.cut = 0
  )
  SELECT e.name, e.id, e.updated_at, e.created_at, e.last_accessed_at, e.metadata
  FROM entries e
  ORDER BY
    CASE WHEN v_column <> 'name' THEN e.id IS NOT NULL END,
    CASE WHEN v_column = 'name' AND v_asc THEN e.sort_key END ASC,
    CASE WHEN v_column = 'name' AND NOT v_asc THEN e.sort_key END DESC,
    CASE WHEN v_column <> 'name' AND v_asc THEN e.sort_date END ASC,
    CASE WHEN v_column <> 'name' AND NOT v_asc THEN e.sort_date END DESC,
    CASE WHEN v_asc THEN e.name COLLATE "C" END ASC,
    CASE WHEN NOT v_asc THEN e.name COLLATE "C" END DESC
  LIMIT v_limit OFFSET coalesce(offsets, 0);
END
$$;
COMMENT ON FUNCTION storage.search(text, text, int, int, int, text, text, text) IS 'List v1 of storage/v1 (Supabase''s storage.search): the folders and files under prefix whose names start with prefix || search (case-insensitive), as the caller sees them.';
GRANT EXECUTE ON FUNCTION storage.search(text, text, int, int, int, text, text, text) TO anon, authenticated, service_role;

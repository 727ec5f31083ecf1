-- Finding one's school among the 12 898 of the directory (onboarding and the profile): by RBD
-- (the number, with or without its check digit) or by words of the name and the comuna, in
-- any case and with or without accents ("nunoa" finds Ñuñoa).

CREATE FUNCTION private.fold_for_search(value text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = ''
AS $$
  SELECT pg_catalog.lower(pg_catalog.translate(value,
    'ÁÀÄÂÉÈËÊÍÌÏÎÓÒÖÔÚÙÜÛÑáàäâéèëêíìïîóòöôúùüûñ',
    'AAAAEEEEIIIIOOOOUUUUNaaaaeeeeiiiioooouuuun'))
$$;
COMMENT ON FUNCTION private.fold_for_search(text) IS 'Lower case without Spanish accents or ñ, for matching what people type.';
REVOKE EXECUTE ON FUNCTION private.fold_for_search(text) FROM PUBLIC;

-- SECURITY DEFINER only to reach the private helper: it reads the directory, which every
-- signed-in user may read anyway, and nothing else.

CREATE FUNCTION public.search_schools(query text, max_rows integer DEFAULT 10)
RETURNS SETOF public.schools
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = ''
AS $$
DECLARE
  typed text := pg_catalog.btrim(coalesce(query, ''));
  wanted integer := least(greatest(coalesce(max_rows, 10), 1), 50);
  digits text;
  words text[];
BEGIN
  IF typed ~ '^[0-9]{1,6}(-[0-9kK])?$' THEN
    -- "8485", "8485-7": the RBD, exact match first, then RBDs starting with those digits.
    digits := pg_catalog.split_part(typed, '-', 1);
    RETURN QUERY
      SELECT s.* FROM public.schools s
       WHERE s."RBD"::text LIKE digits || '%'
       ORDER BY s."RBD"::text = digits DESC, s."RBD"
       LIMIT wanted;
    RETURN;
  END IF;
  IF pg_catalog.char_length(typed) < 2 THEN
    RETURN;
  END IF;
  words := pg_catalog.regexp_split_to_array(private.fold_for_search(typed), '\s+');
  RETURN QUERY
    SELECT s.* FROM public.schools s
     WHERE NOT EXISTS (
       SELECT 1 FROM pg_catalog.unnest(words) w
        WHERE pg_catalog.strpos(private.fold_for_search(s."NOM_RBD" || ' ' || s.comuna), w) = 0)
     ORDER BY s.estado = 'Vigente' DESC,
              pg_catalog.starts_with(private.fold_for_search(s."NOM_RBD"), words[1]) DESC,
              s."NOM_RBD", s."RBD"
     LIMIT wanted;
END
$$;
COMMENT ON FUNCTION public.search_schools(text, integer) IS 'Schools matching what a teacher typed: an RBD ("8485", "8485-7", or its first digits), or words of the name and comuna (any case, accents optional); operating schools first. At most max_rows (1–50, default 10). rpc(''search_schools'', {query}).';
REVOKE EXECUTE ON FUNCTION public.search_schools(text, integer) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.search_schools(text, integer) TO authenticated, service_role;

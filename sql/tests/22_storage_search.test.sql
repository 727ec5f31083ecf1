-- storage.search (list v1): folders and files under a prefix, as Supabase Storage lists them.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(9);

INSERT INTO storage.buckets (id, name) VALUES ('planes', 'planes');
INSERT INTO storage.objects (bucket_id, name, created_at) VALUES
  ('planes', 'u1/Clase.pdf', '2025-03-03'),
  ('planes', 'u1/anexos/mapa.png', '2025-03-01'),
  ('planes', 'u1/anexos/guia.pdf', '2025-03-02'),
  ('planes', 'u1/bitacora.txt', '2025-03-04'),
  ('planes', 'u2/otro.pdf', '2025-03-05'),
  ('planes', 'raiz.txt', '2025-03-06');

SELECT is(array(SELECT name FROM storage.search('u1/', 'planes')), '{anexos,bitacora.txt,Clase.pdf}'::text[],
  'names relative to the prefix, folders and files interleaved in lower-cased order');
SELECT is((SELECT count(*) FROM storage.search('u1/', 'planes') WHERE name = 'anexos' AND id IS NULL AND metadata IS NULL), 1::bigint,
  'a folder is one row with a null id');
SELECT is(array(SELECT name FROM storage.search('', 'planes')), '{raiz.txt,u1,u2}'::text[], 'the top level');
SELECT is(array(SELECT name FROM storage.search('u1/', 'planes', 100, 1, 0, 'c')), '{Clase.pdf}'::text[],
  'search is a case-insensitive prefix after the prefix');
SELECT is(array(SELECT name FROM storage.search('u1/', 'planes', 100, 1, 0, 'an')), '{anexos}'::text[],
  'a search can name a folder');
SELECT is(array(SELECT name FROM storage.search('u1/', 'planes', 1, 1, 1)), '{bitacora.txt}'::text[], 'limit and offset');
SELECT is(array(SELECT name FROM storage.search('u1/', 'planes', 100, 1, 0, '', 'created_at', 'desc')), '{anexos,bitacora.txt,Clase.pdf}'::text[],
  'by a date: folders first, then files by the date');
SELECT is(array(SELECT name FROM storage.search('u1/', 'planes', 100, 1, 0, '', 'name', 'DESC')), '{Clase.pdf,bitacora.txt,anexos}'::text[],
  'descending');

CREATE POLICY u1_only ON storage.objects FOR SELECT TO authenticated USING ((storage.foldername(name))[1] = 'u2');
SET LOCAL ROLE authenticated;
SELECT is(array(SELECT name FROM storage.search('', 'planes')), '{u2}'::text[], 'as the caller: only folders of objects it may see');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;

-- bench/storage.sh's bucket policies: a signed-in user reads and writes the objects under a
-- folder named after its id (`<user id>/…`), as in Supabase's own examples. An upload with
-- x-upsert needs all three (INSERT, and SELECT and UPDATE for the replace).
CREATE POLICY bench_read ON storage.objects FOR SELECT TO authenticated
  USING (bucket_id = 'bench' AND (storage.foldername(name))[1] = (SELECT auth.uid())::text);
CREATE POLICY bench_insert ON storage.objects FOR INSERT TO authenticated
  WITH CHECK (bucket_id = 'bench' AND (storage.foldername(name))[1] = (SELECT auth.uid())::text);
CREATE POLICY bench_update ON storage.objects FOR UPDATE TO authenticated
  USING (bucket_id = 'bench' AND (storage.foldername(name))[1] = (SELECT auth.uid())::text);

-- The table bench/auth.sh's REST reads load (auth_bench: GET /rest/v1/bench_notes), readable by
-- anon and signed-in users alike.
CREATE TABLE public.bench_notes (id int PRIMARY KEY, body text NOT NULL);
INSERT INTO public.bench_notes SELECT n, 'nota ' || n FROM generate_series(1, 100) n;
GRANT SELECT ON public.bench_notes TO anon, authenticated;
NOTIFY pgrst, 'reload schema';

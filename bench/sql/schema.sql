-- The rest/v1 benchmark's tables, rows and policies (bench/run.sh), run as the cluster's admin
-- from the run's work directory (where categories.csv and items.csv are):
--   psql -v rows=N -v pgbench_db=NAME -f bench/sql/schema.sql
-- RLS is on everywhere with trivial anon policies, so the gateway pays for RLS as a real app
-- does while every row stays visible.
CREATE TABLE public.bench_categories (
  id int PRIMARY KEY,
  name text NOT NULL
);
CREATE TABLE public.bench_items (
  id bigint PRIMARY KEY,
  owner uuid NOT NULL,
  title text NOT NULL,
  amount int NOT NULL,
  category_id int NOT NULL REFERENCES public.bench_categories (id),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bench_items_amount_idx ON public.bench_items (amount);
CREATE INDEX bench_items_category_id_idx ON public.bench_items (category_id);
\copy public.bench_categories FROM 'categories.csv' WITH (FORMAT csv)
\copy public.bench_items FROM 'items.csv' WITH (FORMAT csv)
ALTER TABLE public.bench_items ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.bench_categories ENABLE ROW LEVEL SECURITY;
CREATE POLICY bench_items_read ON public.bench_items FOR SELECT TO anon USING (true);
CREATE POLICY bench_categories_read ON public.bench_categories FOR SELECT TO anon USING (true);
GRANT SELECT ON public.bench_items, public.bench_categories TO anon;
-- The write path: appended rows, and a fixed set of rows that upserts and updates change.
CREATE TABLE public.bench_writes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner uuid NOT NULL,
  title text NOT NULL,
  amount int NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE public.bench_counters (
  id int PRIMARY KEY,
  title text NOT NULL,
  amount int NOT NULL
);
INSERT INTO public.bench_counters SELECT i, 'counter ' || i, 0 FROM generate_series(1, :rows) i;
ALTER TABLE public.bench_writes ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.bench_counters ENABLE ROW LEVEL SECURITY;
CREATE POLICY bench_writes_insert ON public.bench_writes FOR INSERT TO anon WITH CHECK (true);
CREATE POLICY bench_writes_read ON public.bench_writes FOR SELECT TO anon USING (true);
CREATE POLICY bench_counters_all ON public.bench_counters FOR ALL TO anon USING (true) WITH CHECK (true);
GRANT SELECT, INSERT ON public.bench_writes TO anon;
GRANT SELECT, INSERT, UPDATE ON public.bench_counters TO anon;
VACUUM ANALYZE public.bench_counters;
VACUUM ANALYZE public.bench_items;
VACUUM ANALYZE public.bench_categories;
CREATE DATABASE :"pgbench_db";
NOTIFY pgrst, 'reload schema';

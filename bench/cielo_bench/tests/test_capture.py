import unittest

from cielo_bench import capture

LOG = """2026-11-26 16:50:00.001 UTC [900] LOG:  execute s0: SELECT 1
2026-11-26 16:50:01.000 UTC [901] LOG:  statement: SELECT 'cielo-bench-capture-1'
2026-11-26 16:50:01.100 UTC [902] LOG:  execute s1: SELECT pg_catalog.set_config('role', $1, true), \
pg_catalog.set_config('request.jwt.claims', $2, true)
2026-11-26 16:50:01.100 UTC [902] DETAIL:  parameters: $1 = 'anon', $2 = '{"role":"anon","iss":"it''s"}'
2026-11-26 16:50:01.101 UTC [902] LOG:  execute s2: WITH pgrst_source AS (SELECT * FROM public.bench_items
\tWHERE id = $1) SELECT json_agg(_postgrest_t) FROM pgrst_source AS _postgrest_t
2026-11-26 16:50:01.101 UTC [902] DETAIL:  parameters: $1 = '4321'
2026-11-26 16:50:01.200 UTC [903] LOG:  execute s3: SELECT pg_catalog.set_config('role', $1, true)
2026-11-26 16:50:01.200 UTC [903] DETAIL:  parameters: $1 = 'anon'
2026-11-26 16:50:01.201 UTC [903] LOG:  execute s4: INSERT INTO public.bench_writes (owner, title, amount) \
VALUES ($1, $2, $3)
2026-11-26 16:50:01.201 UTC [903] DETAIL:  parameters: $1 = '8d3f6c0e', $2 = NULL, $3 = '7777'
"""


class CaptureTest(unittest.TestCase):
    def test_statements_after_the_marker_with_their_parameters(self):
        entries = capture.parse_log(LOG, "cielo-bench-capture-1")
        # The marker's own line is cut before its prefix, so it is not among them.
        self.assertEqual([e[0] for e in entries], ["902", "902", "903", "903"])
        self.assertEqual(entries[0][2], {1: "anon", 2: '{"role":"anon","iss":"it\'s"}'})
        self.assertEqual(entries[1][1], "WITH pgrst_source AS (SELECT * FROM public.bench_items\n"
                                        "WHERE id = $1) SELECT json_agg(_postgrest_t) "
                                        "FROM pgrst_source AS _postgrest_t")
        self.assertEqual(entries[3][2], {1: "8d3f6c0e", 2: None, 3: "7777"})

    def test_missing_marker_stops_the_run(self):
        with self.assertRaises(SystemExit):
            capture.parse_log(LOG, "cielo-bench-capture-2")

    def test_request_pipeline_and_its_pgbench_shape(self):
        entries = capture.parse_log(LOG, "cielo-bench-capture-1")
        statements, main = capture.request_pipeline(
            entries, lambda e: e[1].startswith("WITH pgrst_source") and "4321" in e[2].values(), "read")
        self.assertEqual(main, 1)
        self.assertEqual([s[0] for s in statements], ["902", "902"])
        shapes, defines = capture.pgbench_shapes(
            statements, "s", lambda s, k, v: ":id" if s == main and v == "4321" else None)
        self.assertEqual(shapes[0], "SELECT pg_catalog.set_config('role', :s0p1, true), "
                                    "pg_catalog.set_config('request.jwt.claims', :s0p2, true);")
        self.assertTrue(shapes[1].endswith("WHERE id = :id) SELECT json_agg(_postgrest_t) "
                                           "FROM pgrst_source AS _postgrest_t;"))
        self.assertEqual(defines, ["s0p1=anon", 's0p2={"role":"anon","iss":"it\'s"}'])

    def test_insert_pipeline_defines_every_parameter(self):
        entries = capture.parse_log(LOG, "cielo-bench-capture-1")
        inserts, main = capture.request_pipeline(entries, lambda e: "INSERT INTO " in e[1][:80], "insert")
        self.assertEqual(main, 1)
        _, defines = capture.pgbench_shapes(inserts, "i")
        self.assertEqual(defines, ["i0p1=anon", "i1p1=8d3f6c0e", "i1p2=", "i1p3=7777"])

    def test_unknown_statement_stops_the_run(self):
        with self.assertRaises(SystemExit):
            capture.request_pipeline(capture.parse_log(LOG, "cielo-bench-capture-1"), lambda e: False, "read")


if __name__ == "__main__":
    unittest.main()

import unittest

from cielo_bench import runs

WRK_OUTPUT = """Running 10s test @ http://127.0.0.1:40001
  2 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.52ms  612.00us  20.11ms   80.00%
  200000 requests in 10.00s, 90.00MB read
Requests/sec:  20000.00
BENCH_JSON {"requests":200000,"duration_us":10000000,"p50_us":1400,"p90_us":2100,"p99_us":2920,\
"mean_us":1520.5,"max_us":20110,"non2xx":3,"socket_errors":2}
"""

PGBENCH_OUTPUT = """pgbench (16.4 (Debian 16.4-1.pgdg120+2))
transaction type: /tmp/cielo-bench.x/insert.sql
scaling factor: 1
query mode: prepared
number of clients: 32
number of threads: 2
maximum number of tries: 1
duration: 10 s
number of transactions actually processed: 171234
number of failed transactions: 4 (0.002%)
latency average = 1.868 ms
initial connection time = 21.402 ms
tps = 17126.543210 (without initial connection time)
"""


class WrkTest(unittest.TestCase):
    def test_bench_json_line_gives_rate_latencies_and_errors(self):
        r = runs.parse_wrk(WRK_OUTPUT, "gw_single c=32")
        self.assertAlmostEqual(r["rps"], 20000.0)
        self.assertEqual(r["requests"], 200000)
        self.assertEqual((r["p50_ms"], r["p99_ms"], r["max_ms"]), (1.4, 2.92, 20.11))
        self.assertAlmostEqual(r["mean_ms"], 1.5205)
        self.assertEqual((r["errors"], r["non2xx"], r["socket_errors"]), (5, 3, 2))

    def test_output_without_a_result_stops_the_run(self):
        with self.assertRaises(SystemExit) as stop:
            runs.parse_wrk("unable to connect to 127.0.0.1:1 Connection refused\n", "gw_single c=1")
        self.assertIn("gw_single c=1: wrk printed no result", str(stop.exception))


class PgbenchTest(unittest.TestCase):
    def test_summary_and_logged_latencies(self):
        latencies = runs.pgbench_latencies([
            "0 1 1000 0 1764175801 120000\n",
            "1 1 3000 0 1764175801 121000\n",
            "0 2 2000 0 1764175801 122000\n",
            "1 2 9000 0 1764175801 123000\n",
            "not a transaction line\n",
        ])
        self.assertEqual(latencies, [1000, 3000, 2000, 9000])
        r = runs.parse_pgbench(PGBENCH_OUTPUT, latencies, "pg_insert c=32")
        self.assertAlmostEqual(r["rps"], 17126.54321)
        self.assertEqual(r["requests"], 171234)
        self.assertEqual(r["errors"], 4)
        self.assertAlmostEqual(r["p50_ms"], 2.5)
        self.assertAlmostEqual(r["p99_ms"], 8.82)
        self.assertAlmostEqual(r["mean_ms"], 3.75)
        self.assertEqual(r["max_ms"], 9.0)

    def test_without_logs_the_latencies_are_unknown(self):
        r = runs.parse_pgbench(PGBENCH_OUTPUT, [], "pg_select c=1")
        self.assertEqual((r["p50_ms"], r["p99_ms"], r["mean_ms"], r["max_ms"]), (None, None, None, None))

    def test_older_pgbench_without_failure_count(self):
        text = "\n".join(line for line in PGBENCH_OUTPUT.splitlines() if "failed" not in line)
        self.assertEqual(runs.parse_pgbench(text, [5000], "pg_tx c=1")["errors"], 0)

    def test_output_without_tps_stops_the_run(self):
        with self.assertRaises(SystemExit):
            runs.parse_pgbench("pgbench: error: connection refused\n", [], "pg_tx c=1")


class PercentileTest(unittest.TestCase):
    def test_interpolates_between_ranks(self):
        self.assertEqual(runs.percentile([10, 20, 30, 40], 50), 25)
        self.assertEqual(runs.percentile([10, 20, 30, 40], 100), 40)
        self.assertEqual(runs.percentile([7], 99), 7)
        self.assertIsNone(runs.percentile([], 50))


if __name__ == "__main__":
    unittest.main()

import unittest

from cielo_bench import report


def run(scenario, conns, rnd, rps, p99=2.0, cpu=None):
    r = {"scenario": scenario, "connections": conns, "round": rnd, "tool": "wrk", "retries": 0,
         "rps": rps, "requests": int(rps * 10), "p50_ms": 1.0, "p99_ms": p99, "mean_ms": 1.1,
         "max_ms": 9.0, "errors": 0}
    if cpu is not None:
        r["cpu_percent"] = cpu
    return r


class RatiosTest(unittest.TestCase):
    def test_ratio_is_the_median_of_same_round_ratios(self):
        # The machine drifts between rounds: round 2 is twice as fast for both.
        runs = [run("gw_single", 32, 1, 1200), run("pg_tx", 32, 1, 1000),
                run("gw_single", 32, 2, 2600), run("pg_tx", 32, 2, 2000),
                run("gw_single", 32, 3, 1100), run("pg_tx", 32, 3, 1000)]
        value, each = report.paired(runs, "gw_single", "pg_tx", 32)
        self.assertEqual([round(x, 3) for x in each], [1.2, 1.3, 1.1])
        self.assertAlmostEqual(value, 1.2)

    def test_rounds_missing_a_side_are_left_out(self):
        runs = [run("gw_single", 32, 1, 1200), run("pg_tx", 32, 1, 1000), run("gw_single", 32, 2, 5000),
                run("gw_single", 1, 1, 100), run("pg_tx", 1, 1, 0)]
        self.assertEqual(report.paired(runs, "gw_single", "pg_tx", 32), (1.2, [1.2]))
        self.assertEqual(report.paired(runs, "gw_single", "pg_tx", 1), (None, []))

    def test_ratios_per_connection_count(self):
        runs = [run("gw_insert", c, 1, rps) for c, rps in ((1, 300), (32, 6000))]
        runs += [run("pg_insert", c, 1, rps) for c, rps in ((1, 1000), (32, 10000))]
        ratios = report.ratios_of(runs)
        self.assertEqual(ratios["gw_insert / pg_insert"], {
            "target": 0.5,
            "by_connections": {"1": {"median": 0.3, "per_round": [0.3]},
                               "32": {"median": 0.6, "per_round": [0.6]}}})
        self.assertNotIn("gw_insert / pb_create", ratios)


class TargetsTest(unittest.TestCase):
    def test_throughput_and_p99_targets_at_the_target_connections(self):
        runs = [run("gw_single", 32, 1, 1500, p99=16.0), run("pb_single", 32, 1, 1000),
                run("pg_tx", 32, 1, 1400), run("gw_insert", 32, 1, 400, p99=4.0),
                run("pg_insert", 32, 1, 1000)]
        table = report.summarise(runs)
        targets = {t["name"]: t for t in report.targets_of(report.ratios_of(runs), table, 32)}
        self.assertEqual(targets["gw_single / pb_single at 32 connections"]["pass"], True)
        self.assertEqual(targets["gw_single / pg_tx at 32 connections"]["pass"], True)
        self.assertEqual(targets["gw_insert / pg_insert at 32 connections"]["pass"], False)
        self.assertEqual(targets["gw_insert / pg_insert at 32 connections"]["target"], ">= 0.5x")
        self.assertIsNone(targets["gw_insert / pb_create at 32 connections"]["pass"])
        self.assertEqual(targets["gw_single p99 at 32 connections"],
                         {"name": "gw_single p99 at 32 connections", "target": "<= 15 ms",
                          "value": 16.0, "pass": False})
        self.assertEqual(targets["gw_insert p99 at 32 connections"]["pass"], True)


class SummaryTest(unittest.TestCase):
    def test_medians_and_cpu_per_request(self):
        runs = [run("gw_single", 32, r, rps, cpu={"gateway": g, "postgres": 100.0, "other": 5.0})
                for r, rps, g in ((1, 10000, 40.0), (2, 8000, 30.0), (3, 12000, 50.0))]
        cell = report.summarise(runs)["gw_single"]["32"]
        self.assertEqual((cell["rounds"], cell["rps_median"], cell["rps_min"], cell["rps_max"]),
                         (3, 10000, 8000, 12000))
        self.assertEqual(cell["cpu_percent_median"], {"gateway": 40.0, "other": 5.0, "postgres": 100.0})
        # 40 % of a core at 10 000 requests/s: 40 µs per request; "other" is not the run's.
        self.assertEqual(cell["cpu_us_per_request"], {"gateway": 40.0, "postgres": 100.0})


class CpuBudgetTest(unittest.TestCase):
    def test_what_a_target_leaves_the_gateway(self):
        cpu = {"gateway": 60.0, "postgres": 80.0, "loadgen": 40.0, "other": 20.0}
        runs = [run("gw_single", 32, 1, 8000, cpu=cpu),
                run("pb_single", 32, 1, 5000),
                run("relay_single", 32, 1, 10000, cpu={"relay": 50.0, "postgres": 70.0, "loadgen": 30.0}),
                run("actix_single", 32, 1, 9000, cpu={"relay": 63.0, "postgres": 72.0, "loadgen": 36.0})]
        budgets = report.cpu_budgets(runs, report.RATIOS, 2, 32)
        self.assertEqual(len(budgets), 1)
        b = budgets[0]
        self.assertEqual(b["target"], "gw_single / pb_single >= 1.5x")
        # 1.5 × 5000 = 7500 requests/s from 180 % of a core (200 less 20 other): 240 µs each.
        self.assertEqual((b["needed_rps"], b["allowed_us"]), (7500.0, 240.0))
        # PostgreSQL + wrk: 120 % at 8000/s = 150 µs in the gateway's run, 100 µs in the relay's.
        self.assertEqual((b["database_and_load_us"], b["least_database_and_load_us"]), (150.0, 100.0))
        self.assertEqual((b["gateway_budget_us"], b["most_gateway_budget_us"]), (90.0, 140.0))
        self.assertEqual((b["gateway_us"], b["actix_front_us"], b["minimal_front_us"]), (75.0, 70.0, 50.0))


class MarkdownTest(unittest.TestCase):
    def test_sections(self):
        runs = [run("gw_single", 32, 1, 1500), run("pb_single", 32, 1, 1000)]
        table = report.summarise(runs)
        ratios = report.ratios_of(runs)
        result = {
            "machine": {"date": "2026-01-01 00:00 UTC", "cpu_model": "CPU", "nproc": 2, "os": "OS",
                        "cielo": "abc1234", "versions": {"wrk": "wrk 4.2.0"}},
            "config": {"rounds": 1, "seconds": 3, "rows": 10000},
            "summary": table, "ratios": ratios, "targets": report.targets_of(ratios, table, 32),
            "cpu_budgets": [], "runs": runs,
        }
        md = report.markdown(result, 32)
        self.assertTrue(md.startswith("# rest/v1 benchmark (reads and writes)\n"))
        self.assertIn("| gw_single / pb_single at 32 connections | >= 1.5x | 1.50× | **PASS** |", md)
        self.assertIn("| gw_single / pg_tx at 32 connections | >= 1.0x | -× | **n/a** |", md)
        self.assertIn("| gw_single | 32 | 1500 | 1500–1500 |", md)
        self.assertIn("- rows: 10000\n- versions: wrk wrk 4.2.0\n", md)


if __name__ == "__main__":
    unittest.main()

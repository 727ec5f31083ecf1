import unittest

from cielo_bench import auth


class AuthChecksTest(unittest.TestCase):
    def test_ratios_against_their_targets(self):
        g = {"bcrypt_raw": {"per_second": 34.0}, "sign_ins": {"per_second": 32.0},
             "rest_alone": {"p99_ms": 2.6}, "rest_during_storm": {"p99_ms": 6.7},
             "refresh": {"per_second": 3350.0, "p99_ms": 18.6}}
        got = {c["name"]: (round(c["value"], 2), c["met"]) for c in auth.verdicts(g, 3216.0)}
        self.assertEqual(got, {
            "sign-ins ≥ 0.95 × raw bcrypt": (0.94, False),
            "REST p99 in a storm ≤ 2 × alone": (2.58, False),
            "refresh ≥ 0.8 × pgbench": (1.04, True),
            "refresh p99 ≤ 25 ms": (18.6, True),
        })

    def test_bounds_pass(self):
        g = {"bcrypt_raw": {"per_second": 100.0}, "sign_ins": {"per_second": 95.0},
             "rest_alone": {"p99_ms": 2.0}, "rest_during_storm": {"p99_ms": 4.0},
             "refresh": {"per_second": 800.0, "p99_ms": 25.0}}
        self.assertTrue(all(c["met"] for c in auth.verdicts(g, 1000.0)))


if __name__ == "__main__":
    unittest.main()

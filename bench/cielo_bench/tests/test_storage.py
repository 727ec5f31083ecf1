import unittest

from cielo_bench import storage

DD_OUTPUT = """50+0 records in
50+0 records out
52428800 bytes (52 MB, 50 MiB) copied, 0.106234 s, 494 MB/s
"""


def wrk(rps, mb=None, p99=2.0, errors=0):
    return {"rps": rps, "requests": int(rps * 8), "p50_ms": 1.0, "p99_ms": p99, "errors": errors,
            "mb_per_s": mb, "cpu_percent": {"gateway": 90.0, "postgres": 40.0, "client": 30.0, "other": 1.0}}


def transfer(mb_per_s, errors=0):
    return {"mb_per_s": mb_per_s, "errors": errors,
            "runs": [{"bytes": 50 * storage.MIB, "seconds": 50 * storage.MIB / storage.MB / mb_per_s,
                      "mb_per_s": mb_per_s, "errors": errors, "cpu_percent": {"gateway": 80.0}}]}


def a_round(number, scale=1.0, render_ms=(20.0, 22.0, 30.0), user_rps=6000.0):
    """One round's raw results; `scale` is the machine's speed in that round (both sides)."""
    return {
        "round": number,
        "download_1m": {"gateway": wrk(1500 * scale, 1500 * scale), "nginx": wrk(3000 * scale, 3000 * scale)},
        "download_50m": {"gateway": wrk(50 * scale, 2600 * scale), "nginx": wrk(50 * scale, 2600 * scale)},
        "small_1k": {"gateway_user": wrk(user_rps * scale, p99=12.0), "gateway_service": wrk(7000 * scale),
                     "nginx": wrk(70000 * scale)},
        "upload_50m": {"gateway_mtime": transfer(400 * scale), "gateway": transfer(250 * scale),
                       "dd": transfer(500 * scale)},
        "upload_256m": {"gateway_mtime": transfer(400 * scale), "gateway": transfer(250 * scale),
                        "dd": transfer(1000 * scale)},
        "render": {"cold_ms": list(render_ms), "cached_ms": [1.0, 1.2, 1.1], "errors": 0, "output_bytes": 10022,
                   "output_kind": "lossless",
                   "vips": {"images": 3, "ms_per_image": 10.0, "output_bytes": 9000, "lossy_ms_per_image": 5.0,
                            "lossy_output_bytes": 4000}},
    }


def memory(up=(100_000, 110_000), down=(95_000, 101_000)):
    return {"baseline_kb": 102_400,
            "upload": {"bytes": storage.SIZES["1g"], "seconds": 2.0, "rss_kb": list(up), "errors": 0},
            "download": {"bytes": storage.SIZES["1g"], "seconds": 0.5, "rss_kb": list(down), "errors": 0}}


class ParsingTest(unittest.TestCase):
    def test_dd_summary(self):
        self.assertEqual(storage.parse_dd(DD_OUTPUT), (52428800, 0.106234))
        # A locale with a decimal comma.
        self.assertEqual(storage.parse_dd("1048576 bytes (1,0 MB, 1,0 MiB) copied, 0,5 s, 2,1 MB/s\n"),
                         (1048576, 0.5))
        with self.assertRaises(SystemExit):
            storage.parse_dd("dd: failed to open 'x': No such file or directory\n")

    def test_curl_write_out(self):
        self.assertEqual(storage.parse_curl('{"Key":"x"}\n200 0.139094 52428800 0\n'), (200, 0.139094, 52428800, 0))
        self.assertEqual(storage.parse_curl("200 1.5 0 1073741824.000000\n")[3], 1073741824)

    def test_vm_rss(self):
        status = "Name:\tcielo\nVmPeak:\t  900000 kB\nVmRSS:\t  130048 kB\nRssAnon:\t 90000 kB\n"
        self.assertEqual(storage.vm_rss_kb(status), 130048)
        self.assertIsNone(storage.vm_rss_kb("Name:\tkthreadd\n"))

    def test_webp_kind(self):
        self.assertEqual(storage.webp_kind(b"RIFF\x00\x00\x00\x00WEBPVP8L" + b"\x00" * 8), "lossless")
        self.assertEqual(storage.webp_kind(b"RIFF\x00\x00\x00\x00WEBPVP8 " + b"\x00" * 8), "lossy")
        self.assertEqual(storage.webp_kind(b"\xff\xd8\xff\xe0" + b"\x00" * 20), "not WebP")


class ArithmeticTest(unittest.TestCase):
    def test_transfer_rate_is_all_bytes_over_all_time(self):
        runs = [{"bytes": 100 * storage.MB, "seconds": 1.0}, {"bytes": 100 * storage.MB, "seconds": 0.25}]
        self.assertAlmostEqual(storage.transfer_rate(runs), 160.0)

    def test_ratio_is_the_median_of_same_round_ratios(self):
        # The machine is twice as fast in round 2, for both sides.
        rounds = [a_round(1), a_round(2, scale=2.0), a_round(3, scale=0.9)]
        rounds[2]["download_1m"]["gateway"]["mb_per_s"] = 2700 * 0.9  # 0.9× nginx in round 3
        ratio, each = storage.paired(rounds, "download_1m", "gateway", "nginx", lambda r: r["mb_per_s"])
        self.assertEqual([round(x, 2) for x in each], [0.5, 0.5, 0.9])
        self.assertAlmostEqual(ratio, 0.5)

    def test_rounds_missing_a_side_are_left_out(self):
        rounds = [a_round(1), a_round(2)]
        del rounds[1]["download_1m"]["nginx"]
        rounds[0]["download_50m"]["nginx"]["mb_per_s"] = 0
        self.assertEqual(storage.paired(rounds, "download_1m", "gateway", "nginx", lambda r: r["mb_per_s"]),
                         (0.5, [0.5]))
        self.assertEqual(storage.paired(rounds, "download_50m", "gateway", "nginx", lambda r: r["mb_per_s"])[1],
                         [1.0])

    def test_rss_moves_both_ways_from_the_baseline(self):
        m = storage.rss_summary(102_400, [100_000, 110_000, 95_000])
        self.assertAlmostEqual(m["baseline_mib"], 100.0)
        self.assertAlmostEqual(m["delta_mib"], 7_600 / 1024)
        self.assertAlmostEqual(m["deviation_mib"], 7_600 / 1024)
        self.assertAlmostEqual(storage.rss_summary(102_400, [70_000])["deviation_mib"], 32_400 / 1024)

    def test_per_image_time_leaves_the_start_out(self):
        self.assertAlmostEqual(storage.per_image_ms(0.080, 0.270, 20), 10.0)
        self.assertEqual(storage.per_image_ms(0.1, 0.09, 2), 0.0)


class TargetsTest(unittest.TestCase):
    def verdicts(self, rounds, mem=None):
        summary = storage.summarize(rounds, mem or memory())
        return summary, {t["key"]: t for t in storage.checks(summary)}

    def test_each_target_against_its_goal(self):
        summary, t = self.verdicts([a_round(1), a_round(2, scale=1.5), a_round(3)])
        self.assertEqual((round(t["download_1m"]["value"], 2), t["download_1m"]["met"]), (0.5, False))
        self.assertAlmostEqual(t["download_1m"]["ratio_to_limit"], 0.5 / 0.7)
        self.assertEqual(t["download_1m"]["peer_value"], 3000)
        self.assertTrue(t["download_50m"]["met"])
        self.assertEqual((round(t["upload_50m"]["value"], 2), t["upload_50m"]["met"]), (0.8, True))
        self.assertEqual((round(t["upload_256m"]["value"], 2), t["upload_256m"]["met"]), (0.4, False))
        # The default (MD5) ETags are reported beside the target.
        self.assertEqual(round(summary["upload_50m"]["md5_ratio"], 2), 0.5)
        self.assertEqual(summary["upload_256m"]["md5_mb_per_s"], 250)
        self.assertEqual((t["small_user"]["value"], t["small_user"]["p99_ms"], t["small_user"]["met"]),
                         (6000, 12.0, True))
        self.assertAlmostEqual(t["small_user"]["ratio_to_peer"], 6000 / 70000)
        self.assertEqual(summary["small_service"]["rps"], 7000)
        self.assertEqual((round(t["memory"]["value"], 2), t["memory"]["met"]), (7.42, True))
        self.assertEqual((t["render_cold"]["value"], t["render_cold"]["p99_ms"]), (22.0, 29.84))
        self.assertAlmostEqual(t["render_cold"]["ratio_to_peer"], 2.2)
        self.assertAlmostEqual(t["render_cold"]["ratio_to_limit"], 0.44)
        self.assertEqual(summary["render_cached"]["p50_ms"], 1.1)

    def test_limits_are_inclusive_and_failures_count(self):
        rounds = [a_round(1, render_ms=(50.0, 50.0, 80.0), user_rps=4999.0)]
        _, t = self.verdicts(rounds, memory(up=(102_400 + 20 * 1024,)))
        self.assertTrue(t["render_cold"]["met"])
        self.assertFalse(t["small_user"]["met"])
        self.assertTrue(t["memory"]["met"])
        _, t = self.verdicts(rounds, memory(up=(102_400 + 20 * 1024 + 1,)))
        self.assertFalse(t["memory"]["met"])
        # A target whose runs failed is not met, whatever its number.
        rounds = [a_round(1)]
        rounds[0]["download_50m"]["gateway"]["errors"] = 3
        rounds[0]["upload_50m"]["gateway"]["errors"] = 1
        rounds[0]["upload_256m"]["gateway_mtime"]["errors"] = 1
        _, t = self.verdicts(rounds)
        self.assertFalse(t["upload_256m"]["met"])
        self.assertEqual((t["download_50m"]["met"], t["download_50m"]["errors"]), (False, 3))
        self.assertFalse(t["upload_50m"]["met"])

    def test_without_the_vips_peer_the_render_target_stands_alone(self):
        rounds = [a_round(1)]
        del rounds[0]["render"]["vips"]
        _, t = self.verdicts(rounds)
        self.assertIsNone(t["render_cold"]["ratio_to_peer"])
        self.assertTrue(t["render_cold"]["met"])

    def test_the_report_names_every_target(self):
        rounds = [a_round(1), a_round(2)]
        g = {"date": "2026-11-28 22:00 UTC", "rounds_count": 2, "rounds": rounds, "seconds": 8,
             "config": "wrk -t 2", "memory": memory(),
             "environment": {"cielo": "abc1234", "nproc": 2, "cpu_model": "AMD EPYC", "os": "Debian", "kernel": "6",
                             "memory_mib": 24000, "servers": "setsid",
                             "disk": {"storage": {"source": "/dev/vda", "fstype": "ext4"}, "same_device": True},
                             "versions": {"nginx": "nginx/1.22.1"}}}
        g["summary"] = storage.summarize(rounds, g["memory"])
        g["targets"] = storage.checks(g["summary"])
        text = storage.markdown(g)
        for _, what, _, _ in storage.TARGETS:
            self.assertIn(f"| {what} |", text)
        self.assertIn("| 1 MiB downloads, MB/s / nginx (sendfile on, same files) | ≥ 0.7× | 0.50× (1,500 MB/s) "
                      "| 0.71× | nginx | 3,000 MB/s | 0.50× | **no** |", text)
        self.assertIn("| 2 | 1,500 / 3,000 |", text)
        self.assertIn("| 50 MiB uploads with mtime ETags, MB/s / dd bs=1M conv=fdatasync (same disk) | ≥ 0.6× "
                      "| 0.80× (400 MB/s) | 1.33× | dd | 500 MB/s | 0.80× | yes |", text)
        self.assertIn("50 MiB 250 MB/s (0.50× dd)", text)
        self.assertIn("| ≥ 5000 | 6,000 req/s, p99 12.0 ms | 1.20× |", text)
        self.assertIn("| ≤ 50 | 22.00 ms, p99 29.8 ms | 0.44× | libvips", text)


if __name__ == "__main__":
    unittest.main()

import base64
import hashlib
import hmac
import json
import unittest

from cielo_bench import ai


def doc(*lines):
    return {"type": "doc", "content": [{"type": "paragraph", "content": [{"type": "text", "text": line}]}
                                       for line in lines]}


class StreamTest(unittest.TestCase):
    def test_events_are_read_frame_by_frame(self):
        lines = ["event: skeleton\n", 'data: {"zones": []}\n', "\n",
                 "event: zone_delta\n", 'data: {"zone": 1, "text": "Hola\\n"}\n', "\n",
                 "event: done\n", 'data: {"usage": {}}\n']
        self.assertEqual(list(ai.sse_events(lines)), [
            ("skeleton", {"zones": []}), ("zone_delta", {"zone": 1, "text": "Hola\n"}), ("done", {"usage": {}})])

    def test_tokens_are_hs256_with_the_user(self):
        token = ai.user_token("s" * 32, "u-1", now=1000)
        header, claims, signature = token.split(".")
        expected = hmac.new(b"s" * 32, f"{header}.{claims}".encode(), hashlib.sha256).digest()
        self.assertEqual(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)), expected)
        payload = json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4)))
        self.assertEqual((payload["sub"], payload["role"], payload["exp"]), ("u-1", "authenticated", 8200))


class AnswerCheckTest(unittest.TestCase):
    def answer(self, text):
        return {"zones": [{"zone_type": kind, "content": doc(text)} for kind in ai.EXPECTED_ZONES]}

    def test_requested_codes_pass(self):
        self.assertEqual(ai.check_answer(self.answer("Trabajamos el MA07 OA 03."), ["MA07 OA 03"]), [])

    def test_codes_do_not_run_from_one_paragraph_into_the_next(self):
        doc = {"type": "doc", "content": [
            {"type": "paragraph", "content": [{"type": "text", "text": "Se evalúa el logro del OA"}]},
            {"type": "bulletList", "content": [{"type": "listItem", "content": [
                {"type": "paragraph", "content": [{"type": "text", "text": "1. Actividad"}]}]}]},
            {"type": "paragraph", "content": [{"type": "text", "text": "Ver "},
                                              {"type": "text", "text": "OA 5", "marks": [{"type": "bold"}]}]}]}
        self.assertEqual(ai.codes_in([{"content": doc}]), {"OA 5"})

    def test_other_codes_and_missing_zones_are_problems(self):
        problems = ai.check_answer(self.answer("Ver MA07 OA 05 y oa 3."), ["MA07 OA 03"])
        self.assertEqual(problems, ["codes not requested: ['MA07 OA 05', 'oa 3']"])
        answer = self.answer("texto")
        answer["zones"].pop()
        self.assertTrue(ai.check_answer(answer, ["MA07 OA 03"])[0].startswith("zones"))


class ReportTest(unittest.TestCase):
    def test_targets(self):
        plan = {"skeleton_s": 0.02, "first_text_s": 4.0, "done_s": 60.0, "completion_tokens": 1200,
                "problems": [], "source": "model"}
        peer = dict(plan, done_s=50.0)
        g = {"native": {"ratio": 0.85}, "deno": {"ratio": 0.4},
             "local": ai.summarize([plan, plan]), "llama_server": ai.summarize([peer])}
        met = {name: value >= target if op == ">=" else value <= target
               for name, value, target, op in ai.checks(g)}
        self.assertTrue(met["native function ≥ 0.8 × actix-web directly"])
        self.assertFalse(met["Deno function ≥ 0.5 × Deno alone"])
        self.assertFalse(met["tokens/s ≥ 0.9 × llama.cpp's server (same prompts)"])  # 20 vs 24 tokens/s
        self.assertTrue(met["single-class plan ≤ 90 s (worst)"])
        self.assertTrue(met["OA codes not requested"])

    def test_the_rate_is_compared_on_the_peers_prompts_with_the_model_loaded(self):
        def plan(index, seconds):
            level, subject, _, _ = ai.PLANS[index % len(ai.PLANS)]
            return {"level": level, "subject": subject, "skeleton_s": 0.01, "first_text_s": 3.0,
                    "done_s": seconds, "completion_tokens": 1000, "problems": [], "source": "model"}
        local = [plan(i, 100.0 if i < len(ai.PLANS) else 40.0) for i in range(20)]
        peer = [plan(i, 40.0) for i in range(5)]
        g = ai.generation_summaries(local, peer)
        self.assertEqual(g["local_same_prompts"]["plans"], 5)
        self.assertEqual(g["local_same_prompts"]["tokens_per_s"], g["llama_server"]["tokens_per_s"])
        self.assertEqual(len(ai.same_prompts(local[:5], peer)), 5)  # one pass: the first plans
        with self.assertRaises(SystemExit):
            ai.same_prompts(local[1:6], peer)

    def test_the_relay_reference_is_reported_beside_deno(self):
        plan = {"skeleton_s": 0.02, "first_text_s": 4.0, "done_s": 60.0, "completion_tokens": 1200,
                "problems": [], "source": "model"}
        rate = {"rate": 50000.0, "peer_rate": 120000.0, "ratio": 0.42, "rounds": 3}
        g = {"cpus": 2, "model": "m.gguf", "threads": 2, "host_date": "d", "generation_date": "d",
             "native": rate, "deno": rate, "deno_nginx": rate, "deno_vs_nginx": dict(rate, ratio=0.95),
             "local": ai.summarize([plan]), "llama_server": ai.summarize([plan])}
        g["checks"] = [{"name": n, "value": v, "target": t, "met": True} for n, v, t, _ in ai.checks(g)]
        text = ai.markdown(g)
        self.assertIn("| the same Deno behind nginx (reference relay) | 50000 |", text)
        self.assertIn("| the same Deno behind nginx | 120000 | 0.95 |", text)


if __name__ == "__main__":
    unittest.main()

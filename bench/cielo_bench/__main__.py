"""`python3 -m cielo_bench COMMAND ARGS…`: one step of a benchmark run, for bench/run.sh,
bench/auth.sh, bench/ai.sh and bench/storage.sh."""

import sys

from . import ai, auth, capture, cpu, data, environment, pocketbase, report, runs, storage

COMMANDS = {
    "free-ports": data.free_ports,
    "gen-data": data.gen_data,
    "pb-setup": pocketbase.pb_setup,
    "capture-sql": capture.capture_sql,
    "sample-cpu": cpu.sample_cpu,
    "other-cpu": cpu.other_cpu,
    "other-cpu-of": lambda cpu_file: print(runs.other_cpu_of(cpu_file)),
    "record": runs.record,
    "machine": environment.machine,
    "config": environment.config,
    "report": report.report,
    "auth-report": auth.auth_report,
    "ai-report": ai.ai_report,
    "storage-run": storage.storage_run,
    "storage-report": storage.storage_report,
}


def main(argv):
    if len(argv) < 2 or argv[1] not in COMMANDS:
        raise SystemExit(f"usage: python3 -m cielo_bench {{{'|'.join(COMMANDS)}}} ARGS…")
    COMMANDS[argv[1]](*argv[2:])


if __name__ == "__main__":
    main(sys.argv)

# Cielo: `make run` sets up and starts everything; `make test` runs every test.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
CARGO_TARGET_DIR ?= target
export CARGO_TARGET_DIR

.PHONY: run test status build web deps test-deps test-rust test-sql test-frontend \
        test-conformance test-e2e test-bench check-compose lint fmt clean bench bench-auth \
        oracle-auth-js oracle-functions-js oracle-storage-js oracle-supabase-js-integration types \
        bench-ai bench-pages bench-realtime bench-storage

# Every shell script, for shellcheck.
SHELL_SCRIPTS := .ci/run $(wildcard scripts/*.sh scripts/oracle/*.sh bench/*.sh)

## run: install what is missing, build, fetch the default model once (1.1 GB, sha256-checked),
## start the stack and print its status.
run: deps web
	cargo build --release --bin cielo
	$(CARGO_TARGET_DIR)/release/cielo model fetch
	$(CARGO_TARGET_DIR)/release/cielo serve

## status: URLs and keys of the local stack (like `supabase status`).
status:
	cargo run --quiet --release --bin cielo -- status

## test: every test suite — Rust, SQL (pgTAP), frontend, supabase-js conformance, browser end-to-end,
## the benchmark harness's unit tests.
test: test-deps lint test-bench test-rust test-sql test-frontend test-conformance test-e2e check-compose
	@echo "All tests passed."

deps:
	@scripts/ensure-deps.sh run
	@scripts/npm-install.sh frontend
	@scripts/npm-install.sh functions/runtime

test-deps:
	@scripts/ensure-deps.sh test
	@scripts/npm-install.sh frontend
	@scripts/npm-install.sh gateway/tests/conformance
	@scripts/npm-install.sh functions/runtime

web:
	cd frontend && npm run build

build: deps web
	cargo build --release --bin cielo

## bench: rest/v1 (against pgbench and PocketBase, ~35 min), auth/v1 (against bcrypt and
## pgbench, ~3 min), functions/v1 + AI (against actix-web, Deno and llama.cpp's server,
## ~30 min), the app's page loads (Chromium, ~2 min), realtime/v1 (against a Node ws
## server, ~5 min) and storage/v1 (against nginx, dd and libvips, ~6 min) benchmarks;
## results in bench/results/.
bench:
	bench/run.sh
	bench/auth.sh
	bench/ai.sh
	bench/pages.sh
	bench/realtime.sh
	bench/storage.sh

## bench-realtime: broadcast fan-out, idle sockets, joins, presence and postgres_changes
## (~5 min); results in bench/results/realtime-latest.*
bench-realtime:
	bench/realtime.sh

## bench-storage: storage/v1 downloads against nginx, uploads against dd, 1 KiB reads, RSS while
## 1 GiB streams, image transformations against libvips (~6 min); results in
## bench/results/storage-latest.*
bench-storage:
	bench/storage.sh

## bench-pages: /dashboard, /courses, /schedule and /calendar in Chromium on the seeded demo
## (~2 min); results in bench/results/pages-latest.*
bench-pages:
	bench/pages.sh

## bench-ai: the function host and generation with the default model (~30 min);
## results in bench/results/ai-latest.*
bench-ai:
	bench/ai.sh

## lint: rustfmt and clippy, shellcheck on every shell script, ruff on the benchmark harness.
lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --locked -- -D warnings
	shellcheck -x $(SHELL_SCRIPTS)
	python3 -m ruff check bench

## test-bench: the benchmark harness's parsing, ratio and target arithmetic (no servers started).
test-bench:
	cd bench && python3 -m unittest discover -s cielo_bench/tests -t .
	node --test bench/pages/report.test.mjs bench/pages/planner-report.test.mjs

test-rust:
	cargo test --workspace --locked

# Policies and constraints of the data model, per table and role (pgTAP; sql/tests/).
test-sql:
	cargo build --locked --bin cielo
	scripts/test-sql.sh

test-frontend:
	cd frontend && npm run lint && npm run typecheck && npm test && npm run build

## types: regenerate frontend/src/lib/database.types.ts from sql/migrations (cielo migrate and
## cielo gen types typescript on a throwaway embedded cluster; the API tests check it).
types:
	cargo build --locked --bin cielo
	dir="$(abspath $(CARGO_TARGET_DIR))/tmp/cielo-types"; rm -rf "$$dir"; trap 'rm -rf "$$dir"' EXIT; \
	  export DATABASE_URL= DATA_DIR="$$dir" DB_PORT=54329; \
	  $(CARGO_TARGET_DIR)/debug/cielo migrate; \
	  $(CARGO_TARGET_DIR)/debug/cielo gen types typescript > "$$dir/database.types.ts"; \
	  mv "$$dir/database.types.ts" frontend/src/lib/database.types.ts

# The Node suites run the debug binary that test-rust built.
test-conformance:
	cargo build --locked --bin cielo
	@scripts/npm-install.sh functions/runtime
	cd gateway/tests/conformance && npm test

# The browser tests reuse the conformance harness (and its `pg`).
test-e2e: web
	cargo build --locked --bin cielo
	@scripts/npm-install.sh gateway/tests/conformance
	cd frontend && npm run e2e

# There is no container engine here: validate compose.yaml against the Compose spec.
check-compose:
	POSTGRES_PASSWORD=check JWT_SECRET=compose-check-secret-with-32-characters \
	  docker-compose -f compose.yaml config --quiet
	@echo "compose.yaml is valid."

## bench-auth: auth/v1 against bcrypt and pgbench (~3 min); results in bench/results/auth-latest.*
bench-auth:
	bench/auth.sh

## oracle-functions-js: the official functions-js suite against the gateway (fetched, never committed)
oracle-functions-js:
	cargo build --locked --bin cielo
	scripts/oracle/functions-js.sh

## oracle-storage-js: the official storage-js suite against the gateway (fetched, never committed)
oracle-storage-js:
	cargo build --locked --bin cielo
	scripts/oracle/storage-js.sh

## oracle-auth-js: the official auth-js suite against the gateway (fetched, never committed)
oracle-auth-js:
	cargo build --locked --bin cielo
	scripts/oracle/auth-js.sh

## oracle-supabase-js-integration: the official supabase-js cross-service integration test
## (rest, auth, realtime, storage) against the gateway (fetched, never committed)
oracle-supabase-js-integration:
	cargo build --locked --bin cielo
	scripts/oracle/supabase-js-integration.sh

fmt:
	cargo fmt --all

clean:
	cargo clean
	rm -rf frontend/dist frontend/e2e/artifacts

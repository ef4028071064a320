# Seckill Lab. `make demo` and `make test` work on a fresh Debian machine with
# Go, as root: they install and start the services they need first.
SHELL := /bin/bash
GO ?= go
BIN := bin

.PHONY: help web browser-test demo lessons test test-quick build vet services-up services-down services-status services-test compose-test bench bench-queue bench-timeline chaos matrix interview e2e clean

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  make %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

demo: services-up build ## start the shop and print the dashboard URL
	$(BIN)/shop demo

web: ## dashboard: npm ci in web/ and copy uPlot into the embedded folder
	bash scripts/browser.sh web

build: web ## build the binaries into bin/
	$(GO) build -o $(BIN)/shop ./cmd/shop
	$(GO) build -o $(BIN)/loadtest ./loadtest

services-up: ## install (Debian packages) and start MariaDB, Redis x4 + Sentinel set, ZooKeeper (one + an ensemble of 3), etcd under .run/
	bash scripts/services.sh up

services-down: ## stop what services-up started (data stays in .run/)
	bash scripts/services.sh down

services-status: ## one line per service: up or down
	bash scripts/services.sh status

services-test: ## services.sh from cold on a private set of ports and data (never the demo's)
	bash scripts/services_test.sh

compose-test: ## docker-compose.yml and Dockerfile checked with `docker-compose config` (no engine runs here)
	bash scripts/compose_test.sh

vet: ## gofmt and go vet must be clean
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	$(GO) vet $(VETFLAGS) ./...

# Every package runs under -race; CI=true makes a missing service a failure,
# never a skip. scripts/test.sh runs the independent parts side by side and
# prints each step's time and the slowest tests.
test: ## everything CI runs: services, vet, go test -race, services/compose/browser tests
	bash scripts/test.sh

# -short: internal/testenv skips every test that needs a service, a built
# binary or a child process, so only pure logic runs (seconds, no services).
test-quick: ## unit tests of pure logic, no services, no -race (the edit-run loop)
	$(GO) test -short -count=1 ./...

browser-test: services-up ## the dashboard in Debian's chromium against a shop demo
	bash scripts/browser.sh test

e2e: services-up ## the tests that start real shop and loadtest processes
	$(GO) test -race -count=1 ./e2e/...

# Every lock strategy plus redsync-defaults and a pub/sub lock as peers, 1/16/64
# contenders, 0 and 1 ms critical sections, one Markdown table (~2-3 min;
# SECKILL_BENCH_WINDOW sets each case's window, default 2s). Then the seeds'
# claims over SECKILL_CLAIMS_ROUNDS rounds (default 5, ~2 min), each verdict
# judged with the rounds' spread, the database's own TPS beside them. Then what one
# order sends to the database and Redis on every strategy, and the DB
# strategies through the order flow: orders/s and p99 on a sale of 1,000, a
# minimal shop (UPDATE ... WHERE stock > 0 + INSERT) beside them; then
# the whole stack: loadtest against a 3-replica demo, with each strategy's
# ratio to its physical limit, and loadtest's own ceiling against wrk; then
# the orders through a queue (scripts/bench_queue.sh) on the same demo.
bench: services-up ## benchmarks (not part of make test)
	$(GO) test -run '^$$' -bench 'BenchmarkContention$$' -benchtime 1x ./internal/lockstrategy/
	$(GO) test -run '^$$' -bench 'BenchmarkClaims$$' -benchtime 1x -timeout 30m ./internal/lockstrategy/ # the seeds' claims over 5 rounds, judged with their spread
	$(GO) test -run '^$$' -bench BenchmarkContentionProcesses -benchtime 1x -count 3 ./internal/lockstrategy/ # redis-2level's target: 64 contenders over 3 processes
	$(GO) test -run '^$$' -bench BenchmarkOrderRoundTrips -benchtime 1x ./internal/order/ # one order's SQL statements, transactions and Redis commands per strategy
	$(GO) test -run '^$$' -bench BenchmarkSale -benchtime 1x ./internal/order/ # with the minimal shop (UPDATE ... WHERE stock > 0 + INSERT) beside db-conditional
	bash scripts/bench.sh # loadtest --strategy all, the flash sale (herd, sold-out answer, loadtest vs wrk), the queue targets, on a 3-replica demo; bench/results/*.md|json

# TestScenarios with SECKILL_LESSONS=all: every lesson of the catalogue at
# test pace, on two pairs of replicas of its own (~5 min). make test runs all
# but the lessons that time a cost (herds; loadtest/scenario_test.go's
# costLessons).
lessons: services-up ## every lesson of the catalogue, each must PASS (make test leaves out the herds that time a cost)
	SECKILL_LESSONS=all $(GO) test -race -count=1 -run '^TestScenarios$$' -timeout 30m -v ./loadtest/

bench-queue: services-up ## only the queue targets of make bench (accepted/s, confirmed/s, 202->confirmed p99), on a demo of their own
	bash scripts/bench_queue.sh

# The timeline view's frames per second while panning a generated
# 20,000-section sale in headless chromium (the issue's target: >= 30), on
# the browser tests' fixture server: no services, no demo.
bench-timeline: ## the timeline view's frames/s while panning 20,000 sections (headless chromium, fixtures)
	bash scripts/browser.sh npm
	cd e2e/browser && node bench-timeline.mjs

# A Jepsen-style run (loadtest chaos): 3 replicas of its own behind TCP
# proxies, buyers on every safe strategy, a seeded random schedule of every
# fault; the database checked at the end. It restarts the Redis nodes of
# services-up: do not run it beside a demo you are showing. CHAOS_FLAGS adds
# flags, e.g. CHAOS_FLAGS="--seed 42" to replay a schedule.
CHAOS_DURATION ?= 10m
# The zookeeper strategy runs on the three-server ensemble, whose servers the
# run kills (kill_zk_server); redis-sentinel on services-up's Sentinel set,
# whose master it crashes (kill_redis_master).
chaos: build ## 10-minute chaos run: random seeded faults, every safe strategy checked against the database
	bash scripts/services.sh up
	@mkdir -p .run/chaos
	set -o pipefail; $(BIN)/loadtest chaos --duration $(CHAOS_DURATION) --log-dir .run/chaos \
		--zk-servers "$${SECKILL_ZK_ENSEMBLE_SERVERS:-127.0.0.1:12191,127.0.0.1:12192,127.0.0.1:12193}" --zk-ensemble \
		$(CHAOS_FLAGS) | tee .run/chaos/last-run.txt

# The interview path (loadtest interview) on make demo's three replicas,
# which must be running (make demo, in another terminal): the lessons (on
# the demo's agents) and matrix cells whose figures were never measured on
# this machine run first (a few minutes the first time, nothing after), then
# the path is written as one self-contained page: .run/interview.html.
interview: build ## the interview path measured on make demo's running replicas, written to .run/interview.html
	@mkdir -p .run
	$(BIN)/loadtest interview --targets $(MATRIX_TARGETS) --html .run/interview.html

# The verdict matrix (loadtest matrix) on make demo's three replicas, which
# must be running (make demo, in another terminal): every strategy
# configuration against every fault, each cell beside its prediction, saved
# on the demo (the dashboard's #/matrix) and written to .run/matrix/ (the
# report as JSON, and as one self-contained page: matrix.html).
# kill_process and kill_consumer strike a replica the matrix starts itself
# from bin/shop. MATRIX_FLAGS adds flags: --quick (one configuration per
# strategy), --only ROW/FAULT --seed N (replay one cell).
MATRIX_TARGETS ?= http://127.0.0.1:8080,http://127.0.0.1:8081,http://127.0.0.1:8082
matrix: build ## the verdict matrix on make demo's running replicas (MATRIX_FLAGS=--quick for one configuration per strategy)
	@mkdir -p .run/matrix
	set -o pipefail; $(BIN)/loadtest matrix --targets $(MATRIX_TARGETS) --log-dir .run/matrix \
		--json .run/matrix/matrix.json --html .run/matrix/matrix.html $(MATRIX_FLAGS) | tee .run/matrix/last-run.txt

clean: ## remove bin/ and the copied chart library
	rm -rf $(BIN) web/static/assets/vendor

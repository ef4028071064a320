#!/usr/bin/env bash
# make bench, load part: every strategy through a local 3-replica demo.
#
#   1. build bin/shop and bin/loadtest; start `shop demo --replicas 3
#      --agents 0` on a free base port (SECKILL_BENCH_ADDR, default
#      127.0.0.1:18280), wait for the three /healthz;
#   2. the load tool's ceiling: `loadtest rate` and wrk against GET /healthz
#      of one replica, same connections and duration, one after the other;
#   3. an uncontended calibration run (concurrency 1, work-ms 0), kept on
#      record, then the contended run
#      (loadtest run --strategy all --stock 100 --buyers 2000 --concurrency 64
#      --work-ms 5);
#   4. loadtest bench-report: fetches each sale's server-side figures
#      (/api/sales/{id}/live) and writes bench/results/<stamp>.json and .md
#      with the machine's facts and each strategy's throughput against its
#      physical limit 1/(mean hold + mean hand-over), from its sections;
#   5. scripts/bench_herd.sh appends the flash sale: loadtest against wrk
#      on an order endpoint, each strategy's sold-out answer against the
#      /healthz ceiling, and the herd (--opens-in) strategy x guard;
#   6. scripts/bench_queue.sh appends the orders through a queue: accepted
#      (202) req/s against the sold-out answer on the same replicas (the
#      herd's and wrk's, alternated) and the /healthz ceiling, confirmed orders/s
#      against the best lock strategy at the same work_ms, and the
#      202-to-confirmed p99 at 1x, 10x and 100x oversubscription
#      (bench/results/<stamp>.queue.json);
#   7. scripts/bench_selling.sh appends the selling phase of one replica
#      (db-conditional, db-optimistic) against loadtest/minishop, wrk -c64;
#   8. scripts/bench_combine.sh appends the herd on each safe lock
#      strategy without and with combining;
#   9. scripts/bench_split.sh appends the herd on db-conditional and
#      redis-lua-stock with the stock in 1 shard and in 8 (stock_shards),
#      alternated rounds, medians.
#
# The demo is stopped with SIGINT on any exit (trap). ~5-6 minutes.
# Needs the services up (make services-up). Exit: loadtest run's code (1 when
# a strategy meant to be safe broke), or 1 when the setup failed.
set -euo pipefail
cd "$(dirname "$0")/.."

ADDR=${SECKILL_BENCH_ADDR:-127.0.0.1:18280}
HOST=${ADDR%:*}
PORT=${ADDR##*:}
RATE_SECONDS=${SECKILL_BENCH_RATE_SECONDS:-10}
OUT=bench/results
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
JSON=$OUT/$STAMP.json
MD=$OUT/$STAMP.md
WORK=$OUT/$STAMP.tmp
mkdir -p "$OUT/logs" "$WORK"

# shellcheck source=scripts/bench_demo.sh
. scripts/bench_demo.sh
# The scratch files go too: what a failure needs (the demo's output, the
# calibration's stderr) is printed before exiting.
trap 'bench_demo_stop; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
bench_demo_start "$ADDR" "$WORK" "$OUT/logs"

# Machine facts, as Markdown bullets, before the load.
ver() { "$@" 2>/dev/null | head -n1 || true; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "- CPUs (nproc): $(nproc)"
	echo "- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
	echo "- memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
	echo "- kernel: $(uname -sr)"
	echo "- go: $(go version | cut -d' ' -f3-)"
	echo "- MariaDB: $(ver mariadb --version || ver mysql --version)"
	echo "- Redis: $(ver redis-server --version)"
	zk=$(dpkg-query -W -f='${Version}' zookeeper 2>/dev/null || true)
	echo "- ZooKeeper: ${zk:-unknown} (Debian package)"
	echo "- load average (1/5/15 min) before: $load_before"
} >"$WORK/facts.md"

# The load tool's ceiling against the cheapest endpoint, and wrk's, in the
# same run: if the shop answers faster than loadtest can ask, loadtest is
# the bottleneck of any figure above that rate.
HEALTH="http://$HOST:$PORT/healthz"
lt_rate=$(bin/loadtest rate --url "$HEALTH" --duration "${RATE_SECONDS}s" --concurrency 64)
echo "$lt_rate" >&2
bench_tools
bench_wrk_ceiling "$HEALTH" "$RATE_SECONDS"
echo "$wrk_line" >&2

set +e
bin/loadtest run --targets "$TARGETS" --strategy all --stock 200 --buyers 200 --concurrency 1 --work-ms 0 \
	--json "$WORK/calib.json" >"$WORK/calib.out" 2>"$WORK/calib.err"
calib_code=$?
bin/loadtest run --targets "$TARGETS" --strategy all --stock 100 --buyers 2000 --concurrency 64 --work-ms 5 \
	--json "$JSON"
run_code=$?
set -e
if [ ! -s "$WORK/calib.json" ] || [ ! -s "$JSON" ]; then
	echo "bench: a run wrote no JSON (calibration exit $calib_code, run exit $run_code)" >&2
	cat "$WORK/calib.err" >&2
	exit 1
fi

{
	echo "- load average (1/5/15 min) after: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "Load tool ceiling, GET /healthz of one replica, 64 connections, same run:"
	echo
	echo "- $lt_rate"
	echo "- $wrk_line"
} >>"$WORK/facts.md"

bin/loadtest bench-report --calib "$WORK/calib.json" --run "$JSON" --facts "$WORK/facts.md" --out-md "$MD" >/dev/null

# bench_part NAME SCRIPT: runs one part of the bench on the demo (its
# environment: BENCH_* below), appends its Markdown to the report, and
# keeps the first failure as the run's exit code.
bench_part() {
	local code=0
	BENCH_TARGETS=$TARGETS BENCH_CEILING=${wrk_rate:-} BENCH_WORK=$WORK BENCH_SECONDS=${SECKILL_BENCH_HERD_SECONDS:-5} \
		BENCH_JSON=$OUT/$STAMP.$1.json bash "$2" >"$WORK/$1.md" || code=$?
	cat "$WORK/$1.md" >>"$MD"
	[ "$run_code" = 0 ] && run_code=$code
	return 0
}
bench_part herd scripts/bench_herd.sh       # the load tool against wrk, the sold-out answer, the herd
bench_part selling scripts/bench_selling.sh # one replica's selling phase against a minimal Go shop
bench_part combine scripts/bench_combine.sh # the herd, one lock per order against one per batch
bench_part split scripts/bench_split.sh     # the herd, one hot row against the stock in 8 shards
# Orders through the queue: accepted/s against the sold-out answer (and the
# same ceiling), confirmed/s
# against the lock strategies, 202-to-confirmed p99 by oversubscription
# (its JSON: bench/results/<stamp>.queue.json).
bench_part queue scripts/bench_queue.sh
bench_demo_stop
cp "$WORK/calib.json" "$OUT/$STAMP.calib.json"
echo "bench: wrote $MD and $JSON" >&2
cat "$MD"
exit "$run_code"

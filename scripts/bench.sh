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
#      /healthz ceiling, and the herd (--opens-in) strategy x guard.
#
# The demo is stopped with SIGINT on any exit (trap). ~4-5 minutes.
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

for p in "$PORT" $((PORT + 1)) $((PORT + 2)); do
	if (exec 3<>"/dev/tcp/$HOST/$p") 2>/dev/null; then
		echo "bench: $HOST:$p is taken; set SECKILL_BENCH_ADDR=host:port (3 consecutive free ports)" >&2
		exit 1
	fi
done

go build -o bin/shop ./cmd/shop
go build -o bin/loadtest ./loadtest

DEMO_PID=
stop_demo() {
	if [ -n "$DEMO_PID" ] && kill -0 "$DEMO_PID" 2>/dev/null; then
		kill -INT "$DEMO_PID" 2>/dev/null || true
		for _ in $(seq 1 100); do kill -0 "$DEMO_PID" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$DEMO_PID" 2>/dev/null && kill -KILL "$DEMO_PID" 2>/dev/null || true
	fi
	DEMO_PID=
}
# The scratch files go too: what a failure needs (the demo's output, the
# calibration's stderr) is printed before exiting.
trap 'stop_demo; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM

SECKILL_HTTP_ADDR=$ADDR bin/shop demo --replicas 3 --agents 0 -log-dir "$OUT/logs" >"$WORK/demo.out" 2>&1 &
DEMO_PID=$!

TARGETS=
for i in 0 1 2; do
	url="http://$HOST:$((PORT + i))"
	TARGETS+="${TARGETS:+,}$url"
	for _ in $(seq 1 300); do
		curl -fsS -o /dev/null "$url/healthz" 2>/dev/null && break
		kill -0 "$DEMO_PID" 2>/dev/null || { echo "bench: the demo exited:" >&2; cat "$WORK/demo.out" >&2; exit 1; }
		sleep 0.1
	done
	curl -fsS -o /dev/null "$url/healthz" || { echo "bench: $url/healthz never answered" >&2; cat "$WORK/demo.out" >&2; exit 1; }
done
echo "bench: 3 replicas up: $TARGETS" >&2

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
# wrk: the peer we compare with; jq: the flash-sale tables read the runs' JSON.
# Both Debian packages.
for tool in wrk jq; do
	if ! command -v "$tool" >/dev/null && [ "$(id -u)" = 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$tool" >/dev/null 2>&1 ||
			{ apt-get update >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$tool" >/dev/null 2>&1; } || true
	fi
done
if command -v wrk >/dev/null; then
	wrk_out=$(wrk -t2 -c64 -d"${RATE_SECONDS}s" --latency "$HEALTH")
	wrk_rate=$(awk '/Requests\/sec/ {print $2}' <<<"$wrk_out")
	wrk_p50=$(awk '$1 == "50%" {print $2}' <<<"$wrk_out")
	wrk_p99=$(awk '$1 == "99%" {print $2}' <<<"$wrk_out")
	wrk_errs=$(grep -E 'Socket errors|Non-2xx' <<<"$wrk_out" | tr '\n' ' ' || true)
	wrk_line="wrk -t2 -c64 -d${RATE_SECONDS}s: ${wrk_rate} req/s; latency p50 ${wrk_p50} p99 ${wrk_p99} ${wrk_errs}"
else
	wrk_line="wrk: not installed (apt-get install wrk)"
fi
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

# The flash sale: the load tool against wrk, the sold-out answer, the herd.
set +e
BENCH_TARGETS=$TARGETS BENCH_CEILING=${wrk_rate:-} BENCH_WORK=$WORK BENCH_SECONDS=${SECKILL_BENCH_HERD_SECONDS:-5} \
	bash scripts/bench_herd.sh >"$WORK/herd.md"
herd_code=$?
set -e
cat "$WORK/herd.md" >>"$MD"
[ "$run_code" = 0 ] && run_code=$herd_code
stop_demo
cp "$WORK/calib.json" "$OUT/$STAMP.calib.json"
echo "bench: wrote $MD and $JSON" >&2
cat "$MD"
exit "$run_code"

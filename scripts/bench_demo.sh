#!/usr/bin/env bash
# Sourced by the bench scripts: the 3-replica demo they measure, and wrk's
# /healthz ceiling. Not run on its own.
#
#   bench_demo_start ADDR WORK LOGDIR  builds bin/shop and bin/loadtest,
#       starts `shop demo --replicas 3 --agents 0` on ADDR (host:port, three
#       consecutive free ports), waits for the three /healthz; sets DEMO_PID
#       and TARGETS (comma-separated base URLs). Exits 1 on failure, with the
#       demo's output.
#   bench_demo_stop  SIGINT, then SIGKILL after 10 s; safe to call twice.
#   bench_tools      installs wrk and jq (Debian packages) when missing and root.
#   bench_wrk_ceiling URL SECONDS  wrk -t2 -c64 GET URL; sets wrk_rate ("" when
#       wrk is missing) and wrk_line (one line for people).

DEMO_PID=

bench_demo_start() {
	local addr=$1 work=$2 logdir=$3 host port p url i
	host=${addr%:*}
	port=${addr##*:}
	for p in "$port" $((port + 1)) $((port + 2)); do
		if (exec 3<>"/dev/tcp/$host/$p") 2>/dev/null; then
			echo "bench: $host:$p is taken; set SECKILL_BENCH_ADDR=host:port (3 consecutive free ports)" >&2
			exit 1
		fi
	done
	go build -o bin/shop ./cmd/shop
	go build -o bin/loadtest ./loadtest
	# SECKILL_ORDER_RATE_IP=0: every buyer and the ticket checks come from this
	# machine; the bench measures the queue, not the per-IP limit of the order routes.
	SECKILL_ORDER_RATE_IP=0 SECKILL_HTTP_ADDR=$addr bin/shop demo --replicas 3 --agents 0 -log-dir "$logdir" >"$work/demo.out" 2>&1 &
	DEMO_PID=$!
	TARGETS=
	for i in 0 1 2; do
		url="http://$host:$((port + i))"
		TARGETS+="${TARGETS:+,}$url"
		for _ in $(seq 1 300); do
			curl -fsS -o /dev/null "$url/healthz" 2>/dev/null && break
			kill -0 "$DEMO_PID" 2>/dev/null || { echo "bench: the demo exited:" >&2; cat "$work/demo.out" >&2; exit 1; }
			sleep 0.1
		done
		curl -fsS -o /dev/null "$url/healthz" || { echo "bench: $url/healthz never answered" >&2; cat "$work/demo.out" >&2; exit 1; }
	done
	echo "bench: 3 replicas up: $TARGETS" >&2
}

bench_demo_stop() {
	if [ -n "$DEMO_PID" ] && kill -0 "$DEMO_PID" 2>/dev/null; then
		kill -INT "$DEMO_PID" 2>/dev/null || true
		for _ in $(seq 1 100); do kill -0 "$DEMO_PID" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$DEMO_PID" 2>/dev/null && kill -KILL "$DEMO_PID" 2>/dev/null || true
	fi
	DEMO_PID=
}

# wrk: the peer the load tool is compared with; jq: the tables read the
# runs' JSON. Both Debian packages.
bench_tools() {
	local tool
	for tool in wrk jq; do
		if ! command -v "$tool" >/dev/null && [ "$(id -u)" = 0 ]; then
			DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$tool" >/dev/null 2>&1 ||
				{ apt-get update >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$tool" >/dev/null 2>&1; } || true
		fi
	done
}

bench_wrk_ceiling() {
	local url=$1 secs=$2 out p50 p99 errs
	wrk_rate=
	if ! command -v wrk >/dev/null; then
		wrk_line="wrk: not installed (apt-get install wrk)"
		return
	fi
	out=$(wrk -t2 -c64 -d"${secs}s" --latency "$url")
	wrk_rate=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
	p50=$(awk '$1 == "50%" {print $2}' <<<"$out")
	p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
	errs=$(grep -E 'Socket errors|Non-2xx' <<<"$out" | tr '\n' ' ' || true)
	wrk_line="wrk -t2 -c64 -d${secs}s: ${wrk_rate} req/s; latency p50 ${p50} p99 ${p99} ${errs}"
}

#!/usr/bin/env bash
# make bench, flash-sale part (called by scripts/bench.sh on its running
# 3-replica demo; prints Markdown on stdout, progress on stderr):
#
#   1. loadtest against wrk on the order endpoint of a sold-out
#      redis-lua-stock sale of one replica, 64 connections, alternated
#      twice (the machine is shared: one run each would measure its noise);
#   2. each available strategy's sold-out answer: a sale of 1 unit, bought,
#      then wrk POSTing orders to it, against the /healthz ceiling;
#   3. the herd: loadtest run --opens-in for redis, db-conditional,
#      redis-lua-stock and db-pessimistic, x guard: none (sold-out cache
#      off), the sold-out cache, the cache and a per-IP rate limit (every
#      buyer comes from this host's address: a cap on the whole herd).
#
# Environment: BENCH_TARGETS (comma-separated base URLs, the first one is
# measured alone), BENCH_CEILING (wrk's /healthz req/s, "" when unknown),
# BENCH_WORK (scratch directory), BENCH_SECONDS (per loadtest/wrk round);
# SECKILL_BENCH_HERD_BUYERS (2000), SECKILL_BENCH_SOLD_OUT_SECONDS (3).
# Exit: 1 when a herd run failed (a safe strategy broke, or the run could
# not be made), else 0.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v jq >/dev/null || { echo "bench: jq is needed for the flash-sale tables (apt-get install jq)" >&2; exit 1; }

IFS=, read -r -a targets <<<"$BENCH_TARGETS"
R0=${targets[0]}
CEIL=${BENCH_CEILING:-}
WORK=$BENCH_WORK
SECS=${BENCH_SECONDS:-5}
HERD_BUYERS=${SECKILL_BENCH_HERD_BUYERS:-2000}
SOLD_SECS=${SECKILL_BENCH_SOLD_OUT_SECONDS:-3}
auth=()
[ -n "${SECKILL_ADMIN_TOKEN:-}" ] && auth=(-H "Authorization: Bearer $SECKILL_ADMIN_TOKEN")

# ratio a b: a/b to 2 decimals, "n/a" without b.
ratio() { if [ -n "$2" ] && [ "$2" != 0 ]; then awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; else echo n/a; fi; }

# soldout_sale STRATEGY: a sale of one unit, bought, then asked once more:
# that answer reads stock 0 and sets the replica's sold-out cache, so what
# follows measures the sold-out answer, not the race to learn it. Its id.
soldout_sale() {
	local id
	id=$(curl -fsS "${auth[@]}" -H 'Content-Type: application/json' -X POST "$R0/api/sales" \
		-d "{\"name\":\"bench sold out $1\",\"strategy\":\"$1\",\"stock\":1,\"work_ms\":0}" | jq -r .id)
	for user in bench-first bench-second; do
		curl -sS -o /dev/null -H 'Content-Type: application/json' -X POST "$R0/api/sales/$id/orders" -d "{\"user_id\":\"$user\"}"
	done
	echo "$id"
}

cat >"$WORK/post.lua" <<'EOF'
wrk.method = "POST"
wrk.body = '{"user_id":"wrk-buyer"}'
wrk.headers["Content-Type"] = "application/json"
EOF

# wrk_post SECONDS URL: "req/s p99" of wrk POSTing orders to URL (p99 in ms).
wrk_post() {
	wrk -t2 -c64 -d"${1}s" --latency -s "$WORK/post.lua" "$2" | awk '
		/Requests\/sec/ {rate = $2}
		$1 == "99%" {v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
			p99 = (u == "us") ? v / 1000 : (u == "s") ? v * 1000 : v}
		END {printf "%s %.2f\n", rate, p99}'
}

if ! command -v wrk >/dev/null; then
	echo "## Flash sale"
	echo
	echo "wrk is not installed (apt-get install wrk): no load tool comparison, no sold-out throughput."
	echo
else
# 1. The load tool against wrk, same kind of endpoint, same connections.
echo "bench: loadtest against wrk on a sold-out order endpoint" >&2
sale=$(soldout_sale redis-lua-stock)
wrk_sum=0 lt_sum=0 rows=""
for k in 1 2; do
	read -r w _ < <(wrk_post "$SECS" "$R0/api/sales/$sale/orders")
	bin/loadtest run --targets "$R0" --strategy redis-lua-stock --stock 1 --buyers 100000000 --duration "${SECS}s" \
		--concurrency 64 --work-ms 0 --json "$WORK/lt-$k.json" >/dev/null 2>&1 || true
	l=$(jq -r '.results[0].requests_per_s // 0' "$WORK/lt-$k.json" 2>/dev/null || echo 0)
	rows+="| $k | $(printf %.0f "$l") | $(printf %.0f "$w") | $(ratio "$l" "$w") |"$'\n'
	wrk_sum=$(awk -v a="$wrk_sum" -v b="$w" 'BEGIN {print a + b}')
	lt_sum=$(awk -v a="$lt_sum" -v b="$l" 'BEGIN {print a + b}')
done
echo "## Flash sale: the load tool against wrk"
echo
echo "POST orders to a sold-out \`redis-lua-stock\` sale of one replica ($R0), 64 connections, ${SECS} s each, alternated:"
echo "\`loadtest run --concurrency 64 --duration ${SECS}s\` against \`wrk -t2 -c64\` with a Lua POST script. Target: >= 0.8."
echo
echo "| round | loadtest req/s | wrk req/s | ratio |"
echo "|--:|--:|--:|--:|"
printf %s "$rows"
echo "| both | $(printf %.0f "$lt_sum") | $(printf %.0f "$wrk_sum") | **$(ratio "$lt_sum" "$wrk_sum")** |"
echo

# 2. Every strategy's sold-out answer against the ceiling.
echo "bench: sold-out throughput per strategy" >&2
# /healthz pings the database on every request; GET /api/limits answers
# constants: the HTTP ceiling without any backend, measured too.
static=$(wrk -t2 -c64 -d"${SOLD_SECS}s" "$R0/api/limits" | awk '/Requests\/sec/ {print $2}')
echo "## Flash sale: the sold-out answer per strategy"
echo
echo "A sale of 1 unit, bought, then \`wrk -t2 -c64 -d${SOLD_SECS}s\` POSTing orders to it on one replica (sold-out cache on,"
echo "the default). Ceilings: wrk's GET /healthz in the same run (${CEIL:-unknown} req/s; it pings the database each time)"
echo "and GET /api/limits (${static:-unknown} req/s; constants, no backend). Targets: ratio to /healthz >= 0.7, p99 <= 5 ms."
echo
echo "| strategy | sold-out req/s | ratio to /healthz | ratio to /api/limits | p99 ms | targets |"
echo "|---|--:|--:|--:|--:|---|"
for st in $(curl -fsS "$R0/api/strategies" | jq -r '.[] | select(.available) | .name'); do
	sale=$(soldout_sale "$st")
	read -r w p99 < <(wrk_post "$SOLD_SECS" "$R0/api/sales/$sale/orders")
	r=$(ratio "$w" "$CEIL")
	met=$(awk -v r="$r" -v p="$p99" 'BEGIN {print ((r == "n/a" || r >= 0.7) && p <= 5) ? "met" : "**missed**"}')
	echo "| \`$st\` | $(printf %.0f "$w") | $r | $(ratio "$w" "$static") | $p99 | $met |"
done
echo
fi

# 3. The herd, strategy x guard.
echo "## Flash sale: the herd"
echo
echo "\`loadtest run --opens-in 2s --stock 100 --buyers $HERD_BUYERS --max-in-flight 256 --work-ms 1\` over the 3 replicas:"
echo "every buyer is due at the opening. req/s: answers / (opening to last answer); ratio: to the /healthz ceiling of"
echo "one replica (the 3 replicas share the same 2 cores). Latency from the opening; the first second's from the send."
echo "Sell-out: opening to the last order. Layers: who answered (Seckill-Layer)."
echo
echo "| strategy | guard | req/s | ratio | p50 ms | p99 ms | 1st s answers | 1st s p99 ms | sell-out s | answers per layer | oversold / duplicates | verdict |"
echo "|---|---|--:|--:|--:|--:|--:|--:|--:|---|--:|---|"
code=0
for guard in none cache cache+rate; do
	case $guard in
	none) flags=(--sold-out-cache=false) label="none" ;;
	cache) flags=() label="sold-out cache" ;;
	cache+rate) flags=(--rate-limit-ip 500) label="cache + 500/s per IP" ;;
	esac
	echo "bench: herd, guard: $label" >&2
	json="$WORK/herd-$guard.json"
	bin/loadtest run --targets "$BENCH_TARGETS" --strategy redis,db-conditional,redis-lua-stock,db-pessimistic \
		--opens-in 2s --stock 100 --buyers "$HERD_BUYERS" --max-in-flight 256 --work-ms 1 "${flags[@]}" \
		--json "$json" >"$WORK/herd-$guard.out" 2>"$WORK/herd-$guard.err" || code=1
	[ -s "$json" ] || { echo "| (all) | $label | run failed: $(tail -n1 "$WORK/herd-$guard.err") |"; continue; }
	jq -r --arg g "$label" --arg ceil "${CEIL:-0}" '.results[] |
		"| `\(.strategy)` | \($g) | \(.requests_per_s | round) | " +
		(if ($ceil | tonumber) > 0 then "\(.requests_per_s / ($ceil | tonumber) * 100 | round / 100)" else "n/a" end) +
		" | \(.latency_ms.p50 | round) | \(.latency_ms.p99 | round) | \(.herd.first_second.requests // "-") | " +
		"\(.herd.first_second.latency_ms.p99 // 0 | round) | \(.herd.sell_out_s // "-") | " +
		"\(.layers | to_entries | map("\(.key) \(.value)") | join(", ")) | " +
		"\(.sale.oversold // "?") / \(.sale.duplicates // "?") | \(.verdict) |"' "$json"
done
echo
exit "$code"

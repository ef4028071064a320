#!/usr/bin/env bash
# make bench, orders through a queue (called by scripts/bench.sh on its
# running 3-replica demo; prints Markdown on stdout, progress on stderr).
# All in one run, side by side, on async redis-lua-stock sales:
#
#   1. accepted (202) req/s at the herd: `loadtest run --order-mode async
#      --opens-in 2s` with as many units as buyers (every buyer gets a 202),
#      against the sold-out answer of the same herd on the same replicas (a
#      sync sale of 1 unit: every other buyer hears sold_out), 3 alternated
#      rounds, medians (target >= 0.7x); and against wrk's /healthz ceiling
#      of the same run. Then the same without the load tool: wrk POSTing to
#      an async sale of one replica against wrk POSTing to a sold-out one,
#      3 alternated rounds, medians, judged against 0.7x too (the herd's
#      sold-out answers come as fast as the load tool fires them);
#   2. confirmed orders/s of that sale (first 202 to last confirmation)
#      against the best orders/s of the lock strategies redis, redlock,
#      zookeeper and db-pessimistic (those available), same herd, same
#      work_ms (target >= 5x);
#   3. 202-to-confirmed p50/p99 at 1x, 10x and 100x oversubscription
#      (buyers = stock x factor).
#
# Every async run waits for its queue to drain and checks every ticket:
# a lost or unsettled ticket, a drift, or an oversell fails it.
#
# Environment: BENCH_TARGETS (comma-separated base URLs), BENCH_CEILING
# (wrk's /healthz req/s of one replica, "" when unknown), BENCH_WORK
# (scratch directory), BENCH_JSON (where the runs' JSON go, one document);
# SECKILL_BENCH_QUEUE_BUYERS (5000: the accepted/confirmed sale),
# SECKILL_BENCH_QUEUE_LOCK_STOCK (400: each lock strategy's sale),
# SECKILL_BENCH_QUEUE_STOCK (100: the oversubscription sales' stock),
# SECKILL_BENCH_QUEUE_WORK_MS (5).
#
# Without BENCH_TARGETS it runs alone (make bench-queue): it starts its own
# demo (SECKILL_BENCH_ADDR), measures the ceiling, and writes
# bench/results/<stamp>.queue.md and .queue.json.
# Exit: 1 when a run failed (a ticket lost or unsettled, drift, oversold,
# or the run could not be made), else 0. A missed target is reported, not
# an exit code.
set -euo pipefail
cd "$(dirname "$0")/.."

BUYERS=${SECKILL_BENCH_QUEUE_BUYERS:-5000}
LOCK_STOCK=${SECKILL_BENCH_QUEUE_LOCK_STOCK:-400}
STOCK=${SECKILL_BENCH_QUEUE_STOCK:-100}
WORK_MS=${SECKILL_BENCH_QUEUE_WORK_MS:-5}

if [ -z "${BENCH_TARGETS:-}" ]; then
	# Alone: the demo, the ceiling, then this script again on them.
	OUT=bench/results
	STAMP=$(date -u +%Y%m%dT%H%M%SZ)
	WORK=$OUT/$STAMP.tmp
	mkdir -p "$OUT/logs" "$WORK"
	# shellcheck source=scripts/bench_demo.sh
	. scripts/bench_demo.sh
	trap 'bench_demo_stop; rm -rf "$WORK"' EXIT
	trap 'exit 130' INT TERM
	bench_demo_start "${SECKILL_BENCH_ADDR:-127.0.0.1:18280}" "$WORK" "$OUT/logs"
	bench_tools
	bench_wrk_ceiling "${TARGETS%%,*}/healthz" "${SECKILL_BENCH_RATE_SECONDS:-10}"
	echo "$wrk_line" >&2
	set +e
	BENCH_TARGETS=$TARGETS BENCH_CEILING=${wrk_rate:-} BENCH_WORK=$WORK BENCH_JSON=$OUT/$STAMP.queue.json \
		bash "$0" >"$WORK/queue.md"
	code=$?
	set -e
	{
		echo "# make bench-queue: $STAMP"
		echo
		echo "Ceiling: $wrk_line (GET /healthz of one replica, same run)."
		echo
		cat "$WORK/queue.md"
	} >"$OUT/$STAMP.queue.md"
	bench_demo_stop
	echo "bench: wrote $OUT/$STAMP.queue.md and $OUT/$STAMP.queue.json" >&2
	cat "$OUT/$STAMP.queue.md"
	exit "$code"
fi

command -v jq >/dev/null || { echo "bench: jq is needed for the queue tables (apt-get install jq)" >&2; exit 1; }
IFS=, read -r -a targets <<<"$BENCH_TARGETS"
R0=${targets[0]}
CEIL=${BENCH_CEILING:-}
WORK=$BENCH_WORK
code=0

# median: the median of the numbers on stdin, one a line.
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# ratio a b: a/b to 2 decimals, "n/a" without b.
ratio() { if [ -n "$2" ] && [ "$2" != 0 ]; then awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; else echo n/a; fi; }
# met r target: "met" when r >= target, "n/a" without r.
met() { [ "$1" = n/a ] && { echo n/a; return; }; awk -v r="$1" -v t="$2" 'BEGIN {print (r >= t) ? "met" : "**missed**"}'; }
# herd NAME FLAGS...: one herd run over the 3 replicas into $WORK/q-NAME.json;
# a failing run sets code=1 and leaves its last stderr line in $WORK/q-NAME.why.
herd() {
	local name=$1
	shift
	echo "bench: queue: $name" >&2
	if ! bin/loadtest run --targets "$BENCH_TARGETS" --opens-in 2s --max-in-flight 256 --work-ms "$WORK_MS" \
		--json "$WORK/q-$name.json" "$@" >"$WORK/q-$name.out" 2>"$WORK/q-$name.err"; then
		code=1
		grep 'loadtest run:' "$WORK/q-$name.err" | tail -n1 >"$WORK/q-$name.why" || true
		[ -s "$WORK/q-$name.why" ] || tail -n1 "$WORK/q-$name.err" >"$WORK/q-$name.why"
	fi
	[ -s "$WORK/q-$name.json" ] || echo '{"results":[]}' >"$WORK/q-$name.json"
}
# q NAME FILTER: jq FILTER on the first result of run NAME.
q() { jq -r ".results[0] | $2" "$WORK/q-$1.json"; }

# 1 + 2: the async sale, every buyer gets its 202, alternated with the same
# herd on a sync sale of 1 unit (the sold-out answer); round 1's async run is
# the one the tables below detail. Each run waits for its queue to drain
# before it ends, so no round's consumers work in the next one.
for k in 1 2 3; do
	a=async; [ "$k" = 1 ] || a=async-$k
	herd "$a" --strategy redis-lua-stock --order-mode async --stock "$BUYERS" --buyers "$BUYERS"
	herd "soldout-$k" --strategy redis-lua-stock --stock 1 --buyers "$BUYERS"
done
locks=$(curl -fsS "$R0/api/strategies" | jq -r '[.[] | select(.available) | .name |
	select(. == "redis" or . == "redlock" or . == "zookeeper" or . == "db-pessimistic")] | join(",")')
if [ -n "$locks" ]; then
	herd locks --strategy "$locks" --stock "$LOCK_STOCK" --buyers "$LOCK_STOCK"
else
	echo '{"results":[]}' >"$WORK/q-locks.json"
fi
# 3: the same stock, more and more buyers.
for x in 1 10 100; do
	herd "x$x" --strategy redis-lua-stock --order-mode async --stock "$STOCK" --buyers $((STOCK * x))
done

# The shop's own 202 rate without the load tool: wrk POSTing orders to an
# async sale on one replica (no per-user limit, so every POST takes a unit),
# the same endpoint and connections as the ceiling. Last, since its orders
# then drain through the consumers; waited for, bounded.
wrk_202=
if command -v wrk >/dev/null; then
	echo "bench: queue: wrk POSTing to an async sale" >&2
	auth=()
	[ -n "${SECKILL_ADMIN_TOKEN:-}" ] && auth=(-H "Authorization: Bearer $SECKILL_ADMIN_TOKEN")
	wsale=$(curl -fsS "${auth[@]}" -H 'Content-Type: application/json' -X POST "$R0/api/sales" -d "{\"name\":\"bench queue wrk\",
		\"strategy\":\"redis-lua-stock\",\"stock\":1000000,\"work_ms\":$WORK_MS,\"per_user_limit\":0,\"order_mode\":\"async\"}" | jq -r .id)
	# A sold-out sale: 1 unit, bought, then asked once more, which sets the
	# replica's sold-out cache (as scripts/bench_herd.sh's sold-out answer).
	ssale=$(curl -fsS "${auth[@]}" -H 'Content-Type: application/json' -X POST "$R0/api/sales" \
		-d '{"name":"bench queue wrk sold out","strategy":"redis-lua-stock","stock":1,"work_ms":0}' | jq -r .id)
	for user in bench-first bench-second; do
		curl -sS -o /dev/null -H 'Content-Type: application/json' -X POST "$R0/api/sales/$ssale/orders" -d "{\"user_id\":\"$user\"}"
	done
	cat >"$WORK/queue-post.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"user_id":"wrk-queue-buyer"}'
wrk.headers["Content-Type"] = "application/json"
LUA
	wrk_rows="" wrk_202s="" wrk_solds="" wrk_rats="" wrk_non2xx=0
	for k in 1 2 3; do
		wrk_out=$(wrk -t2 -c64 -d5s -s "$WORK/queue-post.lua" "$R0/api/sales/$wsale/orders")
		w202=$(awk '/Requests\/sec/ {print $2}' <<<"$wrk_out")
		wrk_non2xx=$((wrk_non2xx + $(awk '/Non-2xx/ {print $NF} END {print 0}' <<<"$wrk_out" | head -n1)))
		wsold=$(wrk -t2 -c64 -d5s -s "$WORK/queue-post.lua" "$R0/api/sales/$ssale/orders" | awk '/Requests\/sec/ {print $2}')
		wrk_202s+="$w202"$'\n' wrk_solds+="$wsold"$'\n' wrk_rats+="$(ratio "$w202" "$wsold")"$'\n'
		wrk_rows+="| wrk, round $k | $(printf %.0f "$w202") | $(printf %.0f "$wsold") | $(ratio "$w202" "$wsold") |"$'\n'
	done
	wrk_202=$(printf %s "$wrk_202s" | median)
	wrk_sold=$(printf %s "$wrk_solds" | median)
	for _ in $(seq 1 600); do
		[ "$(curl -fsS "$R0/api/sales/$wsale" | jq '.queue.in_flight // 0')" = 0 ] && break
		sleep 0.2
	done
fi

accepted=$(q async '.queue.accepted_per_s // 0')
acc_rows="" accs="" solds="" rats=""
for k in 1 2 3; do
	a=async; [ "$k" = 1 ] || a=async-$k
	ak=$(q "$a" '.queue.accepted_per_s // 0')
	sk=$(q "soldout-$k" '.requests_per_s // 0')
	accs+="$ak"$'\n' solds+="$sk"$'\n' rats+="$(ratio "$ak" "$sk")"$'\n'
	acc_rows+="| loadtest herd, round $k | $(printf %.0f "$ak") | $(printf %.0f "$sk") | $(ratio "$ak" "$sk") |"$'\n'
done
acc_med=$(printf %s "$accs" | median)
sold_med=$(printf %s "$solds" | median)
# The target's ratio: the median of the rounds' own ratios (each round's two
# runs side by side, so a round's noise hits both).
r_sold=$(printf %s "$rats" | grep -v n/a | median)
[ -n "$r_sold" ] && [ "$r_sold" != 0 ] && r_sold=$(printf %.2f "$r_sold") || r_sold=n/a
confirmed=$(q async '.queue.confirmed_per_s // 0')
best=$(jq -r '[.results[] | select(.verdict == "OK") | {s: .strategy, r: .orders_per_s}] | max_by(.r) // {s: "none", r: 0} | "\(.s) \(.r)"' "$WORK/q-locks.json")
read -r best_name best_rate <<<"$best"
r_acc=$(ratio "$accepted" "$CEIL")
r_conf=$(ratio "$confirmed" "$best_rate")

echo "## Orders through a queue"
echo
echo "Async \`redis-lua-stock\` sales over the 3 replicas, all in this run: \`loadtest run --order-mode async --opens-in 2s"
echo "--max-in-flight 256 --work-ms $WORK_MS\`; each run waits for its queue to drain and checks every 202's ticket"
echo "(GET /api/orders/{ticket}). Accepted/s: 202s / (opening to the last 202). Confirmed/s: the sale view's confirmed /"
echo "(first 202 to last confirmation). The lock strategies: the same herd, one unit per buyer, orders/s = orders /"
echo "(opening to the last answer)."
echo
echo "| target | measured | against | ratio | target | |"
echo "|---|--:|---|--:|--:|---|"
# The herd's sold-out answers come as fast as the load tool fires them (on 2
# cores, slower than wrk's): the herd's ratio flatters the shop, wrk's does not.
echo "| accepted (202) req/s at the herd ($BUYERS buyers, $BUYERS units), median of 3 | $(printf %.0f "$acc_med") | the sold-out answer of the same herd (a sync sale of 1 unit), median of 3: $(printf %.0f "$sold_med") req/s | $r_sold (median of the rounds' ratios) | >= 0.7 | $(met "$r_sold" 0.7) |"
echo "| accepted (202) req/s at the herd, round 1 | $(printf %.0f "$accepted") | wrk GET /healthz of one replica: ${CEIL:-unknown} req/s | $r_acc | >= 0.7 | $(met "$r_acc" 0.7) |"
if [ -n "$wrk_202" ]; then
	r_wrk=$(printf %.2f "$(printf %s "$wrk_rats" | grep -v n/a | median)")
	echo "| wrk -t2 -c64 -d5s POSTing to an async sale of one replica, median of 3 (non-2xx: ${wrk_non2xx:-0}) | $(printf %.0f "$wrk_202") | wrk POSTing to a sold-out sale of the same replica, alternated, median of 3: $(printf %.0f "$wrk_sold") req/s | $r_wrk (median of the rounds' ratios) | >= 0.7 (the shop without the load tool) | $(met "$r_wrk" 0.7) |"
	echo "| (diagnosis) the same 202 rate | $(printf %.0f "$wrk_202") | the /healthz ceiling | $(ratio "$wrk_202" "$CEIL") | | |"
fi
echo "| confirmed orders/s, work_ms $WORK_MS | $(printf %.0f "$confirmed") | best lock strategy \`$best_name\`: $(printf %.1f "$best_rate") orders/s | $r_conf | >= 5 | $(met "$r_conf" 5) |"
echo
echo "The rounds, alternated (req/s; the herd's sold-out answers: answers / (opening to the last answer)):"
echo
echo "| round | 202s/s | sold-out answers/s | ratio |"
echo "|---|--:|--:|--:|"
printf %s "$acc_rows"
printf %s "${wrk_rows:-}"
echo
echo "| run | buyers | units | accepted | sold_out | confirmed | failed | lost | unsettled | drift | drained s | 202->confirmed p50 ms | p99 ms | oversold / duplicates | verdict |"
echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|"
for run in async x1 x10 x100; do
	case $run in
	async) label="herd, all accepted" ;;
	*) label="${run#x}x oversubscribed" ;;
	esac
	if [ "$(jq '.results | length' "$WORK/q-$run.json")" = 0 ]; then
		echo "| $label | run failed: $(cat "$WORK/q-$run.why" 2>/dev/null) |"
		continue
	fi
	jq -r --arg l "$label" '.results[0] | .queue as $q |
		"| \($l) | \(.requests) | \(.sale.initial_stock // "?") | \(.accepted) | \(.sold_out) | \($q.confirmed // "?") | " +
		"\($q.failed // "?") | \($q.lost // "?") | \($q.unsettled // "?") | \($q.drift // "?") | \($q.drain_s // "?") | " +
		"\($q.confirm_p50_ms // 0 | . * 10 | round / 10) | \($q.confirm_p99_ms // 0 | . * 10 | round / 10) | \(.sale.oversold // "?") / \(.sale.duplicates // "?") | \(.verdict) |"' \
		"$WORK/q-$run.json"
done
echo
echo "The lock strategies at work_ms $WORK_MS ($LOCK_STOCK buyers, $LOCK_STOCK units each):"
echo
echo "| strategy | orders/s | p99 ms | oversold | verdict |"
echo "|---|--:|--:|--:|---|"
jq -r '.results[] | "| `\(.strategy)` | \(.orders_per_s * 10 | round / 10) | \(.latency_ms.p99 | round) | \(.sale.oversold // "?") | \(.verdict) |"' "$WORK/q-locks.json"
echo
for run in async async-2 async-3 soldout-1 soldout-2 soldout-3 locks x1 x10 x100; do
	if [ -s "$WORK/q-$run.why" ]; then echo "- $run failed: $(cat "$WORK/q-$run.why")"; fi
done
echo

if [ -n "${BENCH_JSON:-}" ]; then
	jq -s '{herd_all_accepted: .[0], locks: .[1], oversubscription: {x1: .[2], x10: .[3], x100: .[4]},
		herd_all_accepted_rounds: [.[0], .[5], .[6]], herd_sold_out_rounds: [.[7], .[8], .[9]]}' \
		"$WORK/q-async.json" "$WORK/q-locks.json" "$WORK/q-x1.json" "$WORK/q-x10.json" "$WORK/q-x100.json" \
		"$WORK/q-async-2.json" "$WORK/q-async-3.json" "$WORK/q-soldout-1.json" "$WORK/q-soldout-2.json" "$WORK/q-soldout-3.json" >"$BENCH_JSON"
fi
exit "$code"

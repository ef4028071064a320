#!/usr/bin/env bash
# make bench, combining part (called by scripts/bench.sh on its running
# 3-replica demo; prints Markdown on stdout, progress on stderr): the herd
# of issue 27 on each safe lock strategy, one lock per order against one
# lock per batch (combine), the two runs of a strategy side by side:
#
#   loadtest run --opens-in 2s --stock 2000 --buyers 20000 --max-in-flight 256 --work-ms 1 [--combine]
#
# Columns: time to sell out (opening to the last order), orders/s during the
# sale (units / time to sell out), the herd's p99 (every answer, from the
# opening), lock acquisitions and transactions (the sale's recorded critical
# sections: one transaction per acquisition), units per hold; then the
# ratios with/without and whether the targets (>= 5x orders/s, p99 <= 1/5)
# were met on that pair.
#
# Environment: BENCH_TARGETS (comma-separated base URLs), BENCH_WORK
# (scratch directory); SECKILL_BENCH_COMBINE_STRATEGIES (default: redis,
# redlock, zookeeper, etcd, db-pessimistic, redisson),
# SECKILL_BENCH_COMBINE_STOCK (2000), SECKILL_BENCH_COMBINE_BUYERS (20000).
# Then scripts/bench_redlock_herd.sh: redlock against redis on the same herd
# without combining, in alternated rounds (RedLock's herd livelock).
# Exit 1 when a run failed or broke the database's truth.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v jq >/dev/null || { echo "bench: jq is needed (apt-get install jq)" >&2; exit 1; }

WORK=$BENCH_WORK
STRATS=${SECKILL_BENCH_COMBINE_STRATEGIES:-redis,redlock,zookeeper,etcd,db-pessimistic,redisson}
STOCK=${SECKILL_BENCH_COMBINE_STOCK:-2000}
BUYERS=${SECKILL_BENCH_COMBINE_BUYERS:-20000}

# row JSON: "sell_out_s orders_per_s p99_ms sections units_per_hold oversold lost data_verdict" of a run's result.
row() {
	jq -r --argjson stock "$STOCK" '.results[0] |
		(.herd.sell_out_s // 0) as $s |
		"\($s) \(if $s > 0 then ($stock / $s) else 0 end) \(.latency_ms.p99 // 0) \(.sale.lock_cycle.sections // 0) " +
		"\(.sale.lock_cycle.units_per_hold // 0) \(.sale.oversold // -1) \(.sale.lost_updates // -1) \(.sale.verdict.kind // "?")"' "$1"
}

echo "## The herd with combining: one lock per order against one lock per batch"
echo
echo "\`loadtest run --opens-in 2s --stock $STOCK --buyers $BUYERS --max-in-flight 256 --work-ms 1\` over the replicas,"
echo "without then with \`--combine\` (batches of at most 100 buyers, gathered for at most 500 µs), one strategy after the"
echo "other. Sell-out: opening to the last order; orders/s: units / sell-out; p99: every answer, from the opening;"
echo "acquisitions = transactions: the sale's critical sections. Targets: orders/s >= 5x, p99 <= 1/5 of the same strategy"
echo "without combining."
echo
echo "| strategy | combine | sell-out s | orders/s | herd p99 ms | acquisitions = transactions | units per hold | oversold / lost | data |"
echo "|---|---|--:|--:|--:|--:|--:|--:|---|"
code=0 summary=""
IFS=, read -r -a strategies <<<"$STRATS"
for st in "${strategies[@]}"; do
	declare -A got=()
	for c in off on; do
		flags=()
		[ "$c" = on ] && flags=(--combine)
		echo "bench: herd, $st, combine $c" >&2
		json="$WORK/combine-$st-$c.json"
		if ! bin/loadtest run --targets "$BENCH_TARGETS" --strategy "$st" --opens-in 2s --stock "$STOCK" --buyers "$BUYERS" \
			--max-in-flight 256 --work-ms 1 "${flags[@]}" --json "$json" >"$WORK/combine-$st-$c.out" 2>"$WORK/combine-$st-$c.err"; then
			code=1
		fi
		if [ ! -s "$json" ]; then
			echo "| \`$st\` | $c | run failed: $(tail -n1 "$WORK/combine-$st-$c.err") |"
			code=1
			continue
		fi
		read -r s ops p99 secs uph over lost data < <(row "$json")
		got[$c]="$ops $p99"
		[ "$over" = 0 ] && [ "$lost" = 0 ] || code=1
		printf '| `%s` | %s | %.2f | %.0f | %.0f | %s | %.1f | %s / %s | %s |\n' "$st" "$c" "$s" "$ops" "$p99" "$secs" "$uph" "$over" "$lost" "$data"
	done
	if [ -n "${got[off]:-}" ] && [ -n "${got[on]:-}" ]; then
		read -r ops0 p0 <<<"${got[off]}"
		read -r ops1 p1 <<<"${got[on]}"
		summary+=$(awk -v st="$st" -v a="$ops0" -v b="$ops1" -v p="$p0" -v q="$p1" 'BEGIN {
			x = (a > 0) ? b / a : 0; y = (p > 0) ? q / p : 0
			printf "| `%s` | %.1fx | %.2f | %s |\n", st, x, y, (x >= 5 && y <= 0.2) ? "met" : "**missed**" }')$'\n'
	fi
	unset got
done
echo
echo "| strategy | orders/s with / without | p99 with / without | targets (>= 5x, <= 0.2) |"
echo "|---|--:|--:|---|"
printf %s "$summary"
echo
bash scripts/bench_redlock_herd.sh || code=1
exit "$code"

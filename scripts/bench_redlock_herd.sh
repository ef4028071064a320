#!/usr/bin/env bash
# make bench, RedLock's herd (called by scripts/bench_combine.sh on the
# running 3-replica demo; prints Markdown on stdout, progress on stderr):
# redlock against redis, both without combining, on the herd
#
#   loadtest run --opens-in 2s --stock 2000 --buyers 20000 --max-in-flight 256 --work-ms 1
#
# in alternated rounds (redis then redlock, then redlock then redis, ...),
# each round's figures (for redlock also the quorum rounds per acquisition
# and the failed ones whose votes split, from the sale's live figures),
# the medians, and redlock's orders/s against redis's
# (target >= 0.5x: RedLock's three SET NX per try must not livelock under
# the herd; see the package doc of internal/lockstrategy/redlock).
#
# Environment: BENCH_TARGETS (comma-separated base URLs), BENCH_WORK
# (scratch directory); SECKILL_BENCH_REDLOCK_ROUNDS (3),
# SECKILL_BENCH_COMBINE_STOCK (2000), SECKILL_BENCH_COMBINE_BUYERS (20000).
# Exit 1 when a run failed or oversold; a missed target is printed, not an
# exit code (the machine is shared and noisy).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v jq >/dev/null || { echo "bench: jq is needed (apt-get install jq)" >&2; exit 1; }

WORK=$BENCH_WORK
ROUNDS=${SECKILL_BENCH_REDLOCK_ROUNDS:-3}
STOCK=${SECKILL_BENCH_COMBINE_STOCK:-2000}
BUYERS=${SECKILL_BENCH_COMBINE_BUYERS:-20000}

# median of the numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "## RedLock's herd: redlock against redis, without combining"
echo
echo "\`loadtest run --opens-in 2s --stock $STOCK --buyers $BUYERS --max-in-flight 256 --work-ms 1\` over the replicas,"
echo "$ROUNDS alternated rounds of \`redis\` and \`redlock\`. Orders/s: units / sell-out (opening to the last order)."
echo "Target: redlock >= 0.5x the orders/s of redis, 0 oversold."
echo
echo "Quorum rounds: per acquisition, and split (failed with the votes split) per acquisition, as the replicas counted them."
echo
echo "| round | strategy | sell-out s | orders/s | herd p99 ms | quorum rounds / split per acquisition | oversold / lost | data |"
echo "|--:|---|--:|--:|--:|--:|--:|---|"
code=0
declare -A ops=()
for r in $(seq 1 "$ROUNDS"); do
	order=(redis redlock)
	[ $((r % 2)) = 0 ] && order=(redlock redis)
	for st in "${order[@]}"; do
		echo "bench: redlock herd, round $r, $st" >&2
		json="$WORK/redlock-herd-$r-$st.json"
		if ! bin/loadtest run --targets "$BENCH_TARGETS" --strategy "$st" --opens-in 2s --stock "$STOCK" --buyers "$BUYERS" \
			--max-in-flight 256 --work-ms 1 --json "$json" >"$WORK/redlock-herd-$r-$st.out" 2>"$WORK/redlock-herd-$r-$st.err"; then
			code=1
		fi
		if [ ! -s "$json" ]; then
			echo "| $r | \`$st\` | run failed: $(tail -n1 "$WORK/redlock-herd-$r-$st.err") |"
			code=1
			continue
		fi
		read -r s o p99 over lost data < <(jq -r --argjson stock "$STOCK" '.results[0] | (.herd.sell_out_s // 0) as $s |
			"\($s) \(if $s > 0 then ($stock / $s) else 0 end) \(.latency_ms.p99 // 0) \(.sale.oversold // -1) \(.sale.lost_updates // -1) \(.sale.verdict.kind // "?")"' "$json")
		[ "$over" = 0 ] && [ "$lost" = 0 ] || code=1
		ops[$st]+="$o "
		rounds=-
		if [ "$st" = redlock ]; then
			id=$(jq -r '.results[0].sale.id // empty' "$json")
			[ -n "$id" ] && rounds=$(curl -fsS "${BENCH_TARGETS%%,*}/api/sales/$id/live" | jq -r '.quorum_rounds // {} |
				if (.acquisitions // 0) > 0 then "\(.rounds / .acquisitions * 100 | round / 100) / \(.split / .acquisitions * 100 | round / 100)" else "-" end') || rounds=?
		fi
		printf '| %d | `%s` | %.2f | %.0f | %.0f | %s | %s / %s | %s |\n' "$r" "$st" "$s" "$o" "$p99" "$rounds" "$over" "$lost" "$data"
	done
done
m_redis=$(tr ' ' '\n' <<<"${ops[redis]:-}" | grep . | median)
m_redlock=$(tr ' ' '\n' <<<"${ops[redlock]:-}" | grep . | median)
echo
echo "| median orders/s redis | median orders/s redlock | redlock / redis | target (>= 0.5x) |"
echo "|--:|--:|--:|---|"
awk -v a="$m_redis" -v b="$m_redlock" 'BEGIN { x = (a > 0) ? b / a : 0
	printf "| %.0f | %.0f | %.2fx | %s |\n", a, b, x, (x >= 0.5) ? "met" : "**missed**" }'
echo
exit "$code"

#!/usr/bin/env bash
# make bench, split-stock part (库存分段; called by scripts/bench.sh on its
# running 3-replica demo; prints Markdown on stdout, progress on stderr): the
# herd on db-conditional and redis-lua-stock, the stock in one shard against
# 8 (--stock-shards), in alternated rounds (1 then 8, then 8 then 1, ...):
#
#   loadtest run --opens-in 2s --stock 2000 --buyers 20000 --max-in-flight 256 --work-ms 1 [--stock-shards 8]
#
# Each run must be exact (sold = stock, stock 0, oversold 0, lost 0, the
# shop's verdict holds). Per strategy and shards: the median over the rounds
# of the time to sell out (opening to the last order) and of orders/s
# (units / time to sell out), every round's time, and for db-conditional's
# split stock the buyers who moved on from an empty home shard (median).
# Targets, on the medians: db-conditional 8 shards >= 3x the orders/s of 1
# shard; redis-lua-stock 8 shards no slower than 1 (ratio >= 1.00).
#
# Environment: BENCH_TARGETS (comma-separated base URLs), BENCH_WORK
# (scratch directory); SECKILL_BENCH_SPLIT_ROUNDS (3),
# SECKILL_BENCH_SPLIT_STOCK (2000), SECKILL_BENCH_SPLIT_BUYERS (20000).
# Exit 1 when a run failed or was not exact.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v jq >/dev/null || { echo "bench: jq is needed (apt-get install jq)" >&2; exit 1; }

WORK=$BENCH_WORK
ROUNDS=${SECKILL_BENCH_SPLIT_ROUNDS:-3}
STOCK=${SECKILL_BENCH_SPLIT_STOCK:-2000}
BUYERS=${SECKILL_BENCH_SPLIT_BUYERS:-20000}
STRATS=(db-conditional redis-lua-stock)

# facts JSON: "sell_out_s exact moved_on" of a run's result; exact is 1 when
# every unit sold once and the shop's verdict holds.
facts() {
	jq -r --argjson stock "$STOCK" '.results[0] |
		(.herd.sell_out_s // 0) as $s | .sale as $v |
		(if ($v.sold == $stock and $v.stock == 0 and $v.oversold == 0 and $v.lost_updates == 0 and $v.verdict.kind == "holds")
		 then 1 else 0 end) as $exact |
		"\($s) \($exact) \([($v.shards // [])[] | .moved_in] | add // 0)"' "$1"
}

# median of the numbers given as arguments.
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

code=0
declare -A times=() moved=()
for round in $(seq 1 "$ROUNDS"); do
	order=(1 8)
	[ $((round % 2)) = 0 ] && order=(8 1)
	for st in "${STRATS[@]}"; do
		for n in "${order[@]}"; do
			echo "bench: split stock, round $round, $st, $n shard(s)" >&2
			json="$WORK/split-$st-$n-$round.json"
			if ! bin/loadtest run --targets "$BENCH_TARGETS" --strategy "$st" --opens-in 2s --stock "$STOCK" --buyers "$BUYERS" \
				--max-in-flight 256 --work-ms 1 --stock-shards "$n" --json "$json" >"$WORK/split-$st-$n-$round.out" 2>"$WORK/split-$st-$n-$round.err" ||
				[ ! -s "$json" ]; then
				echo "bench: $st with $n shard(s), round $round failed: $(tail -n1 "$WORK/split-$st-$n-$round.err")" >&2
				code=1
				continue
			fi
			read -r s exact mv < <(facts "$json")
			if [ "$exact" != 1 ]; then
				echo "bench: $st with $n shard(s), round $round was not exact" >&2
				code=1
			fi
			times[$st/$n]+="$s "
			moved[$st/$n]+="$mv "
		done
	done
done

echo "## The herd on a split stock: one hot row against 8 shards"
echo
echo "\`loadtest run --opens-in 2s --stock $STOCK --buyers $BUYERS --max-in-flight 256 --work-ms 1 [--stock-shards 8]\` over the"
echo "replicas, $ROUNDS alternated rounds (1 then 8 shards, then 8 then 1), every run exact. Sell-out: opening to the last"
echo "order; orders/s: units / sell-out; medians over the rounds. Moved on: buyers whose home shard was empty who took"
echo "their unit from another (db-conditional's shards; redis-lua-stock's keys keep no such count)."
echo
echo "| strategy | shards | sell-out s (median) | orders/s (median) | rounds' sell-out s | moved on (median) |"
echo "|---|--:|--:|--:|---|--:|"
declare -A med=()
for st in "${STRATS[@]}"; do
	for n in 1 8; do
		# shellcheck disable=SC2086 # the rounds' figures, one word each
		[ -n "${times[$st/$n]:-}" ] || { echo "| \`$st\` | $n | no run |  |  |  |"; continue; }
		m=$(median ${times[$st/$n]})
		med[$st/$n]=$m
		# shellcheck disable=SC2086
		mv=$(median ${moved[$st/$n]})
		awk -v st="$st" -v n="$n" -v m="$m" -v stock="$STOCK" -v all="${times[$st/$n]% }" -v mv="$mv" \
			'BEGIN { printf "| `%s` | %d | %.2f | %.0f | %s | %d |\n", st, n, m, (m > 0) ? stock / m : 0, all, mv }'
	done
done
echo
echo "| strategy | orders/s 8 shards / 1 shard | target | |"
echo "|---|--:|---|---|"
for st in "${STRATS[@]}"; do
	want=1.00
	[ "$st" = db-conditional ] && want=3.00
	if [ -z "${med[$st/1]:-}" ] || [ -z "${med[$st/8]:-}" ]; then
		echo "| \`$st\` | no figure | >= ${want}x | **missed** |"
		continue
	fi
	awk -v st="$st" -v a="${med[$st/1]}" -v b="${med[$st/8]}" -v want="$want" 'BEGIN {
		x = (b > 0) ? a / b : 0
		printf "| `%s` | %.2fx | >= %.2fx | %s |\n", st, x, want, (x >= want) ? "met" : "**missed**" }'
done
echo
exit "$code"

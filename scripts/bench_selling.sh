#!/usr/bin/env bash
# make bench, selling-phase part (called by scripts/bench.sh on its running
# 3-replica demo; Markdown on stdout, progress on stderr): one replica sells
# 1,000 units to `wrk -t2 -c64 -d10s --timeout 10s`, a distinct buyer per
# request, the sold-out cache on, against the yardstick measured beside it:
# loadtest/minishop, the smallest Go shop that does not oversell (one
# transaction: UPDATE ... SET stock = stock - 1 WHERE stock > 0, INSERT).
# Alternated SECKILL_BENCH_SELLING_ROUNDS times (3): ours db-conditional
# (limit 1, the default), the minishop, the minishop "apart" (the peer
# shops' way: the UPDATE and the INSERT each committed alone, not atomic),
# ours db-conditional without a per-user limit (the minishop checks none),
# ours db-optimistic. Then the herd on the 3 replicas, db-conditional with
# the limit of 1 and without, alternated as many times:
#   loadtest run --opens-in 2s --stock 2000 --buyers 20000 --max-in-flight 256 --work-ms 1 --per-user-limit 1|0
#
# Sell-out is measured by the database: the first order's created_at to
# the last one's (GET /api/sales/{id}/herd, the minishop's GET /sales/{id}).
# Targets, on the medians: db-conditional (limit 1) sells out in no more
# time than the minishop and in <= 1.3x the time of the minishop apart;
# the herd with the limit in <= 1.15x its time without; db-optimistic
# sells all 1,000 within the 10 s with no client timeout, and its retries
# per order are shown.
#
# Environment: BENCH_TARGETS (the first is measured), BENCH_WORK;
# SECKILL_MYSQL_DSN (the minishop's database: the demo's by default),
# SECKILL_BENCH_MINISHOP_ADDR (127.0.0.1:18790),
# SECKILL_BENCH_SELLING_ROUNDS (3).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "## Selling phase"; echo; echo "wrk is not installed (apt-get install wrk)."; echo; exit 0; }

IFS=, read -r -a targets <<<"$BENCH_TARGETS"
R0=${targets[0]}
WORK=$BENCH_WORK
ROUNDS=${SECKILL_BENCH_SELLING_ROUNDS:-3}
MINI_ADDR=${SECKILL_BENCH_MINISHOP_ADDR:-127.0.0.1:18790}
MINI=http://$MINI_ADDR
auth=()
[ -n "${SECKILL_ADMIN_TOKEN:-}" ] && auth=(-H "Authorization: Bearer $SECKILL_ADMIN_TOKEN")

go build -o bin/minishop ./loadtest/minishop
bin/minishop -addr "$MINI_ADDR" -mysql-dsn "${SECKILL_MYSQL_DSN:-root@tcp(127.0.0.1:13306)/seckill?parseTime=true}" >"$WORK/minishop.log" 2>&1 &
MINI_PID=$!
trap 'kill "$MINI_PID" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -fsS -o /dev/null -X POST "$MINI/sales" -d '{"stock":1}' 2>/dev/null && break; sleep 0.1; done

# Distinct buyers: each wrk thread numbers its requests, tagged by thread.
cat >"$WORK/buyers.lua" <<'LUA'
local threads, id = 0, 0
function setup(thread) threads = threads + 1; thread:set("tid", threads) end
function init(args) n = 0 end
function request()
  n = n + 1
  return wrk.format("POST", nil, {["Content-Type"] = "application/json"},
    '{"user_id":"wrk-' .. tid .. '-' .. n .. '"}')
end
LUA

# run_wrk URL: "req/s timeouts" of 10 s of orders to URL.
run_wrk() {
	wrk -t2 -c64 -d10s --timeout 10s -s "$WORK/buyers.lua" "$1" | awk '
		/Requests\/sec/ {rate = $2}
		/Socket errors/ {for (i = 1; i <= NF; i++) if ($i == "timeout") t = $(i - 1) + 0}
		END {printf "%s %d\n", rate, t}'
}

# span FIRST LAST: seconds between two RFC 3339 times ("-" without both).
span() { if [ -n "$1" ] && [ "$1" != null ] && [ -n "$2" ] && [ "$2" != null ]; then
	echo "$(($(date -d "$2" +%s%N) - $(date -d "$1" +%s%N)))" | awk '{printf "%.2f", $1 / 1e9}'; else echo -; fi; }

ours() { # STRATEGY ROUND [PER_USER_LIMIT]: one row for our shop
	local id rate tmo herd live sold first last retries limit=${3:-1} what
	id=$(curl -fsS "${auth[@]}" -H 'Content-Type: application/json' -X POST "$R0/api/sales" \
		-d "{\"name\":\"bench selling $1 $2\",\"strategy\":\"$1\",\"stock\":1000,\"work_ms\":0,\"per_user_limit\":$limit}" | jq -r .id)
	read -r rate tmo < <(run_wrk "$R0/api/sales/$id/orders")
	sleep 1.5 # the replicas publish their live figures every second
	herd=$(curl -fsS "$R0/api/sales/$id/herd")
	live=$(curl -fsS "$R0/api/sales/$id/live")
	sold=$(jq -r .sold <<<"$herd")
	first=$(jq -r .first_order_at <<<"$herd")
	last=$(jq -r .last_order_at <<<"$herd")
	retries=$(jq -r --argjson s "$sold" 'if $s > 0 then (.retries / $s * 100 | round / 100) else 0 end' <<<"$live")
	what="ours, \`$1\`"
	[ "$limit" = 0 ] && what+=", no per-user limit"
	keep "$what" "$(span "$first" "$last")"
	echo "| $2 | $what | $(printf %.0f "$rate") | $tmo | $sold | $(span "$first" "$last") | $retries |"
}

mini() { # ROUND APART: one row for the minishop (APART true: the peer's two commits)
	local id rate tmo v s what=minishop
	[ "$2" = true ] && what="minishop apart (not atomic)"
	id=$(curl -fsS -X POST "$MINI/sales" -d "{\"stock\":1000,\"apart\":$2}" | jq -r .id)
	read -r rate tmo < <(run_wrk "$MINI/sales/$id/orders")
	v=$(curl -fsS "$MINI/sales/$id")
	s=$(span "$(jq -r .first_order_at <<<"$v")" "$(jq -r .last_order_at <<<"$v")")
	keep "$what" "$s"
	echo "| $1 | $what | $(printf %.0f "$rate") | $tmo | $(jq -r .sold <<<"$v") | $s | - |"
}

# keep LABEL SECONDS: one round's sell-out of LABEL, for the medians.
declare -A kept=()
keep() { [ "$2" != - ] && kept[$1]+="$2 "; return 0; }

# median LABEL: the median of LABEL's kept sell-outs ("" without any).
median() { tr ' ' '\n' <<<"${kept[$1]:-}" | grep . | sort -g | awk '{v[NR] = $1} END {if (NR) printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# verdict A B LIMIT: "met"/"**missed**" for A <= LIMIT x B, "n/a" without both.
verdict() { if [ -n "$1" ] && [ -n "$2" ]; then awk -v a="$1" -v b="$2" -v l="$3" 'BEGIN {print (a <= l * b) ? "met" : "**missed**"}'; else echo n/a; fi; }

# ratio A B: A / B to 2 decimals.
ratio() { if [ -n "$1" ] && [ -n "$2" ] && [ "$2" != 0.00 ]; then awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; else echo n/a; fi; }

herd() { # LIMIT ROUND: one herd of db-conditional over the replicas
	local json=$WORK/selling-herd-$1-$2.json s over
	bin/loadtest run --targets "$BENCH_TARGETS" --strategy db-conditional --opens-in 2s --stock 2000 --buyers 20000 \
		--max-in-flight 256 --work-ms 1 --per-user-limit "$1" --json "$json" >"$WORK/selling-herd.out" 2>"$WORK/selling-herd.err" || true
	if [ ! -s "$json" ]; then
		echo "| $2 | limit $1 | run failed: $(tail -n1 "$WORK/selling-herd.err") | | |"
		return
	fi
	read -r s over < <(jq -r '.results[0] | "\(.herd.sell_out_s // 0) \(.sale.oversold // -1)"' "$json")
	keep "herd limit $1" "$s"
	echo "| $2 | limit $1 | $(printf %.2f "$s") | $(awk -v s="$s" 'BEGIN {printf "%.0f", (s > 0) ? 2000 / s : 0}') | $over |"
}

echo "## Selling phase: one replica against a minimal Go shop"
echo
echo "1,000 units, \`wrk -t2 -c64 -d10s --timeout 10s\`, a distinct buyer per request, on $R0 (sold-out cache on) and on"
echo "\`loadtest/minishop\` (one transaction: \`UPDATE ... WHERE stock > 0\` + INSERT; no guards, no limit, no records;"
echo "\"apart\": the same two statements each committed alone, as the peer shops do: not atomic), alternated $ROUNDS times."
echo "Sell-out: first order to last, from the database. Targets (medians): \`db-conditional\` with the limit of 1 sells out"
echo "in no more time than the minishop and in <= 1.3x the minishop apart; \`db-optimistic\` sells 1,000 within 10 s with"
echo "0 timeouts."
echo
echo "| round | shop | req/s | client timeouts | sold | sell-out s | CAS retries per order |"
echo "|--:|---|--:|--:|--:|--:|--:|"
for k in $(seq 1 "$ROUNDS"); do
	echo "bench: selling phase, round $k" >&2
	ours db-conditional "$k"
	mini "$k" false
	mini "$k" true
	ours db-conditional "$k" 0
	ours db-optimistic "$k"
done
echo
ours1=$(median 'ours, `db-conditional`')
mini1=$(median minishop)
apart1=$(median 'minishop apart (not atomic)')
echo "| medians of $ROUNDS rounds, sell-out s | ours \`db-conditional\` (limit 1) | minishop | minishop apart | ratio to minishop (target <= 1) | ratio to apart (target <= 1.3) |"
echo "|---|--:|--:|--:|--:|--:|"
echo "| | ${ours1:-?} | ${mini1:-?} | ${apart1:-?} | $(ratio "$ours1" "$mini1") ($(verdict "$ours1" "$mini1" 1)) | $(ratio "$ours1" "$apart1") ($(verdict "$ours1" "$apart1" 1.3)) |"
echo
echo "### The herd: db-conditional with the limit of 1 and without"
echo
echo "\`loadtest run --opens-in 2s --stock 2000 --buyers 20000 --max-in-flight 256 --work-ms 1 --per-user-limit 1|0\` over"
echo "the replicas, alternated $ROUNDS times. Target (medians): with the limit in <= 1.15x the time without."
echo
echo "| round | per-user limit | sell-out s | orders/s | oversold |"
echo "|--:|---|--:|--:|--:|"
for k in $(seq 1 "$ROUNDS"); do
	echo "bench: selling phase, herd round $k" >&2
	herd 1 "$k"
	herd 0 "$k"
done
h1=$(median "herd limit 1")
h0=$(median "herd limit 0")
echo
echo "Medians: limit 1 ${h1:-?} s, no limit ${h0:-?} s: ratio $(ratio "$h1" "$h0") (target <= 1.15: $(verdict "$h1" "$h0" 1.15))."
echo

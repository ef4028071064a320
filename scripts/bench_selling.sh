#!/usr/bin/env bash
# make bench, selling-phase part (called by scripts/bench.sh on its running
# 3-replica demo; Markdown on stdout, progress on stderr): one replica sells
# 1,000 units to `wrk -t2 -c64 -d10s --timeout 10s`, a distinct buyer per
# request, the sold-out cache on, against the yardstick measured beside it:
# loadtest/minishop, the smallest Go shop that does not oversell (one
# transaction: UPDATE ... SET stock = stock - 1 WHERE stock > 0, INSERT).
# Alternated twice: ours db-conditional (limit 1, the default), the
# minishop, ours db-conditional without a per-user limit (the problem the
# minishop solves: it checks none), ours db-optimistic.
#
# Sell-out is measured by the database: the first order's created_at to
# the last one's (GET /api/sales/{id}/herd, the minishop's GET /sales/{id}).
# Targets: db-conditional sells out in no more time than the minishop;
# db-optimistic sells all 1,000 within the 10 s with no client timeout, and
# its retries per order are shown.
#
# Environment: BENCH_TARGETS (the first is measured), BENCH_WORK;
# SECKILL_MYSQL_DSN (the minishop's database: the demo's by default),
# SECKILL_BENCH_MINISHOP_ADDR (127.0.0.1:18790).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "## Selling phase"; echo; echo "wrk is not installed (apt-get install wrk)."; echo; exit 0; }

IFS=, read -r -a targets <<<"$BENCH_TARGETS"
R0=${targets[0]}
WORK=$BENCH_WORK
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
	echo "| $2 | $what | $(printf %.0f "$rate") | $tmo | $sold | $(span "$first" "$last") | $retries |"
}

mini() { # ROUND: one row for the minishop
	local id rate tmo v
	id=$(curl -fsS -X POST "$MINI/sales" -d '{"stock":1000}' | jq -r .id)
	read -r rate tmo < <(run_wrk "$MINI/sales/$id/orders")
	v=$(curl -fsS "$MINI/sales/$id")
	echo "| $1 | minishop | $(printf %.0f "$rate") | $tmo | $(jq -r .sold <<<"$v") | $(span "$(jq -r .first_order_at <<<"$v")" "$(jq -r .last_order_at <<<"$v")") | - |"
}

echo "## Selling phase: one replica against a minimal Go shop"
echo
echo "1,000 units, \`wrk -t2 -c64 -d10s --timeout 10s\`, a distinct buyer per request, on $R0 (sold-out cache on) and on"
echo "\`loadtest/minishop\` (one transaction: \`UPDATE ... WHERE stock > 0\` + INSERT; no guards, no limit, no records),"
echo "alternated. Sell-out: first order to last, from the database. Targets: \`db-conditional\` sells out in no more"
echo "time than the minishop; \`db-optimistic\` sells 1,000 within 10 s with 0 timeouts."
echo
echo "| round | shop | req/s | client timeouts | sold | sell-out s | CAS retries per order |"
echo "|--:|---|--:|--:|--:|--:|--:|"
for k in 1 2; do
	echo "bench: selling phase, round $k" >&2
	ours db-conditional "$k"
	mini "$k"
	ours db-conditional "$k" 0
	ours db-optimistic "$k"
done
echo

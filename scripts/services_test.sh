#!/usr/bin/env bash
# From-cold test of scripts/services.sh: down -> up -> idempotent up -> data kept
# across down/up -> crash (kill -9) recovery -> client checks. Leaves every
# service UP, since the Go tests need them. Exit 1 if any check failed.
set -uo pipefail # no -e: run every check and report them all

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
SVC="$HERE/services.sh"
RUN="$ROOT/.run"
passed=0 failed=0

ok() { passed=$((passed + 1)); printf 'ok   - %s\n' "$1"; }
bad() { failed=$((failed + 1)); printf 'FAIL - %s\n' "$1"; }
# check DESC CMD...: the command must succeed.
check() { local d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }

# svc ARGS...: run services.sh from an unrelated cwd (it must find the repo by
# itself); output goes to $out (also echoed, indented), exit code to $rc.
svc() {
  out=$(cd / && "$SVC" "$@" 2>&1)
  rc=$?
  printf '%s\n' "$out" | sed 's/^/    | /'
}

count() { grep -c -- "$1" <<<"$out" || true; } # lines of $out matching $1

mysql_q() { mariadb -h127.0.0.1 -P13306 -uroot --connect-timeout=3 -N -B -e "$@" 2>&1; }
zk_srvr() { echo srvr | nc -q1 -w3 127.0.0.1 12181 2>&1; }

echo "# down (twice: must be idempotent)"
svc down; check "down exits 0" test "$rc" -eq 0
svc down; check "second down exits 0" test "$rc" -eq 0
check "no pid files left after down" test -z "$(find "$RUN" -name '*.pid' 2>/dev/null)"
svc status
check "status exits 3 when down" test "$rc" -eq 3
check "status: 6 services down" test "$(count ' down')" -eq 6

echo "# up from cold"
t0=${EPOCHREALTIME/./}
svc up
check "up exits 0" test "$rc" -eq 0
ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
printf '    up from cold took %d.%03d s\n' $((ms / 1000)) $((ms % 1000))
svc status
check "status exits 0 when up" test "$rc" -eq 0
check "status: 6 services up" test "$(count ' up ')" -eq 6

echo "# up again (idempotent)"
pids_before=$(cat "$RUN"/*/*.pid 2>/dev/null)
svc up
check "second up exits 0" test "$rc" -eq 0
check "second up: 6 x already up" test "$(count 'already up')" -eq 6
check "second up: nothing restarted (same pids)" test "$pids_before" == "$(cat "$RUN"/*/*.pid 2>/dev/null)"

echo "# MariaDB data survives down/up; Redis keys do not (no persistence on purpose)"
mysql_q "CREATE DATABASE IF NOT EXISTS services_test; CREATE TABLE IF NOT EXISTS services_test.marker (v INT);
         DELETE FROM services_test.marker; INSERT INTO services_test.marker VALUES (42)" >/dev/null
redis-cli -p 16379 set services_test_marker 1 >/dev/null
svc down
svc up
check "up after down exits 0" test "$rc" -eq 0
check "MariaDB row kept" test "$(mysql_q 'SELECT v FROM services_test.marker')" == 42
check "Redis key gone after restart" test "$(redis-cli -p 16379 exists services_test_marker)" == 0
mysql_q "DROP DATABASE services_test" >/dev/null

echo "# crash recovery: kill -9 redis 16381"
old=$(cat "$RUN/redis-16381/redis.pid")
kill -9 "$old"
sleep 0.5
svc status
check "status exits 3 with one service dead" test "$rc" -eq 3
check "status shows 16381 down" grep -Eq 'redis +16381 +down' <<<"$out"
svc up
check "up after crash exits 0" test "$rc" -eq 0
check "up reports the stale pid file" grep -q 'redis:16381 stale pid file' <<<"$out"
check "up restarted 16381 (new pid)" test "$(cat "$RUN/redis-16381/redis.pid" 2>/dev/null)" != "$old"
check "up left the others alone" test "$(count 'already up')" -eq 5

echo "# clients"
check "mariadb: root over TCP, no password, db seckill" test "$(mysql_q 'SELECT 1' -D seckill)" == 1
check "mariadb: db seckill_test exists" test "$(mysql_q 'SELECT 1' -D seckill_test)" == 1
check "mariadb: max_connections=500" test "$(mysql_q 'SELECT @@max_connections')" == 500
for p in 16379 16380 16381 16382; do
  check "redis-cli -p $p ping" test "$(redis-cli -p "$p" ping 2>&1)" == PONG
done
redis-cli -p 16380 set services_test_indep 1 >/dev/null
check "RedLock nodes are independent (16380 key not on 16381)" \
  test "$(redis-cli -p 16381 exists services_test_indep)" == 0
redis-cli -p 16380 del services_test_indep >/dev/null
check "zookeeper srvr: Mode: standalone" grep -q 'Mode: standalone' <<<"$(zk_srvr)"
check "zookeeper ruok: imok" test "$(echo ruok | nc -q1 -w3 127.0.0.1 12181)" == imok

echo "# final status"
svc status
if [[ $rc -ne 0 ]]; then svc up; fi # leave everything up for the other tests
check "everything up at the end" test "$rc" -eq 0

echo "services_test: $passed passed, $failed failed"
((failed == 0))

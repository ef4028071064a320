#!/usr/bin/env bash
# From-cold test of scripts/services.sh: down -> up -> idempotent up -> data kept
# across down/up -> crash (kill -9) recovery -> client checks.
#
# It runs on a private set of services: its own folder (.run/services-test-PID/)
# and its own free ports, passed to services.sh through SECKILL_SERVICES_DIR,
# SECKILL_MARIADB_PORT, SECKILL_REDIS_PORTS and SECKILL_ZK_PORT. So it never
# stops, restarts or reads the services a `make demo` (of this checkout or
# another) or the Go tests use, and it can run beside them. It stops its set and
# deletes its folder at the end. Exit 1 if any check failed.
set -uo pipefail # no -e: run every check and report them all

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
SVC="$HERE/services.sh"
passed=0 failed=0

port_open() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }
# free_ports N: N consecutive ports nobody listens on, from a random base
# (two checkouts testing at once pick different ranges). The base stays below
# the kernel's ephemeral range: a port there can be taken by any outgoing
# connection (a client of the default services) that no listen check sees, and
# a Redis asked to bind it failed with "Address already in use".
free_ports() {
  local n=$1 base k try lo=32768
  read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
  ((lo > 20000 + n)) || lo=$((20000 + n + 1000))
  for ((try = 0; try < 50; try++)); do
    base=$((20000 + RANDOM % (lo - 20000 - n)))
    for ((k = 0; k < n; k++)); do port_open $((base + k)) && continue 2; done
    seq "$base" $((base + n - 1))
    return 0
  done
  echo "services_test: no $n free consecutive ports found" >&2
  exit 1
}
mapfile -t PORTS < <(free_ports 17) # the 8th is etcd's peer port; 9-13 the Sentinel set; 14 Prometheus; 15-17 its demo
((${#PORTS[@]} == 17)) || exit 1
export SECKILL_SERVICES_DIR="$ROOT/.run/services-test-$$"
export SECKILL_MARIADB_PORT=${PORTS[0]} SECKILL_ZK_PORT=${PORTS[1]}
export SECKILL_REDIS_PORTS="${PORTS[2]} ${PORTS[3]} ${PORTS[4]} ${PORTS[5]}"
export SECKILL_ETCD_PORT=${PORTS[6]}
export SECKILL_SENTINEL_REDIS_PORTS="${PORTS[8]} ${PORTS[9]}" SECKILL_SENTINEL_PORTS="${PORTS[10]} ${PORTS[11]} ${PORTS[12]}"
export SECKILL_PROMETHEUS_PORT=${PORTS[13]}
export SECKILL_DEMO_PORTS="${PORTS[14]} ${PORTS[15]} ${PORTS[16]}"
RUN=$SECKILL_SERVICES_DIR
MDB_PORT=$SECKILL_MARIADB_PORT ZK_PORT=$SECKILL_ZK_PORT
R_MAIN=${PORTS[2]} R_1=${PORTS[3]} R_2=${PORTS[4]}
# Stop the private set and drop its data however the test ends.
cleanup() { (cd / && "$SVC" down >/dev/null 2>&1); rm -rf "$RUN"; }
trap cleanup EXIT
echo "# private services under ${RUN#"$ROOT"/}: mariadb $MDB_PORT, zookeeper $ZK_PORT, redis $SECKILL_REDIS_PORTS"

ok() { passed=$((passed + 1)); printf 'ok   - %s\n' "$1"; }
failures=()
bad() { failed=$((failed + 1)); failures+=("$1"); printf 'FAIL - %s\n' "$1"; }
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

mysql_q() { mariadb -h127.0.0.1 -P"$MDB_PORT" -uroot --connect-timeout=3 -N -B -e "$@" 2>&1; }
# zk_4lw WORD: ZooKeeper's answer to a four-letter word, read until the server
# closes the connection (it does after answering). `nc -q1` gave up one second
# after sending, and a loaded machine's ZooKeeper answered later than that.
# shellcheck disable=SC2016 # $0 and $1 belong to the inner shell
zk_4lw() { timeout 15 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0 && printf %s "$1" >&3 && cat <&3' "$ZK_PORT" "$1" 2>&1; }

# The default set (a demo's, or the Go tests'), if it runs: listening ports
# before and after must match.
default_ports() {
  local p
  for p in 13306 12181 12379 16379 16380 16381 16382 16383 16384 16385 16386 16387 19090; do port_open "$p" && printf '%s ' "$p"; done
}
default_before=$(default_ports)

echo "# down (twice: must be idempotent)"
svc down; check "down exits 0" test "$rc" -eq 0
svc down; check "second down exits 0" test "$rc" -eq 0
check "no pid files left after down" test -z "$(find "$RUN" -name '*.pid' 2>/dev/null)"
svc status
check "status exits 3 when down" test "$rc" -eq 3
check "status: 13 services down" test "$(count ' down')" -eq 13

# The ZooKeeper ensemble (up's default) is left out here: its ports are the
# default set's (make test starts it there with the rest), and three more
# JVMs from cold would double this test's time. --no-zk-ensemble is what is
# tested of it here; make test's own up starts it.
echo "# up from cold"
t0=${EPOCHREALTIME/./}
svc up --no-zk-ensemble
check "up exits 0" test "$rc" -eq 0
check "up --no-zk-ensemble started no ensemble server" test ! -e "$RUN/zk-ensemble-1/zookeeper.pid"
ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
printf '    up from cold took %d.%03d s\n' $((ms / 1000)) $((ms % 1000))
svc status
check "status exits 0 when up" test "$rc" -eq 0
check "status: 13 services up" test "$(count ' up ')" -eq 13

echo "# up again (idempotent)"
pids_before=$(cat "$RUN"/*/*.pid 2>/dev/null)
svc up --no-zk-ensemble
check "second up exits 0" test "$rc" -eq 0
# "starting" is what a restart prints; a service slow to answer its first
# check under load prints "up" instead of "already up" but is not restarted.
check "second up: nothing started" test "$(count ' starting\.\.\.')" -eq 0
check "second up: nothing restarted (same pids)" test "$pids_before" == "$(cat "$RUN"/*/*.pid 2>/dev/null)"

echo "# MariaDB data survives down/up; Redis keys do not (no persistence on purpose)"
mysql_q "CREATE DATABASE IF NOT EXISTS services_test; CREATE TABLE IF NOT EXISTS services_test.marker (v INT);
         DELETE FROM services_test.marker; INSERT INTO services_test.marker VALUES (42)" >/dev/null
redis-cli -p "$R_MAIN" set services_test_marker 1 >/dev/null
svc down
svc up --no-zk-ensemble
check "up after down exits 0" test "$rc" -eq 0
check "MariaDB row kept" test "$(mysql_q 'SELECT v FROM services_test.marker')" == 42
check "Redis key gone after restart" test "$(redis-cli -p "$R_MAIN" exists services_test_marker)" == 0
mysql_q "DROP DATABASE services_test" >/dev/null

echo "# crash recovery: kill -9 redis $R_2"
old=$(cat "$RUN/redis-$R_2/redis.pid")
kill -9 "$old"
sleep 0.5
svc status
check "status exits 3 with one service dead" test "$rc" -eq 3
check "status shows $R_2 down" grep -Eq "redis +$R_2 +down" <<<"$out"
svc up --no-zk-ensemble
check "up after crash exits 0" test "$rc" -eq 0
check "up reports the stale pid file" grep -q "redis:$R_2 stale pid file" <<<"$out"
check "up restarted $R_2 (new pid)" test "$(cat "$RUN/redis-$R_2/redis.pid" 2>/dev/null)" != "$old"
check "up started only $R_2" test "$(count ' starting\.\.\.')" -eq 1

echo "# clients"
check "mariadb: root over TCP, no password, db seckill" test "$(mysql_q 'SELECT 1' -D seckill)" == 1
check "mariadb: db seckill_test exists" test "$(mysql_q 'SELECT 1' -D seckill_test)" == 1
check "mariadb: max_connections=2000" test "$(mysql_q 'SELECT @@max_connections')" == 2000
for p in $SECKILL_REDIS_PORTS; do
  check "redis-cli -p $p ping" test "$(redis-cli -p "$p" ping 2>&1)" == PONG
done
redis-cli -p "$R_1" set services_test_indep 1 >/dev/null
check "RedLock nodes are independent ($R_1 key not on $R_2)" \
  test "$(redis-cli -p "$R_2" exists services_test_indep)" == 0
check "zookeeper srvr: Mode: standalone" grep -q 'Mode: standalone' <<<"$(zk_4lw srvr)"
check "zookeeper ruok: imok" test "$(zk_4lw ruok)" == imok
check "etcd: put and get a key" test "$(ETCDCTL_API=3 etcdctl --endpoints "127.0.0.1:$SECKILL_ETCD_PORT" put services_test 1 >/dev/null && ETCDCTL_API=3 etcdctl --endpoints "127.0.0.1:$SECKILL_ETCD_PORT" get --print-value-only services_test 2>&1)" == 1
check "prometheus: ready, with the repository's rules loaded" grep -q '"name":"seckill"' \
  <<<"$(timeout 3 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0 && printf "GET /api/v1/rules HTTP/1.0\r\n\r\n" >&3 && cat <&3' "$SECKILL_PROMETHEUS_PORT" 2>/dev/null)"

sen_master() { redis-cli -p "$1" sentinel get-master-addr-by-name seckill 2>/dev/null | paste -sd: -; }
# The private Prometheus scrapes the private demo's ports, never make demo's
# (8080-8082: another checkout's demo would fill its figures).
check "prometheus: its targets are SECKILL_DEMO_PORTS ($SECKILL_DEMO_PORTS), not 8080-8082" python3 -c '
import json, sys
got = sorted(t for g in json.load(open(sys.argv[1])) for t in g["targets"])
want = sorted("127.0.0.1:" + p for p in sys.argv[2].split())
bad = [t for t in got if t.rsplit(":", 1)[1] in ("8080", "8081", "8082")]
if got != want or bad: sys.exit(f"targets {got}, want {want}")
' "$RUN/prometheus/config/targets/demo.json" "$SECKILL_DEMO_PORTS"
check "sentinel: every Sentinel names the master ${PORTS[8]}" test "$(for p in $SECKILL_SENTINEL_PORTS; do sen_master "$p"; done | sort -u)" == "127.0.0.1:${PORTS[8]}"
check "sentinel: the replica ${PORTS[9]} replicates it" grep -q "master_port:${PORTS[8]}" <<<"$(redis-cli -p "${PORTS[9]}" info replication | tr -d '\r')"

echo "# final status"
svc status
check "everything up at the end" test "$rc" -eq 0

echo "# down stops the private set only"
svc down
check "down of the private set exits 0" test "$rc" -eq 0
for p in $MDB_PORT $ZK_PORT $SECKILL_REDIS_PORTS $SECKILL_ETCD_PORT $SECKILL_SENTINEL_REDIS_PORTS $SECKILL_SENTINEL_PORTS $SECKILL_PROMETHEUS_PORT; do
  check "port $p closed after down" bash -c "! timeout 2 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$p' 2>/dev/null"
done

check "the default services are untouched (serving before: ${default_before:-none})" \
  test "$default_before" == "$(default_ports)"

echo "services_test: $passed passed, $failed failed"
# Repeated last, so a CI log cut to its tail still names what failed.
for f in "${failures[@]}"; do echo "services_test: FAILED: $f"; done
((failed == 0))

#!/usr/bin/env bash
# Local lab services for the seckill demo, all bound to 127.0.0.1 on fixed
# non-default ports so they never clash with distro services:
#   MariaDB 13306 | Redis 16379 (main) + 16380-16382 (RedLock nodes) | ZooKeeper 12181
#   etcd 12379 (peer 12380)
#   Redis with Sentinel: master 16383, replica 16384, Sentinels 16385-16387 (name seckill)
#   Prometheus 19090: deploy/prometheus's configuration and rules, scraping make
#   demo's three replicas (127.0.0.1:8080-8082, or SECKILL_DEMO_PORTS)
# Each service keeps its data, log and pid file under .run/<name>/ at the repo root.
#
# A second, private set (scripts/services_test.sh starts one from cold beside a
# running demo) takes other ports and another folder from the environment:
#   SECKILL_SERVICES_DIR (.run)  SECKILL_MARIADB_PORT (13306)
#   SECKILL_REDIS_PORTS ("16379 16380 16381 16382": main, then the RedLock nodes)
#   SECKILL_ZK_PORT (12181)  SECKILL_ETCD_PORT (12379; peer port +1)
#   SECKILL_ZK_ENSEMBLE_PORTS ("12191 12192 12193": the three-server ZooKeeper ensemble)
#   SECKILL_SENTINEL_REDIS_PORTS ("16383 16384": the first starts as the master)
#   SECKILL_SENTINEL_PORTS ("16385 16386 16387")  SECKILL_SENTINEL_MASTER (seckill)
#   SECKILL_PROMETHEUS_PORT (19090)
#   SECKILL_DEMO_PORTS (the demo replicas' ports Prometheus scrapes; default three
#     consecutive ports from SECKILL_HTTP_ADDR's, as `shop demo` takes them: 8080 8081 8082)
# and the persistence of the default Redis (the stock and the order queue):
#   SECKILL_REDIS_PERSISTENCE (none | everysec | always; default none), also
#   switchable at run time with PUT /api/queue/durability
#
# usage: scripts/services.sh up [--with-test-packages] [--no-zk-ensemble]|down|status
#   up     install missing packages, start whatever is not running, wait until it serves;
#          --with-test-packages also installs, in the same apt-get run, what the rest of
#          `make test` needs (chromium and a CJK font for the browser test, docker-compose)
#          The three-server ZooKeeper ensemble is started too (the demo's replicas use
#          it, as docker-compose.yml's do, so that kill_zk_server and its lesson run);
#          --no-zk-ensemble leaves it out (three JVMs: a machine short of memory). The
#          standalone ZooKeeper (12181) always starts: the tests that want one quiet
#          server use it. --zk-ensemble is accepted and changes nothing (the default).
#   down   stop only what we started (by pid file); data is kept
#   status one line per service; exit 0 if all up, 3 if any is down
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUN="${SECKILL_SERVICES_DIR:-$ROOT/.run}"
MARIADB_PORT="${SECKILL_MARIADB_PORT:-13306}"
read -r -a REDIS_PORTS <<<"${SECKILL_REDIS_PORTS:-16379 16380 16381 16382}"
ZK_PORT="${SECKILL_ZK_PORT:-12181}"
ETCD_PORT="${SECKILL_ETCD_PORT:-12379}" # its peer port is the next one
# The three-server ZooKeeper ensemble (up --zk-ensemble): client ports; each
# server's quorum and election ports are its client port +100 and +200.
read -r -a ZKE_PORTS <<<"${SECKILL_ZK_ENSEMBLE_PORTS:-12191 12192 12193}"
REDIS_PERSISTENCE="${SECKILL_REDIS_PERSISTENCE:-none}"
read -r -a SR_PORTS <<<"${SECKILL_SENTINEL_REDIS_PORTS:-16383 16384}"
read -r -a SEN_PORTS <<<"${SECKILL_SENTINEL_PORTS:-16385 16386 16387}"
SEN_MASTER="${SECKILL_SENTINEL_MASTER:-seckill}"
PROM_PORT="${SECKILL_PROMETHEUS_PORT:-19090}"
# The demo's replicas, as `shop demo --replicas 3` (make demo) numbers them:
# consecutive ports from SECKILL_HTTP_ADDR's; a private set names its own.
demo_base=${SECKILL_HTTP_ADDR:-127.0.0.1:8080}
demo_base=${demo_base##*:}
[[ $demo_base =~ ^[0-9]+$ ]] || demo_base=8080
read -r -a DEMO_PORTS <<<"${SECKILL_DEMO_PORTS-$demo_base $((demo_base + 1)) $((demo_base + 2))}"

say() { printf '%s\n' "$*"; }
err() { printf 'services.sh: %s\n' "$*" >&2; }

# fail NAME LOG MSG: print the log tail so the cause is visible without digging.
fail() {
  err "FAILED: $1: $3"
  if [[ -s $2 ]]; then err "--- last 20 lines of $2 ---"; tail -n 20 "$2" >&2; fi
  exit 1
}

# ---------- helpers -------------------------------------------------------

# alive PID: running and not a zombie (our daemons are reparented to PID 1, which
# may reap them late; kill -0 alone would see an exited process as alive).
alive() {
  local st
  kill -0 "$1" 2>/dev/null || return 1
  st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ $st != Z ]]
}

# pid_ours PIDFILE PATTERN: the pid file names a live process whose command line
# matches PATTERN (guards against a recycled pid after a reboot or crash).
pid_ours() {
  local pid
  [[ -s $1 ]] || return 1
  pid=$(<"$1")
  [[ $pid =~ ^[0-9]+$ ]] && alive "$pid" || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -Eq "$2"
}

# Something listens on the port (bash /dev/tcp: no dependency on ss/netstat).
port_open() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }

# spawn PIDFILE LOG CMD...: start CMD in its own session (survives the caller's
# terminal/process group) and record its pid; exec keeps the pid the same.
spawn() {
  local pidf=$1 logf=$2; shift 2
  # shellcheck disable=SC2016 # $$/$0/$@ belong to the inner shell
  setsid bash -c 'echo $$ >"$0"; exec "$@"' "$pidf" "$@" >>"$logf" 2>&1 </dev/null &
}

# wait_ready NAME LOG PIDFILE PATTERN SECONDS CHECK...: poll CHECK until it
# succeeds; fail early if our process died, loudly after the timeout.
wait_ready() {
  local name=$1 logf=$2 pidf=$3 pat=$4 secs=$5; shift 5
  local deadline=$((SECONDS + secs))
  while ((SECONDS < deadline)); do
    "$@" && return 0
    if [[ -s $pidf ]] && ! pid_ours "$pidf" "$pat"; then
      sleep 0.5; "$@" && return 0 # a daemonizing parent may have just exited
      fail "$name" "$logf" "process exited during startup"
    fi
    sleep 0.2
  done
  fail "$name" "$logf" "not serving after ${secs}s"
}

# stop NAME PIDFILE PATTERN: SIGTERM, wait up to 15 s, then SIGKILL.
stop() {
  local name=$1 pidf=$2 pat=$3 pid i
  if ! pid_ours "$pidf" "$pat"; then
    rm -f "$pidf"; say "$name: not running"; return 0
  fi
  pid=$(<"$pidf")
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 75; i++)); do
    alive "$pid" || break
    sleep 0.2
  done
  if alive "$pid"; then
    kill -KILL "$pid" 2>/dev/null || true; say "$name: killed (pid $pid, SIGTERM timed out)"
  else
    say "$name: stopped (pid $pid)"
  fi
  rm -f "$pidf"
}

# ensure_one NAME PORT PIDFILE PATTERN LOG TIMEOUT "START_FN [ARG]" CHECK...: the shared
# "up" logic: already up / stale pid file / foreign server on our port / start.
ensure_one() {
  local name=$1 port=$2 pidf=$3 pat=$4 logf=$5 secs=$6 start=$7; shift 7
  if pid_ours "$pidf" "$pat"; then
    if "$@"; then say "$name:$port already up (pid $(<"$pidf"))"; return 0; fi
    # Alive but not serving yet (e.g. still starting): give it the usual time.
    wait_ready "$name:$port" "$logf" "$pidf" "$pat" "$secs" "$@"
    say "$name:$port up (pid $(<"$pidf"))"; return 0
  fi
  if [[ -e $pidf ]]; then say "$name:$port stale pid file (crashed?), restarting"; rm -f "$pidf"; fi
  if port_open "$port"; then
    # Not ours. Accept a compatible server the user runs, refuse anything else.
    if "$@"; then say "$name:$port served by a process we did not start; using it"; return 0; fi
    err "FAILED: $name:$port: port $port is in use by a process not started by services.sh" \
      "that does not answer like $name; stop it or free the port"
    command -v ss >/dev/null && ss -Hltnp "sport = :$port" >&2
    exit 1
  fi
  say "$name:$port starting..."
  $start # unquoted on purpose: "fn arg"
  wait_ready "$name:$port" "$logf" "$pidf" "$pat" "$secs" "$@"
  say "$name:$port up (pid $(<"$pidf"))"
}

# ---------- packages ------------------------------------------------------

mariadbd_bin() {
  local b
  for b in mariadbd mysqld /usr/sbin/mariadbd /usr/sbin/mysqld; do command -v "$b" && return 0; done
  return 0 # empty output: not installed
}
mysql_cli() { if command -v mariadb >/dev/null; then mariadb "$@"; else mysql "$@"; fi; }

ensure_packages() {
  local need=()
  command -v redis-server >/dev/null && command -v redis-cli >/dev/null || need+=(redis-server)
  [[ -n $(mariadbd_bin) ]] && command -v mariadb-install-db >/dev/null || need+=(mariadb-server)
  command -v mariadb >/dev/null || command -v mysql >/dev/null || need+=(mariadb-client)
  [[ -f /usr/share/java/zookeeper.jar ]] || need+=(zookeeper)
  command -v java >/dev/null || need+=(default-jre-headless)
  command -v nc >/dev/null || need+=(netcat-openbsd)
  command -v etcd >/dev/null || need+=(etcd-server)
  command -v redis-sentinel >/dev/null || need+=(redis-sentinel)
  command -v etcdctl >/dev/null || need+=(etcd-client)
  command -v prometheus >/dev/null && command -v promtool >/dev/null || need+=(prometheus)
  if [[ ${WITH_TEST_PACKAGES:-} ]]; then
    [[ -x /usr/bin/chromium ]] || need+=(chromium)
    dpkg -s fonts-wqy-microhei >/dev/null 2>&1 || need+=(fonts-wqy-microhei)
    command -v docker-compose >/dev/null || need+=(docker-compose)
  fi
  ((${#need[@]})) || return 0
  say "installing: ${need[*]}"
  local sudo=; ((EUID == 0)) || sudo=sudo
  # Keep package postinst scripts from starting distro copies on default ports
  # (Docker-style policy-rc.d; only when the machine does not have one already).
  local policy=/usr/sbin/policy-rc.d added_policy=
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null && $sudo chmod +x "$policy"
    added_policy=1
  fi
  local rc=0
  {
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
  } >"$RUN/apt.log" 2>&1 || rc=$?
  [[ -z $added_policy ]] || $sudo rm -f "$policy"
  ((rc == 0)) || fail apt "$RUN/apt.log" "apt-get install ${need[*]} failed (exit $rc)"
}

# ---------- MariaDB -------------------------------------------------------

MDB="$RUN/mariadb"
MDB_PAT='mariadbd|mysqld'
MARIADB_MAX_CONNECTIONS=2000
mariadb_ok() { mysql_cli -h127.0.0.1 -P"$MARIADB_PORT" -uroot --connect-timeout=2 -e 'SELECT 1' >/dev/null 2>&1; }

mariadb_start() {
  if [[ ! -d $MDB/data/mysql ]]; then
    # normal auth: root@localhost/127.0.0.1 with an empty password, usable over TCP.
    mariadb-install-db --no-defaults --auth-root-authentication-method=normal --skip-test-db \
      --datadir="$MDB/data" --user=root >>"$MDB/mariadb.log" 2>&1 ||
      fail mariadb "$MDB/mariadb.log" "mariadb-install-db failed"
  fi
  # Lab settings: relaxed durability for speed (no binlog, flush log ~1/s),
  # many connections for load tests (make test runs several packages, each
  # with pools of up to 128, and their shop processes at once), short lock
  # waits so contention fails fast.
  spawn "$MDB/mariadb.pid" "$MDB/mariadb.log" "$(mariadbd_bin)" --no-defaults \
    --datadir="$MDB/data" --port="$MARIADB_PORT" --bind-address=127.0.0.1 \
    --socket="$MDB/mysqld.sock" --pid-file="$MDB/mariadb.pid" --log-error="$MDB/mariadb.log" \
    --user=root --skip-name-resolve --skip-log-bin --sync-binlog=0 \
    --innodb-flush-log-at-trx-commit=2 --max-connections=$MARIADB_MAX_CONNECTIONS --innodb-lock-wait-timeout=10 \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci
}

mariadb_up() {
  mkdir -p "$MDB"
  ensure_one mariadb "$MARIADB_PORT" "$MDB/mariadb.pid" "$MDB_PAT" "$MDB/mariadb.log" 30 mariadb_start mariadb_ok
  local db
  # A server an older checkout started with fewer connections gets more, live.
  mysql_cli -h127.0.0.1 -P"$MARIADB_PORT" -uroot -e \
    "SET GLOBAL max_connections = GREATEST(@@max_connections, $MARIADB_MAX_CONNECTIONS)" ||
    fail mariadb "$MDB/mariadb.log" "cannot raise max_connections"
  for db in seckill seckill_test; do
    mysql_cli -h127.0.0.1 -P"$MARIADB_PORT" -uroot \
      -e "CREATE DATABASE IF NOT EXISTS $db CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci" ||
      fail mariadb "$MDB/mariadb.log" "cannot create database $db"
  done
}

# ---------- Redis ---------------------------------------------------------

REDIS_PAT='redis-server'
redis_ok() { [[ $(timeout 3 redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null) == PONG ]]; }

# redis_conf PORT: the config file a Redis starts from. A file, not flags:
# CONFIG REWRITE (PUT /api/queue/durability) must be able to save a mode
# changed at run time, so that the restart_redis fault's re-exec keeps it.
# Only the default Redis (the first port: the stock and the order queue)
# takes SECKILL_REDIS_PERSISTENCE (none | everysec | always; default none:
# a restart loses every key, the lock-loss experiments); the RedLock masters
# never persist.
redis_conf() {
  local port=$1 dir="$RUN/redis-$1" mode=none
  [[ $port == "${REDIS_PORTS[0]}" ]] && mode=$REDIS_PERSISTENCE
  local appendonly=no fsync=everysec
  case $mode in
    none) ;;
    everysec | always) appendonly=yes fsync=$mode ;;
    *) echo "SECKILL_REDIS_PERSISTENCE must be none, everysec or always, not '$mode'" >&2; return 1 ;;
  esac
  local debug="enable-debug-command local" # Redis 7+; before 7 DEBUG is always on
  [[ $(redis-server --version) =~ v=([0-9]+) ]] && ((BASH_REMATCH[1] < 7)) && debug=""
  cat >"$dir/redis.conf" <<CONF
port $port
bind 127.0.0.1
daemonize yes
pidfile $dir/redis.pid
logfile $dir/redis.log
dir $dir
save ""
appendonly $appendonly
appendfsync $fsync
$debug
CONF
}

redis_start() {
  local port=$1 dir="$RUN/redis-$1" bin
  # By its absolute path, with DEBUG allowed from loopback: the restart_redis
  # fault sends DEBUG CRASH-AND-RECOVER, and Redis re-execs itself by the path
  # it was started with (a bare "redis-server" resolves against its cwd).
  bin=$(command -v redis-server)
  redis_conf "$port" || fail "redis:$port" "$dir/redis.log" "bad SECKILL_REDIS_PERSISTENCE"
  # shellcheck disable=SC2094 # redis appends to its log; we only add startup errors
  "$bin" "$dir/redis.conf" >>"$dir/redis.log" 2>&1 ||
    fail "redis:$port" "$dir/redis.log" "redis-server did not start"
}

# redis_has_conf PORT: the server on PORT runs from our config file.
redis_has_conf() {
  [[ $(timeout 3 redis-cli -h 127.0.0.1 -p "$1" info server 2>/dev/null | tr -d '\r' | sed -n 's/^config_file://p') == "$RUN/redis-$1/redis.conf" ]]
}

# redis_restartable PORT: the server on PORT can restart itself (restart_redis):
# DEBUG is not disabled (Redis < 7 has no such setting: always on) and, on
# Redis 7+, which reports it, its executable is a real absolute path.
redis_restartable() {
  local debug exe
  debug=$(timeout 3 redis-cli -h 127.0.0.1 -p "$1" config get enable-debug-command 2>/dev/null | sed -n 2p)
  exe=$(timeout 3 redis-cli -h 127.0.0.1 -p "$1" info server 2>/dev/null | tr -d '\r' | sed -n 's/^executable://p')
  [[ $debug != no && (-z $debug || ($exe == /* && -x $exe)) ]]
}

redis_up() {
  local dir="$RUN/redis-$1"
  mkdir -p "$dir"
  # An older checkout started ours without DEBUG: restart it once to pick it up
  # (no persistence, so nothing is lost that a restart would not lose anyway).
  if pid_ours "$dir/redis.pid" "$REDIS_PAT" && redis_ok "$1" && ! { redis_restartable "$1" && redis_has_conf "$1"; }; then
    say "redis:$1 restarting: started without its config file or without DEBUG (the restart_redis fault and CONFIG REWRITE need both)"
    stop "redis:$1" "$dir/redis.pid" "$REDIS_PAT"
  fi
  ensure_one redis "$1" "$dir/redis.pid" "$REDIS_PAT" "$dir/redis.log" 10 "redis_start $1" redis_ok "$1"
}

# ---------- ZooKeeper -----------------------------------------------------

ZK="$RUN/zookeeper"
ZK_PAT='QuorumPeerMain'
# Four-letter word over bash /dev/tcp: instant, whereas `nc -q1` always idles 1 s.
zk_ok() {
  # shellcheck disable=SC2016 # $0 belongs to the inner shell
  timeout 3 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0 && printf srvr >&3 && cat <&3' "$ZK_PORT" 2>/dev/null |
    grep -q 'Mode: standalone'
}

# Debian's classpath (/etc/zookeeper/conf/environment; zookeeper.jar's manifest
# pulls in its other jars) has slf4j-api but no binding, so ZooKeeper would log
# nothing at all; add the log4j 1.2 binding (both jars are package dependencies).
zk_classpath() {
  local CLASSPATH='' j
  # shellcheck disable=SC1091
  [[ -r /etc/zookeeper/conf/environment ]] && . /etc/zookeeper/conf/environment
  CLASSPATH=${CLASSPATH:-/etc/zookeeper/conf:/usr/share/java/zookeeper.jar}
  for j in /usr/share/java/slf4j-log4j12.jar /usr/share/java/log4j-1.2.jar; do
    [[ -f $j ]] && CLASSPATH+=":$j"
  done
  printf '%s' "$CLASSPATH"
}

zk_start() {
  # tickTime=500: session expiry is checked once per tick, so short lock-holder
  # sessions (1-4 s) expire close to their timeout; min 1 s / max 60 s sessions.
  # forceSync=no: no fsync per write (a lab, as MariaDB's flush-log setting):
  # a lock is two writes, and a contended test made thousands of syncs.
  cat >"$ZK/zoo.cfg" <<EOF
tickTime=500
initLimit=10
syncLimit=5
dataDir=$ZK/data
clientPort=$ZK_PORT
clientPortAddress=127.0.0.1
maxClientCnxns=0
minSessionTimeout=1000
maxSessionTimeout=60000
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr,stat,mntr
forceSync=no
EOF
  spawn "$ZK/zookeeper.pid" "$ZK/zookeeper.log" java -Xmx256m -cp "$(zk_classpath)" \
    -Dzookeeper.root.logger=INFO,CONSOLE -Dzookeeper.log.dir="$ZK" org.apache.zookeeper.server.quorum.QuorumPeerMain "$ZK/zoo.cfg"
}

zk_up() {
  mkdir -p "$ZK/data"
  ensure_one zookeeper "$ZK_PORT" "$ZK/zookeeper.pid" "$ZK_PAT" "$ZK/zookeeper.log" 30 zk_start zk_ok
}

# ---------- ZooKeeper ensemble (not with up --no-zk-ensemble) -------------

# zke_ok PORT: the server on PORT serves as a member of a quorum.
zke_ok() {
  # shellcheck disable=SC2016 # $0 belongs to the inner shell
  timeout 3 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0 && printf srvr >&3 && cat <&3' "$1" 2>/dev/null |
    grep -Eq 'Mode: (leader|follower)'
}

zke_start() {
  local i=$1 port=${ZKE_PORTS[$(($1 - 1))]} dir="$RUN/zk-ensemble-$1" j p
  mkdir -p "$dir/data"
  echo "$i" >"$dir/data/myid"
  {
    printf '%s\n' tickTime=500 initLimit=20 syncLimit=10 "dataDir=$dir/data" "clientPort=$port" \
      clientPortAddress=127.0.0.1 maxClientCnxns=0 minSessionTimeout=1000 maxSessionTimeout=60000 \
      admin.enableServer=false 4lw.commands.whitelist=ruok,srvr,stat,mntr forceSync=no
    for j in 1 2 3; do
      p=${ZKE_PORTS[$((j - 1))]}
      echo "server.$j=127.0.0.1:$((p + 100)):$((p + 200))"
    done
  } >"$dir/zoo.cfg"
  spawn "$dir/zookeeper.pid" "$dir/zookeeper.log" java -Xmx128m -cp "$(zk_classpath)" \
    -Dzookeeper.root.logger=INFO,CONSOLE -Dzookeeper.log.dir="$dir" org.apache.zookeeper.server.quorum.QuorumPeerMain "$dir/zoo.cfg"
}

# zke_up: start every server of the ensemble that is not running, then wait
# for all (one server alone never serves: it needs a quorum).
zke_up() {
  local i port dir
  local -A foreign=()
  for i in 1 2 3; do
    port=${ZKE_PORTS[$((i - 1))]} dir="$RUN/zk-ensemble-$i"
    mkdir -p "$dir"
    if pid_ours "$dir/zookeeper.pid" "$ZK_PAT"; then continue; fi
    if port_open "$port"; then
      # Another checkout's ensemble (a demo beside make test): use it, as
      # ensure_one does for the other services; anything else is refused.
      if zke_ok "$port"; then foreign[$i]=1; say "zk-ensemble-$i:$port served by a process we did not start; using it"; continue; fi
      err "FAILED: zk-ensemble-$i:$port: port $port is in use by a process not started by services.sh" \
        "that does not answer as an ensemble member"; exit 1
    fi
    say "zk-ensemble-$i:$port starting..."
    zke_start "$i"
  done
  for i in 1 2 3; do
    [[ -z ${foreign[$i]:-} ]] || continue
    port=${ZKE_PORTS[$((i - 1))]} dir="$RUN/zk-ensemble-$i"
    wait_ready "zk-ensemble-$i:$port" "$dir/zookeeper.log" "$dir/zookeeper.pid" "$ZK_PAT" 60 zke_ok "$port"
    say "zk-ensemble-$i:$port up (pid $(<"$dir/zookeeper.pid"))"
  done
}

# ---------- etcd ----------------------------------------------------------

ETCD="$RUN/etcd"
ETCD_PAT='etcd'
# The v3 health endpoint over plain HTTP on the client port (curl may be
# absent: bash /dev/tcp).
etcd_ok() {
  # shellcheck disable=SC2016 # $0 belongs to the inner shell
  timeout 3 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0 && printf "GET /health HTTP/1.0\r\n\r\n" >&3 && cat <&3' "$ETCD_PORT" 2>/dev/null |
    grep -q '"health":"true"'
}

etcd_start() {
  # One member, its own data dir; Debian's package ships a systemd unit on
  # 2379 that nothing starts here (policy-rc.d during install, no systemd).
  # A lab: no fsync per write (--unsafe-no-fsync), as MariaDB's and
  # ZooKeeper's settings.
  local peer=$((ETCD_PORT + 1))
  spawn "$ETCD/etcd.pid" "$ETCD/etcd.log" etcd --name seckill --data-dir "$ETCD/data" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
    --initial-cluster "seckill=http://127.0.0.1:$peer" --unsafe-no-fsync --log-level warn
}

etcd_up() {
  mkdir -p "$ETCD"
  ensure_one etcd "$ETCD_PORT" "$ETCD/etcd.pid" "$ETCD_PAT" "$ETCD/etcd.log" 30 etcd_start etcd_ok
}

# ---------- Redis with Sentinel -------------------------------------------
# The replicated Redis of the redis-sentinel strategy: a master and a replica
# (no persistence: a node that dies comes back empty) watched by three
# Sentinels, quorum 2, that promote the replica when the master stops
# answering for 1 s. Each config is written once: Sentinel rewrites them at a
# failover, so after one the roles stay swapped, and a node that comes back
# is made a replica of the current master by the Sentinels themselves.

SR_PAT='redis-(server|sentinel)'
sr_dir() { printf '%s/sentinel-redis-%s' "$RUN" "$1"; }
sen_dir() { printf '%s/sentinel-%s' "$RUN" "$1"; }

sr_start() {
  local port=$1 dir bin
  dir=$(sr_dir "$port")
  bin=$(command -v redis-server) # absolute: DEBUG CRASH-AND-RECOVER re-execs by this path
  if [[ ! -s $dir/redis.conf ]]; then
    cat >"$dir/redis.conf" <<CONF
port $port
bind 127.0.0.1
daemonize yes
pidfile $dir/redis.pid
logfile $dir/redis.log
dir $dir
save ""
appendonly no
enable-debug-command local
CONF
    [[ $port == "${SR_PORTS[0]}" ]] || echo "replicaof 127.0.0.1 ${SR_PORTS[0]}" >>"$dir/redis.conf"
  fi
  # shellcheck disable=SC2094 # redis appends to its log; we only add startup errors
  "$bin" "$dir/redis.conf" >>"$dir/redis.log" 2>&1 || fail "sentinel-redis:$port" "$dir/redis.log" "redis-server did not start"
}

sen_start() {
  local port=$1 dir
  dir=$(sen_dir "$port")
  if [[ ! -s $dir/sentinel.conf ]]; then
    cat >"$dir/sentinel.conf" <<CONF
port $port
bind 127.0.0.1
daemonize yes
pidfile $dir/sentinel.pid
logfile $dir/sentinel.log
dir $dir
sentinel monitor $SEN_MASTER 127.0.0.1 ${SR_PORTS[0]} 2
sentinel down-after-milliseconds $SEN_MASTER 1000
sentinel failover-timeout $SEN_MASTER 6000
sentinel parallel-syncs $SEN_MASTER 1
CONF
  fi
  local bin
  bin=$(command -v redis-sentinel) || bin="$(command -v redis-server) --sentinel"
  # shellcheck disable=SC2086,SC2094 # "redis-server --sentinel" is two words
  $bin "$dir/sentinel.conf" >>"$dir/sentinel.log" 2>&1 || fail "sentinel:$port" "$dir/sentinel.log" "redis-sentinel did not start"
}

# sen_master PORT: the master's address as the Sentinel on PORT knows it.
sen_master() {
  timeout 3 redis-cli -h 127.0.0.1 -p "$1" sentinel get-master-addr-by-name "$SEN_MASTER" 2>/dev/null | paste -sd: -
}

sentinel_up() {
  local p
  for p in "${SR_PORTS[@]}"; do
    mkdir -p "$(sr_dir "$p")"
    ensure_one sentinel-redis "$p" "$(sr_dir "$p")/redis.pid" "$SR_PAT" "$(sr_dir "$p")/redis.log" 10 "sr_start $p" redis_ok "$p"
  done
  for p in "${SEN_PORTS[@]}"; do
    mkdir -p "$(sen_dir "$p")"
    ensure_one sentinel "$p" "$(sen_dir "$p")/sentinel.pid" "$SR_PAT" "$(sen_dir "$p")/sentinel.log" 10 "sen_start $p" redis_ok "$p"
  done
  local deadline=$((SECONDS + 30)) m
  until m=$(sen_master "${SEN_PORTS[0]}") && [[ -n $m ]] && redis_ok "${m##*:}"; do
    ((SECONDS < deadline)) || fail sentinel "$(sen_dir "${SEN_PORTS[0]}")/sentinel.log" "no answering master named $SEN_MASTER after 30s"
    sleep 0.2
  done
  say "sentinel: master $SEN_MASTER is $m"
}

# ---------- Prometheus ----------------------------------------------------
# The repository's scrape configuration and rules (deploy/prometheus), copied
# under .run/prometheus/ at every start with a file_sd target list of make
# demo's three replicas (DEMO_PORTS, rewritten at every up: Prometheus
# rereads it); Debian's package ships a systemd unit on 9090 that
# nothing starts here (policy-rc.d during install, no systemd).

PROM="$RUN/prometheus"
PROM_PAT='prometheus'
prom_ok() {
  # shellcheck disable=SC2016 # $0 belongs to the inner shell
  timeout 3 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0 && printf "GET /-/ready HTTP/1.0\r\n\r\n" >&3 && head -n1 <&3' "$PROM_PORT" 2>/dev/null |
    grep -q ' 200 '
}

prom_start() {
  mkdir -p "$PROM/config/targets"
  cp "$ROOT/deploy/prometheus/prometheus.yml" "$ROOT/deploy/prometheus/rules.yml" "$PROM/config/"
  prom_targets
  spawn "$PROM/prometheus.pid" "$PROM/prometheus.log" prometheus --config.file="$PROM/config/prometheus.yml" \
    --storage.tsdb.path="$PROM/data" --storage.tsdb.retention.time=2d \
    --web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn
}

# prom_targets writes the demo's replicas (DEMO_PORTS) as Prometheus' file_sd
# target list.
prom_targets() {
  local p list=""
  for p in "${DEMO_PORTS[@]}"; do
    [[ $p =~ ^[0-9]+$ ]] || { err "SECKILL_DEMO_PORTS: '$p' is not a port"; exit 1; }
    list+="${list:+, }\"127.0.0.1:$p\""
  done
  mkdir -p "$PROM/config/targets"
  printf '[{"targets": [%s], "labels": {"stack": "demo"}}]\n' "$list" >"$PROM/config/targets/demo.json.tmp"
  mv "$PROM/config/targets/demo.json.tmp" "$PROM/config/targets/demo.json" # whole, never half-written
}

prometheus_up() {
  mkdir -p "$PROM"
  [[ ! -d $PROM/config/targets ]] || prom_targets # a running one follows the ports in use
  ensure_one prometheus "$PROM_PORT" "$PROM/prometheus.pid" "$PROM_PAT" "$PROM/prometheus.log" 30 prom_start prom_ok
}

# ---------- commands ------------------------------------------------------

cmd_up() {
  mkdir -p "$RUN"
  ensure_packages
  local p
  for p in "${REDIS_PORTS[@]}"; do redis_up "$p"; done
  zk_up
  etcd_up
  sentinel_up
  [[ ${ZK_ENSEMBLE:-1} != 1 ]] || zke_up
  mariadb_up
  prometheus_up
  say "all services up"
}

cmd_down() {
  local p
  for p in "${REDIS_PORTS[@]}"; do stop "redis:$p" "$RUN/redis-$p/redis.pid" "$REDIS_PAT"; done
  stop "zookeeper:$ZK_PORT" "$ZK/zookeeper.pid" "$ZK_PAT"
  stop "etcd:$ETCD_PORT" "$ETCD/etcd.pid" "$ETCD_PAT"
  for p in "${SEN_PORTS[@]}"; do stop "sentinel:$p" "$(sen_dir "$p")/sentinel.pid" "$SR_PAT"; done
  for p in "${SR_PORTS[@]}"; do stop "sentinel-redis:$p" "$(sr_dir "$p")/redis.pid" "$SR_PAT"; done
  local i
  for i in 1 2 3; do
    [[ -e $RUN/zk-ensemble-$i/zookeeper.pid ]] || continue
    stop "zk-ensemble-$i:${ZKE_PORTS[$((i - 1))]}" "$RUN/zk-ensemble-$i/zookeeper.pid" "$ZK_PAT"
  done
  stop "mariadb:$MARIADB_PORT" "$MDB/mariadb.pid" "$MDB_PAT"
  stop "prometheus:$PROM_PORT" "$PROM/prometheus.pid" "$PROM_PAT"
}

# status_line NAME PORT PIDFILE PATTERN CHECK...: returns 1 when down.
status_line() {
  local name=$1 port=$2 pidf=$3 pat=$4; shift 4
  if "$@" 2>/dev/null; then
    if pid_ours "$pidf" "$pat"; then printf '%-10s %5s  up    pid %s\n' "$name" "$port" "$(<"$pidf")"
    else printf '%-10s %5s  up    (not started by services.sh)\n' "$name" "$port"; fi
    return 0
  fi
  if pid_ours "$pidf" "$pat"; then printf '%-10s %5s  down  (pid %s alive, not serving)\n' "$name" "$port" "$(<"$pidf")"
  else printf '%-10s %5s  down\n' "$name" "$port"; fi
  return 1
}

cmd_status() {
  local rc=0 p
  command -v redis-cli >/dev/null || redis_ok() { false; }
  command -v mariadb >/dev/null || command -v mysql >/dev/null || mariadb_ok() { false; }
  status_line mariadb "$MARIADB_PORT" "$MDB/mariadb.pid" "$MDB_PAT" mariadb_ok || rc=3
  for p in "${REDIS_PORTS[@]}"; do
    status_line redis "$p" "$RUN/redis-$p/redis.pid" "$REDIS_PAT" redis_ok "$p" || rc=3
  done
  status_line zookeeper "$ZK_PORT" "$ZK/zookeeper.pid" "$ZK_PAT" zk_ok || rc=3
  status_line etcd "$ETCD_PORT" "$ETCD/etcd.pid" "$ETCD_PAT" etcd_ok || rc=3
  status_line prometheus "$PROM_PORT" "$PROM/prometheus.pid" "$PROM_PAT" prom_ok || rc=3
  for p in "${SR_PORTS[@]}"; do
    status_line sen-redis "$p" "$(sr_dir "$p")/redis.pid" "$SR_PAT" redis_ok "$p" || rc=3
  done
  for p in "${SEN_PORTS[@]}"; do
    status_line sentinel "$p" "$(sen_dir "$p")/sentinel.pid" "$SR_PAT" redis_ok "$p" || rc=3
  done
  local i
  for i in 1 2 3; do # the ensemble, when it was started (not up --no-zk-ensemble)
    [[ -e $RUN/zk-ensemble-$i/zookeeper.pid ]] || continue
    status_line "zk-ens-$i" "${ZKE_PORTS[$((i - 1))]}" "$RUN/zk-ensemble-$i/zookeeper.pid" "$ZK_PAT" zke_ok "${ZKE_PORTS[$((i - 1))]}" || rc=3
  done
  return "$rc"
}

case "${1:-}" in
  up)
    for a in "${@:2}"; do
      case $a in
        --with-test-packages) WITH_TEST_PACKAGES=1 ;;
        --zk-ensemble) ZK_ENSEMBLE=1 ;;
        --no-zk-ensemble) ZK_ENSEMBLE=0 ;;
        *) err "usage: $0 up [--with-test-packages] [--no-zk-ensemble]"; exit 2 ;;
      esac
    done
    cmd_up
    ;;
  down) cmd_down ;;
  status) cmd_status ;;
  *) err "usage: $0 up|down|status"; exit 2 ;;
esac

#!/usr/bin/env bash
# shellcheck disable=SC2016 # the checks pass Python in single quotes: nothing in it is for the shell
# Validates docker-compose.yml and the Dockerfile without a container engine
# (none runs here): `docker-compose config` from Debian's docker-compose
# package must parse the file, list the expected services, and render the
# SECKILL_* settings the shop reads; every SECKILL_* name in the compose file
# must exist in internal/config/env.go, so the two can never drift apart.
#
# usage: scripts/compose_test.sh     (installs docker-compose with apt-get if missing)
# Prints one line per check and "N passed, M failed"; exit 1 if any failed.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1
COMPOSE=docker-compose.yml
ENV_GO=internal/config/env.go
SERVICES="agent-1 agent-2 etcd grafana mariadb prometheus redis redis-master redis-replica redlock-1 redlock-2 redlock-3 sentinel-1 sentinel-2 sentinel-3 shop-1 shop-2 shop-3 zookeeper-1 zookeeper-2 zookeeper-3"

die() { printf 'compose_test: %s\n' "$*" >&2; exit 1; }

# ---------- docker-compose: Debian's package, installed when missing --------
if ! command -v docker-compose >/dev/null; then
  command -v apt-get >/dev/null || die "docker-compose is missing and there is no apt-get to install it; install Debian's docker-compose package"
  [[ $(id -u) == 0 ]] || die "docker-compose is missing; install it as root: apt-get install docker-compose"
  echo "compose_test: installing docker-compose (Debian package)"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker-compose; } >/tmp/compose_test_apt.log 2>&1; then
    tail -n 20 /tmp/compose_test_apt.log >&2
    die "apt-get could not install docker-compose (log above); this test needs Debian's docker-compose package"
  fi
fi
# docker-compose is Python and depends on PyYAML: the checks below read its output with it.
python3 -c 'import yaml' 2>/dev/null || die "python3 with PyYAML (a docker-compose dependency) is missing"

passed=0 failed=0
check() { # check NAME CMD...: run CMD, count and report the result
  local name=$1 out; shift
  if out=$("$@" 2>&1); then
    passed=$((passed + 1)); printf 'ok    %s\n' "$name"
  else
    failed=$((failed + 1)); printf 'FAIL  %s\n' "$name"; [[ -n $out ]] && printf '%s\n' "$out" | sed 's/^/      /'
  fi
}

# Rendered configuration with the defaults (no SECKILL_* from the caller's
# environment) but the admin token, which has none: a generated one, as the
# file's header asks; and with other values from the environment.
RENDERED=$(mktemp) WITH_TOKEN=$(mktemp) ERRS=$(mktemp)
trap 'rm -f "$RENDERED" "$WITH_TOKEN" "$ERRS"' EXIT
TEST_TOKEN=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
export TEST_TOKEN
clean_env() { env -u SECKILL_TICKET_SECRET -u MARIADB_ROOT_PASSWORD SECKILL_ADMIN_TOKEN="$TEST_TOKEN" "$@"; }

parses() {
  clean_env docker-compose -f "$COMPOSE" config >"$RENDERED" 2>"$ERRS" || { cat "$ERRS"; return 1; }
  # Warnings (an unset variable without a default, a deprecated key) go to stderr.
  [[ ! -s $ERRS ]] || { echo "warnings:"; cat "$ERRS"; return 1; }
}

services_listed() {
  local got
  got=$(clean_env docker-compose -f "$COMPOSE" config --services | sort | tr '\n' ' ')
  [[ "$got" == "$SERVICES " ]] || { echo "services: got '$got', want '$SERVICES '"; return 1; }
}

names_in_env_go() {
  local name missing=0
  while read -r name; do
    grep -q "\"$name\"" "$ENV_GO" || { echo "$name is used in $COMPOSE but not defined in $ENV_GO"; missing=1; }
  done < <(grep -o 'SECKILL_[A-Z][A-Z0-9_]*' "$COMPOSE" | sort -u)
  return $missing
}

# py FILE CODE: run CODE with cfg = the rendered YAML of FILE.
py() { python3 -c "import os, sys, yaml; cfg = yaml.safe_load(open(sys.argv[1])); s = cfg['services']; $2" "$1"; }

replicas_configured() {
  py "$RENDERED" '
errs = []
for name in ("shop-1", "shop-2", "shop-3"):
    svc = s[name]; env = svc.get("environment", {})
    want = {"SECKILL_HTTP_ADDR": "0.0.0.0:8080", "SECKILL_FAULTS": "on", "SECKILL_ADMIN_TOKEN": os.environ["TEST_TOKEN"],
            "SECKILL_TICKET_SECRET": "",
            "SECKILL_REDIS_ADDR": "redis:6379", "SECKILL_ZK_SERVERS": "zookeeper-1:2181,zookeeper-2:2181,zookeeper-3:2181", "SECKILL_ETCD_ENDPOINTS": "etcd:2379",
            "SECKILL_SENTINEL_ADDRS": "sentinel-1:26379,sentinel-2:26379,sentinel-3:26379", "SECKILL_SENTINEL_MASTER": "seckill",
            "SECKILL_REDLOCK_ADDRS": "redlock-1:6379,redlock-2:6379,redlock-3:6379"}
    for k, v in want.items():
        if env.get(k) != v: errs.append(f"{name}: {k}={env.get(k)!r}, want {v!r}")
    if "@tcp(mariadb:3306)/seckill" not in env.get("SECKILL_MYSQL_DSN", ""): errs.append(f"{name}: DSN does not name mariadb")
    cmd, host = svc.get("command"), svc.get("hostname")
    if cmd != ["serve", "-replica-id", name]: errs.append(f"{name}: command {cmd}")
    if host != name: errs.append(f"{name}: hostname {host} (the announced URL uses it)")
    deps = svc.get("depends_on", {})
    for d in ("mariadb", "redis", "redlock-1", "redlock-2", "redlock-3", "zookeeper-1", "zookeeper-2", "zookeeper-3", "etcd"):
        if deps.get(d, {}).get("condition") != "service_healthy": errs.append(f"{name}: does not wait for {d} healthy")
    if "healthcheck" not in svc: errs.append(f"{name}: no healthcheck")
ports = [p for n in ("shop-1", "shop-2", "shop-3") for p in s[n].get("ports", [])]
published = [str(p.get("published") if isinstance(p, dict) else p) for p in ports]
if len(set(published)) != 3: errs.append(f"replica host ports not 3 distinct: {ports}")
for p in ports:
    if isinstance(p, dict) and p.get("host_ip") != "127.0.0.1": errs.append(f"port {p} beyond loopback")
    if isinstance(p, str) and not p.startswith("127.0.0.1:"): errs.append(f"port {p} beyond loopback")
for name, shop in (("agent-1", "shop-1"), ("agent-2", "shop-2")):
    svc = s[name]; ep, cmd = svc.get("entrypoint"), svc.get("command", [])
    if ep != ["/usr/local/bin/loadtest"] or cmd[:2] != ["agent", "--shop"]:
        errs.append(f"{name}: not `loadtest agent --shop URL`: {ep} {cmd}")
    elif not cmd[2].startswith(f"http://{shop}:8080,") or sorted(cmd[2].split(",")) != [f"http://shop-{i}:8080" for i in (1, 2, 3)]:
        errs.append(f"{name}: --shop must list every replica, {shop} first: {cmd[2:]}")
    if svc.get("depends_on", {}).get(shop, {}).get("condition") != "service_healthy": errs.append(f"{name}: does not wait for {shop}")
if errs: sys.exit("\n".join(errs))
'
}

token_from_environment() {
  SECKILL_ADMIN_TOKEN=s3cret-from-env-0123456789 SECKILL_TICKET_SECRET=ticket-from-env-0123456789 \
    docker-compose -f "$COMPOSE" config >"$WITH_TOKEN" 2>/dev/null || return 1
  py "$WITH_TOKEN" '
for name, want in (("SECKILL_ADMIN_TOKEN", "s3cret-from-env-0123456789"), ("SECKILL_TICKET_SECRET", "ticket-from-env-0123456789")):
    bad = [n for n in ("shop-1", "shop-2", "shop-3") if s[n]["environment"].get(name) != want]
    if bad: sys.exit(f"{name} from the environment not used by {bad}")
'
}

# No admin token ships: without one in the environment, compose stops and
# names the variable (a default would be everyone's token).
token_required() {
  local out
  if out=$(env -u SECKILL_ADMIN_TOKEN docker-compose -f "$COMPOSE" config 2>&1); then
    echo "docker-compose config succeeded without SECKILL_ADMIN_TOKEN"; return 1
  fi
  grep -q 'SECKILL_ADMIN_TOKEN' <<<"$out" || { echo "the error does not name SECKILL_ADMIN_TOKEN: $out"; return 1; }
  if grep -Eq '^[[:space:]]*SECKILL_(ADMIN_TOKEN|TICKET_SECRET): *"?[^"$ ]' "$COMPOSE"; then
    echo "$COMPOSE sets a secret to a literal value"; return 1
  fi
}

backends_configured() {
  py "$RENDERED" '
errs = []
if not s["mariadb"]["image"].startswith("mariadb:"): errs.append("mariadb image")
for n in ("redlock-1", "redlock-2", "redlock-3"):
    if "--save" not in s[n].get("command", []): errs.append(f"{n}: persistence not disabled")
# The stock and queue Redis: from a config file, persistence from
# SECKILL_REDIS_PERSISTENCE, none unless asked.
r = s["redis"]
script = " ".join(r.get("command", []))
if r.get("environment", {}).get("SECKILL_REDIS_PERSISTENCE") != "none": errs.append("redis: SECKILL_REDIS_PERSISTENCE default is not none")
if "redis-server /data/redis.conf" not in script or "appendonly %s" not in script: errs.append("redis: not started from a config file with its appendonly")
zk_ids = set()
for n in ("zookeeper-1", "zookeeper-2", "zookeeper-3"):
    e = s[n]["environment"]
    if e.get("ZOO_TICK_TIME") != "500": errs.append(f"{n}: tickTime not 500")
    if e.get("ZOO_SERVERS", "").count("server.") != 3: errs.append(f"{n}: not one of an ensemble of three")
    zk_ids.add(e.get("ZOO_MY_ID"))
if zk_ids != {"1", "2", "3"}: errs.append(f"ZooKeeper ids {zk_ids}, want 1, 2, 3")
if not s["etcd"]["image"].startswith("quay.io/coreos/etcd:v3.4"): errs.append("etcd: not the 3.4 server Debian ships")
for n in ("mariadb", "redis", "redlock-1", "redlock-2", "redlock-3", "zookeeper-1", "zookeeper-2", "zookeeper-3", "etcd"):
    if "healthcheck" not in s[n]: errs.append(f"{n}: no healthcheck (the replicas wait for it)")
if errs: sys.exit("\n".join(errs))
'
}

# Prometheus and Grafana read the repository's files: the folders they mount
# exist and hold what they are pointed at.
observability_configured() {
  py "$RENDERED" '
import os
errs = []
p, g = s["prometheus"], s["grafana"]
if "--config.file=/etc/prometheus/prometheus.yml" not in p.get("command", []): errs.append("prometheus: not on /etc/prometheus/prometheus.yml")
def mount(v):  # rendered as "source:target[:mode]" or as a mapping, by version
    if isinstance(v, dict): return v["target"], v["source"]
    src, target = v.split(":")[:2]
    return target, src
mounts = dict(mount(v) for v in p.get("volumes", []) + g.get("volumes", []))
want = {"/etc/prometheus": "deploy/prometheus", "/etc/grafana/provisioning": "deploy/grafana/provisioning",
        "/var/lib/grafana/dashboards": "deploy/grafana/dashboards"}
for target, src in want.items():
    got = mounts.get(target, "")
    if not got.endswith(src) or not os.path.isdir(got): errs.append(f"{target}: mounts {got!r}, want the folder {src}")
if not os.path.isfile(os.path.join(mounts.get("/etc/prometheus", ""), "targets", "compose.json")): errs.append("prometheus: no targets/compose.json")
if errs: sys.exit("\n".join(errs))
'
}

dockerfile_multistage() {
  local errs=0
  grep -Eq '^FROM golang:1\.26 AS build' Dockerfile || { echo "no golang:1.26 build stage"; errs=1; }
  grep -Eq 'go build .*-o /out/shop \./cmd/shop' Dockerfile || { echo "does not build ./cmd/shop"; errs=1; }
  grep -Eq 'go build .*-o /out/loadtest \./loadtest' Dockerfile || { echo "does not build ./loadtest"; errs=1; }
  [[ $(grep -c '^FROM ' Dockerfile) -ge 2 ]] || { echo "not multi-stage"; errs=1; }
  grep -E '^FROM ' Dockerfile | tail -n1 | grep -q 'slim' || { echo "runtime stage is not a slim image"; errs=1; }
  grep -q 'COPY --from=build' Dockerfile || { echo "runtime does not copy from the build stage"; errs=1; }
  grep -Eq '^USER [0-9]' Dockerfile || { echo "runtime runs as root"; errs=1; }
  return $errs
}

# The packages the Dockerfile builds exist (when Go is here: it is in CI).
dockerfile_targets_exist() {
  command -v go >/dev/null || { echo "go not installed: skipped"; return 0; }
  go list ./cmd/shop ./loadtest >/dev/null
}

dockerignore_excludes_state() {
  local p errs=0
  for p in .git .run bin; do
    grep -qx "$p" .dockerignore || { echo ".dockerignore does not exclude $p"; errs=1; }
  done
  return $errs
}

check "docker-compose config parses $COMPOSE without warnings" parses
check "services: $SERVICES" services_listed
check "every SECKILL_* name in $COMPOSE is defined in $ENV_GO" names_in_env_go
check "replicas: SECKILL_* settings, ids, hostnames, health-gated start, loopback host ports; agents" replicas_configured
check "SECKILL_ADMIN_TOKEN and SECKILL_TICKET_SECRET come from the environment" token_from_environment
check "no admin token ships: compose refuses to render without SECKILL_ADMIN_TOKEN, naming it" token_required
check "backends: images, no RedLock persistence, the queue Redis's from SECKILL_REDIS_PERSISTENCE, ZooKeeper tickTime 500, health checks" backends_configured
check "prometheus and grafana mount deploy/prometheus and deploy/grafana" observability_configured
check "Dockerfile: golang:1.26 build stage for ./cmd/shop and ./loadtest, slim non-root runtime" dockerfile_multistage
check "Dockerfile build targets are Go packages" dockerfile_targets_exist
check ".dockerignore keeps .git, .run and bin out of the build context" dockerignore_excludes_state

printf '%d passed, %d failed\n' "$passed" "$failed"
[[ $failed == 0 ]]

#!/usr/bin/env bash
# The dashboard's npm side and its browser test.
#
# usage: scripts/browser.sh web|npm|setup|run|test
#   web    npm ci in web/ (committed package-lock.json) and copy the chart
#          library into the embedded folder web/static/assets/vendor/
#   npm    npm ci in e2e/browser/ (playwright-core)
#   setup  web and npm, plus Debian's chromium (and a CJK font for the 中文
#          labels) when missing
#   run    the browser test (node --test) with what is there: a `shop demo`
#          with 2 replicas and 2 agents from bin/, driven through the page;
#          screenshots go to e2e/browser/test-results/
#   test   setup, build bin/shop and bin/loadtest, run
# Installing packages needs root (as make test does); npm needs the npm
# registry, nothing else: the page itself never loads anything from outside.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CHROMIUM=/usr/bin/chromium
GO="${GO:-go}"

say() { printf 'browser.sh: %s\n' "$*"; }
die() { printf 'browser.sh: %s\n' "$*" >&2; exit 1; }

# npm_ci DIR: npm ci unless node_modules is newer than the lock file (npm
# ci rewrites node_modules/.package-lock.json; a git checkout of a new lock
# file makes it older again).
npm_ci() {
  local dir=$1
  command -v npm >/dev/null || die "npm is missing: apt-get install -y nodejs npm (Node >= 20)"
  if [[ $dir/node_modules/.package-lock.json -nt $dir/package-lock.json ]]; then
    return 0
  fi
  say "npm ci in ${dir#"$ROOT"/}"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
}

apt_install() {
  [[ $(id -u) == 0 ]] || die "need root to install $* (or install it yourself)"
  say "installing $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" >/dev/null ||
    { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" >/dev/null; }
}

web() {
  npm_ci "$ROOT/web"
  sh "$ROOT/web/copy-vendor.sh"
}

setup() {
  web
  [[ -x $CHROMIUM ]] || apt_install chromium
  # Without a CJK font the 中文 labels render as boxes in screenshots.
  if command -v fc-list >/dev/null && [[ -z $(fc-list :lang=zh 2>/dev/null) ]]; then
    apt_install fonts-wqy-microhei || say "no CJK font: Chinese labels will show as boxes in screenshots"
  fi
  npm_ci "$ROOT/e2e/browser"
}

run() {
  [[ -x $CHROMIUM ]] || die "$CHROMIUM is missing: scripts/browser.sh setup installs it"
  # A fresh database each run: runs pile up in it otherwise, and the
  # dashboard's GET /api/runs (every run's figures) grew slow enough under a
  # loaded make test to miss the page's deadlines. Only the default DSN's:
  # a database given through SECKILL_BROWSER_DSN is the user's.
  if [[ -z ${SECKILL_BROWSER_DSN:-} ]]; then
    mariadb -h127.0.0.1 -P13306 -uroot --connect-timeout=5 \
      -e 'DROP DATABASE IF EXISTS seckill_test_browser; DROP DATABASE IF EXISTS seckill_test_shop; DROP DATABASE IF EXISTS seckill_test_queue' ||
      die "could not reset the browser tests' databases seckill_test_browser, seckill_test_shop and seckill_test_queue on 127.0.0.1:13306"
  fi
  cd "$ROOT/e2e/browser"
  # One file at a time by default. Side by side (3) they took 275 s instead
  # of 569 s on an idle machine, but in make test the 2 cores are already
  # full: two at a time took 568 s there (one at a time 578 s) and made the
  # Go tests beside them later (go-test 804 s instead of 717 s; three: 784 s).
  # --test-timeout bounds a hang, not a slow machine: node applies it to each
  # file as a whole too, and dashboard.test.mjs, 140 s alone, once took over
  # 300 s in a loaded CI run and was killed for it.
  node --test --test-reporter=spec --test-timeout=900000 \
    --test-concurrency="${SECKILL_BROWSER_CONCURRENCY:-1}" ./*.test.mjs
}

case "${1:-}" in
web) web ;;
npm) npm_ci "$ROOT/e2e/browser" ;;
setup) setup ;;
run) run ;;
test)
  setup
  (cd "$ROOT" && "$GO" build -o bin/shop ./cmd/shop && "$GO" build -o bin/loadtest ./loadtest)
  run
  ;;
*) die "usage: scripts/browser.sh web|npm|setup|run|test" ;;
esac

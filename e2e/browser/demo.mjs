// Starts and stops `bin/shop demo` for the browser test: a free base port,
// its own database and log folder, SIGINT to stop (as Ctrl-C would).
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function portFree(port) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** freeBasePort finds a port p with p .. p+n-1 all free on 127.0.0.1. */
export async function freeBasePort(n) {
  for (let i = 0; i < 50; i++) {
    const p = 20000 + Math.floor(Math.random() * 30000);
    let ok = true;
    for (let k = 0; k < n && ok; k++) ok = await portFree(p + k);
    if (ok) return p;
  }
  throw new Error('no free port range found');
}

/**
 * startDemo runs bin/shop demo with the given replicas and agents and
 * resolves once it prints the dashboard URL. It rejects when the demo exits
 * first or takes longer than timeoutMs.
 */
export async function startDemo({ replicas = 2, agents = 2, db = 'seckill_test_browser', timeoutMs = 90_000 } = {}) {
  // make test builds binaries of its own into SECKILL_TEST_BIN_DIR.
  const bin = process.env.SECKILL_TEST_BIN_DIR || path.join(ROOT, 'bin');
  const shop = path.join(bin, 'shop');
  if (!existsSync(shop) || !existsSync(path.join(bin, 'loadtest'))) {
    throw new Error(`${shop} or ${bin}/loadtest missing: run make build (or scripts/browser.sh) first`);
  }
  const port = await freeBasePort(replicas);
  const logDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-browser-logs-'));
  const env = {
    ...process.env,
    SECKILL_HTTP_ADDR: `127.0.0.1:${port}`,
    SECKILL_MYSQL_DSN: process.env.SECKILL_BROWSER_DSN || `root@tcp(127.0.0.1:13306)/${db}?parseTime=true`,
  };
  delete env.SECKILL_ADMIN_TOKEN; // the test drives the form without a token
  const child = spawn(shop, ['demo', '-replicas', String(replicas), '-agents', String(agents), '-log-dir', logDir],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`demo not up within ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const onData = (b) => {
      out += b;
      const m = out.match(/Dashboard: (http:\/\/\S+)/);
      if (m) { clearTimeout(timer); resolve(m[1].replace(/\/$/, '')); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`demo exited (${code}) before it was up:\n${out}`)); });
  });
  // The demo prints its URL once the replicas answer; the agents register
  // a moment later. A run started before then is refused (no_agents), so
  // wait until discovery lists every agent alive.
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let live = -1;
    try {
      const r = await fetch(`${url}/api/replicas`);
      if (r.ok) live = (await r.json()).filter((m) => m.kind === 'agent' && m.alive).length;
    } catch { /* the replica is still starting */ }
    if (live >= agents) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`demo up but ${live} of ${agents} agents alive in GET /api/replicas within ${timeoutMs} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const stop = () => new Promise((resolve) => {
    if (child.exitCode !== null) { resolve(child.exitCode); return; }
    // Beyond the demo's own bound (30 s graceful stop, then it SIGKILLs its children).
    const kill = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.once('exit', (code, sig) => { clearTimeout(kill); resolve(code ?? sig); });
    child.kill('SIGINT');
  });
  // pids: the children as the demo reported them ("shop-1    pid 123   URL   up").
  const pids = () => Object.fromEntries([...out.matchAll(/^(\S+)\s+pid (\d+)\s+(\S+)/gm)].map((m) => [m[1], { pid: Number(m[2]), url: m[3] }]));
  return { url, port, logDir, stop, pids, output: () => out };
}

// A stand-in for a shop replica that serves the dashboard's files from
// web/static and answers the few API calls the Timeline section makes from
// fixtures: no database, no demo. For the timeline's browser test and for
// screenshots (`node fixture-server.mjs 8099` serves until stopped).
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { answer, generateSale } from './fixtures/generate.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const STATIC = path.resolve(HERE, '../../web/static');
// The shop's own policy (internal/httpapi/static.go, dashboardCSP): served
// here too, so that what it forbids (a style attribute, an inline script)
// fails on the fixture as it does on the shop.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self' http: https:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json' };

/**
 * Generated sales of 20,000 sections (fixtures/generate.mjs): 8 answers as
 * the API does (summarised past 5,000 sections in the window asked for), 9
 * always whole (the drawing's worst case, for scripts/bench-timeline.mjs).
 */
const BIG = 20000;
let big = null;
const bigSale = () => (big ??= generateSale(BIG));
const GENERATED = { 8: 5000, 9: Infinity };

/** The fixture's sale as GET /api/sales lists it, and the fault table's one kind the fixture uses. */
const SALES = [{ id: 7, name: 'fixture', strategy: 'redis', initial_stock: 10, stock: 3, sold: 7, oversold: 0, lost_updates: 0, violations: 5, fenced_writes: 1, duplicates: 0 },
  ...[8, 9].map((id) => ({ id, name: 'generated', strategy: 'redis', initial_stock: BIG, stock: 0, sold: BIG, oversold: 0, lost_updates: 0, violations: 10, fenced_writes: 10, duplicates: 0 }))];
const FAULTS = { enabled: false, replica: 'fixture', kinds: [{ kind: 'pause_holder', title: { en: 'Pause the lock holder', zh: '暂停持锁者' }, parameters: [] }] };

/**
 * startFixtureServer listens on port (0: any) and returns {url, close}.
 * opts.live: the stream sends a running run (fixtures/run-redis.json) once
 * a second, its sold count growing, and /api/strategies lists the 18
 * strategies (fixtures/strategies.json): for the band and the Strategies page.
 * opts.extra adds (or replaces) canned answers: path -> () => body.
 */
export async function startFixtureServer(port = 0, timeline = path.join(HERE, 'fixtures/timeline-redis-pause.json'), opts = {}) {
  const timelineAsks = [];
  const strategies = opts.live ? JSON.parse(await readFile(path.join(HERE, 'fixtures/strategies.json'), 'utf8')) : [];
  const runs = opts.live ? JSON.parse(await readFile(path.join(HERE, 'fixtures/run-redis.json'), 'utf8')) : [];
  const streams = new Set();
  let tick = 0;
  const beat = opts.live ? setInterval(() => {
    tick++;
    const sale = runs[0].steps[0].sale;
    Object.assign(sale, { sold: Math.min(sale.initial_stock, 30 + tick), stock: Math.max(0, sale.initial_stock - 30 - tick) });
    for (const res of streams) res.write(`event: runs\ndata: ${JSON.stringify(runs)}\n\n`);
  }, 1000) : null;
  const api = {
    '/api/sales': () => SALES,
    '/api/sales/7': () => SALES[0],
    '/api/faults': () => FAULTS,
    '/api/strategies': () => strategies,
    '/api/runs': () => [],
    '/api/replicas': () => [],
    '/api/lessons': () => [],
    '/api/limits': () => ({}),
    ...(opts.extra || {}),
  };
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    const p = url.pathname;
    const json = (status, body) => { res.writeHead(status, { 'Content-Type': 'application/json' }); res.end(JSON.stringify(body)); };
    if (p === '/api/events') { // a stream that stays open and says nothing
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
      res.write(': fixture\n\n');
      if (opts.live) {
        res.write(`event: runs\ndata: ${JSON.stringify(runs)}\n\n`);
        streams.add(res);
        res.on('close', () => streams.delete(res));
      }
      return;
    }
    const gen = /^\/api\/sales\/(\d+)\/timeline$/.exec(p);
    if (gen && GENERATED[gen[1]]) {
      const sale = { ...bigSale(), saleID: Number(gen[1]) };
      const num = (k, d) => (url.searchParams.has(k) ? Number(url.searchParams.get(k)) : d);
      timelineAsks.push(url.search);
      return json(200, answer(sale, num('from', sale.from), num('to', sale.to), GENERATED[gen[1]]));
    }
    if (p === '/api/sales/7/timeline') { res.writeHead(200, { 'Content-Type': 'application/json' }); res.end(await readFile(timeline)); return; }
    if (api[p]) return json(200, api[p]());
    if (p.startsWith('/api/')) return json(404, { error: 'not_found', message: `no fixture for ${p}` });
    if (p === '/healthz') { res.writeHead(200, { Date: new Date().toUTCString() }); res.end('ok'); return; }
    const file = path.join(STATIC, p === '/' ? 'index.html' : path.normalize(p));
    if (!file.startsWith(STATIC)) { res.writeHead(403); res.end(); return; }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream', 'Content-Security-Policy': CSP });
      res.end(body);
    } catch {
      res.writeHead(404); res.end();
    }
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    timelineAsks, // the query of each generated sale's timeline asked for
    close: () => { clearInterval(beat); server.closeAllConnections(); return new Promise((resolve) => server.close(resolve)); },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const s = await startFixtureServer(Number(process.argv[2] || 8099), undefined, { live: process.argv.includes('--live') });
  console.log(`serving the dashboard with fixtures at ${s.url}`);
}

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
const SALES = [{ id: 7, name: 'fixture', product: 'Mechanical keyboard', strategy: 'redis', initial_stock: 10, stock: 3, sold: 7, oversold: 0, lost_updates: 0, violations: 5, fenced_writes: 1, duplicates: 0 },
  ...[8, 9].map((id) => ({ id, name: 'generated', strategy: 'redis', initial_stock: BIG, stock: 0, sold: BIG, oversold: 0, lost_updates: 0, violations: 10, fenced_writes: 10, duplicates: 0 }))];
const FAULTS = { enabled: false, replica: 'fixture', kinds: [{ kind: 'pause_holder', title: { en: 'Pause the lock holder', zh: '暂停持锁者' }, parameters: [] }] };

/** The herd of sale 7 as GET /api/sales/7/herd answers it: sold out in 435 ms, 600 answers in the first second. */
export const HERD = {
  sale_id: 7, opens_at: '2026-11-26T15:00:00Z', initial_stock: 20, sold: 20, sold_out: true,
  first_order_at: '2026-11-26T15:00:00.012Z', last_order_at: '2026-11-26T15:00:00.435287Z', sell_out_ms: 435.287, sell_out_from_first_ms: 423.287,
  first_second: { answers: 600, orders: 20, sold_out: 571, others: 9, p50_ms: 1.2, p99_ms: 48.5,
    layers: [{ layer: 'rate_limit', count: 9, percent: 1.5 }, { layer: 'sold_out_cache', count: 521, percent: 86.8 }, { layer: 'lock', count: 70, percent: 11.7 }] },
  answers: 2000,
  layers: [{ layer: 'rate_limit', count: 9, percent: 0.5 }, { layer: 'sold_out_cache', count: 1921, percent: 96 }, { layer: 'lock', count: 70, percent: 3.5 }],
};

/** Sale 7's link for students, as GET /api/sales/7/share answers on a shop listening on every interface. */
export const SHARE = { shared: true, url: 'http://192.168.1.23:8080/shop/7', listen: '0.0.0.0:8080', admin_token: true,
  message: { en: 'Phones on the same network open this link.', zh: '同一网络内的手机打开这个链接即可。' } };
// A 1x1 black PNG: the QR code's stand-in (the shop draws the real one).
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==', 'base64');

/**
 * startFixtureServer listens on port (0: any) and returns {url, close}.
 * opts.live: the stream sends a running run (fixtures/run-redis.json) once
 * a second, its sold count growing, and /api/strategies lists the 18
 * strategies (fixtures/strategies.json): for the band and the Strategies page.
 * opts.handle(req, res, url), when given, answers first: true when it did.
 * opts.extra adds (or replaces) canned answers: path -> () => body.
 * opts.runs: the `runs` event the stream sends once (default: none);
 * opts.share: GET /api/sales/7/share's answer (default SHARE).
 * GET /api/matrix answers fixtures/matrix-report.json, observed; GET
 * /api/interview fixtures/interview-page.json (a page filled on a demo);
 * GET /api/class/cases two lessons' cases (CLASS_CASES).
 */
/** The Class section's question form: two lessons and their cases, as GET /api/class/cases answers. */
const CLASS_CASES = { lessons: [
  { lesson: 'mutex-across-replicas', title: 'An in-process lock does not cross replicas', title_zh: '进程内的锁管不到其他实例',
    cases: [{ en: 'Two replicas sell the same stock, each guarding it with its own in-process mutex.', zh: '两个实例卖同一份库存，各自用进程内的互斥锁保护它。' },
      { en: 'The same two replicas, now locking the stock row with SELECT … FOR UPDATE in the database.', zh: '同样的两个实例，这次在数据库里用 SELECT … FOR UPDATE 锁住库存行。' }] },
  { lesson: 'ttl-shorter-than-work', title: 'A TTL shorter than the work lets two holders in without the watchdog', title_zh: '过期时间短于业务耗时：没有看门狗就会有两个持锁者',
    cases: [{ en: 'A Redis lock with a 1 s TTL guards 1.8 s of work, and no watchdog renews it.', zh: 'Redis 锁的过期时间是 1 秒，锁内业务要做 1.8 秒，没有看门狗续期。' }] },
] };

export async function startFixtureServer(port = 0, timeline = path.join(HERE, 'fixtures/timeline-redis-pause.json'), opts = {}) {
  const timelineAsks = [];
  const strategies = opts.live ? JSON.parse(await readFile(path.join(HERE, 'fixtures/strategies.json'), 'utf8')) : [];
  const runs = opts.live ? JSON.parse(await readFile(path.join(HERE, 'fixtures/run-redis.json'), 'utf8')) : [];
  // The matrix report of internal/matrix's fixture (go test ./internal/matrix -run TestExported -update).
  const matrix = { observed: true, report: JSON.parse(await readFile(path.join(HERE, 'fixtures/matrix-report.json'), 'utf8')) };
  const interview = JSON.parse(await readFile(path.join(HERE, 'fixtures/interview-page.json'), 'utf8'));
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
    '/api/sales/8': () => SALES[1],
    '/api/sales/7/herd': () => HERD,
    '/api/sales/7/share': () => opts.share || SHARE,
    '/api/faults': () => FAULTS,
    '/api/strategies': () => strategies,
    '/api/runs': () => [],
    '/api/replicas': () => [],
    '/api/lessons': () => [],
    '/api/limits': () => ({}),
    '/api/matrix': () => matrix,
    '/api/interview': () => interview,
    '/api/class/cases': () => CLASS_CASES,
    ...(opts.extra || {}),
  };
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    const p = url.pathname;
    const json = (status, body) => { res.writeHead(status, { 'Content-Type': 'application/json' }); res.end(JSON.stringify(body)); };
    if (opts.handle && await opts.handle(req, res, url)) return;
    if (p === '/api/events') { // a stream that stays open and says nothing
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
      res.write(': fixture\n\n');
      if (opts.live) {
        res.write(`event: runs\ndata: ${JSON.stringify(runs)}\n\n`);
        streams.add(res);
        res.on('close', () => streams.delete(res));
      }
      if (opts.runs) res.write(`event: runs\ndata: ${JSON.stringify(opts.runs)}\n\n`);
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
    if (p === '/api/sales/7/qr.png') { res.writeHead(200, { 'Content-Type': 'image/png' }); res.end(PNG); return; }
    if (api[p]) return json(200, api[p]());
    if (p.startsWith('/api/')) return json(404, { error: 'not_found', message: `no fixture for ${p}` });
    if (p === '/healthz') { res.writeHead(200, { Date: new Date().toUTCString() }); res.end('ok'); return; }
    // The shop page, as the shop serves it for /shop/{id}.
    const file = path.join(STATIC, p === '/' ? 'index.html' : /^\/shop\/\d+$/.test(p) ? 'shop.html' : path.normalize(p));
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

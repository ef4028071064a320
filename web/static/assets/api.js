// The API client: every call goes to the replica that served the page.
// When the event stream breaks, the stream retries that replica and, if it
// is gone, moves the page to any live shop replica from the last replicas
// list (a navigation, so no cross-origin request is needed): the
// dashboard keeps working when a replica dies.

const TOKEN_KEY = 'seckill.adminToken';

/** ApiError carries the API's {error, message, field} and the HTTP status. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message || `HTTP ${status}`);
    this.status = status;
    this.code = body?.error || '';
    this.field = body?.field || '';
  }
}

/** getJSON fetches path from the current replica. */
export async function getJSON(path, { timeoutMs = 5000 } = {}) {
  const res = await fetch(path, { signal: AbortSignal.timeout(timeoutMs), cache: 'no-store' });
  return decode(res);
}

/** postJSON posts body to path with the admin token, if one is stored. */
/**
 * getOnce is getJSON for an answer that does not change (the lessons'
 * catalogue, a finished sale's timeline): every caller of the page shares
 * one request per path, asked again only after a failure.
 */
const once = new Map();
export function getOnce(path, opts) {
  if (!once.has(path)) once.set(path, getJSON(path, opts).catch((err) => { once.delete(path); throw err; }));
  return once.get(path);
}

export function postJSON(path, body, opts) { return sendJSON('POST', path, body, opts); }

/** putJSON puts body to path with the admin token, if one is stored. */
export function putJSON(path, body, opts) { return sendJSON('PUT', path, body, opts); }

async function sendJSON(method, path, body, { timeoutMs = 15000 } = {}) {
  const headers = { 'Content-Type': 'application/json' };
  const token = adminToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(path, { method, headers, body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs) });
  return decode(res);
}

async function decode(res) {
  let body = null;
  try { body = await res.json(); } catch { /* an empty or non-JSON body */ }
  if (!res.ok) throw new ApiError(res.status, body);
  return body;
}

/** adminToken is the token kept for this tab only (sessionStorage). */
export function adminToken() { return sessionStorage.getItem(TOKEN_KEY) || ''; }
export function setAdminToken(t) {
  if (t) sessionStorage.setItem(TOKEN_KEY, t); else sessionStorage.removeItem(TOKEN_KEY);
}

/** reachable says whether url answers at all (no-cors: an opaque answer is enough). */
async function reachable(url) {
  try {
    await fetch(url + '/healthz', { mode: 'no-cors', cache: 'no-store', signal: AbortSignal.timeout(1500) });
    return true;
  } catch { return false; }
}

/**
 * openStream follows GET /api/events. handlers: {runs(list), replicas(list),
 * error(body), state(text, ok), moveTo(url)}. On a broken stream it retries
 * this replica once a second; when this replica does not answer and
 * another live one does, it calls moveTo(url) (the page navigates there).
 */
export function openStream(handlers) {
  let es = null;
  let shops = []; // live shop URLs from the last `replicas` event
  let retry = null;
  const own = location.origin;

  const connect = () => {
    es = new EventSource('/api/events');
    // Every good event says the stream is live: after a server `error`
    // event (a database hiccup) the stream stays open, no new `open` comes.
    const live = () => handlers.state(`live from ${own}`, true);
    es.addEventListener('open', live);
    es.addEventListener('runs', (e) => { live(); handlers.runs(JSON.parse(e.data)); });
    es.addEventListener('replicas', (e) => {
      live();
      const list = JSON.parse(e.data);
      shops = list.filter((m) => m.kind === 'shop' && m.alive && m.url).map((m) => m.url.replace(/\/$/, ''));
      handlers.replicas(list);
    });
    es.addEventListener('error', (e) => {
      if (e.data) { handlers.error(JSON.parse(e.data)); return; } // the server's `event: error`
      es.close();
      handlers.state('stream lost: reconnecting…', false);
      if (!retry) retry = setTimeout(failover, 1000);
    });
  };

  const failover = async () => {
    retry = null;
    if (await reachable(own)) { connect(); return; }
    for (const url of shops.filter((u) => u !== own)) {
      if (await reachable(url)) { handlers.state(`${own} is gone: moving to ${url}`, false); handlers.moveTo(url); return; }
    }
    handlers.state('no replica answers: retrying…', false);
    retry = setTimeout(failover, 1000);
  };

  connect();
}

// The event stream's connection state (web/static/assets/api.js) without a
// browser: a fake EventSource plays the server's events.
import { test } from 'node:test';
import assert from 'node:assert/strict';

class FakeEventSource {
  static last = null;
  constructor(url) { this.url = url; this.listeners = {}; FakeEventSource.last = this; }
  addEventListener(type, fn) { (this.listeners[type] ||= []).push(fn); }
  emit(type, data) { for (const fn of this.listeners[type] || []) fn(data === undefined ? {} : { data: JSON.stringify(data) }); }
  close() { this.closed = true; }
}
globalThis.EventSource = FakeEventSource;
globalThis.location = { origin: 'http://shop-a' };
const { openStream } = await import('../../web/static/assets/api.js');

test('after a server error event, the next snapshot shows the stream live again', () => {
  const shown = { text: '', ok: null };
  const set = (text, ok) => { shown.text = text; shown.ok = ok; };
  openStream({ runs() {}, replicas() {}, moveTo() {}, state: set,
    error: (body) => set(`server: ${body.message}`, false) });
  const es = FakeEventSource.last;
  es.emit('open');
  assert.deepEqual(shown, { text: 'live from http://shop-a', ok: true });
  // The database hiccups once: the stream stays open and says so...
  es.emit('error', { error: 'db_unavailable', message: 'runs: the database does not answer' });
  assert.deepEqual(shown, { text: 'server: runs: the database does not answer', ok: false });
  assert.equal(es.closed, undefined, 'a server error event must not close the stream');
  // ...and the next good snapshot clears it: no reconnect (and no `open`) comes.
  es.emit('runs', []);
  assert.deepEqual(shown, { text: 'live from http://shop-a', ok: true });
  es.emit('error', { error: 'db_unavailable', message: 'replicas: the database does not answer' });
  es.emit('replicas', []);
  assert.deepEqual(shown, { text: 'live from http://shop-a', ok: true });
});

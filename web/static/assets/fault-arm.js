// A fault armed for the next run, and what the band says about faults.
// "Arm for the next run" on a fault card (faults.js) fills the Run form with
// the kind's arm (faults-model.js: the settings on which it shows) and
// marks the fault armed; once the run started next has buyers inside
// (fireNow), the page posts the fault with the run's sale. The Run form and
// the band say what is armed and when it fired; once the step is over the
// band says what the fault did (the timeline's fault_effects), and the
// charts mark each fault of the step.
import { getJSON, postJSON } from './api.js';
import { el } from './dom.js';
import { addLabels, label } from './i18n.js';
import { armForm, armedFault, fireNow } from './faults-model.js';

addLabels({
  armed: ['armed', '已设置'],
  armedOn: ['on replica', '于实例'],
  armedWaits: ['fires when the next run has buyers inside', '下一次压测有买家进入锁内时触发'],
  armedFired: ['fired at', '触发于'],
  armedFailed: ['could not fire', '未能触发'],
  armedFencing: ['then run it again with fencing on', '然后开启防护令牌再运行一次'],
  armedFencingOff: ['then run it again with fencing off', '然后关闭防护令牌再运行一次'],
  disarm: ['Disarm', '取消设置'],
});

const clock = (ms) => new Date(ms).toLocaleTimeString('en-GB');

/**
 * initFaultArm wires arming to the Run form (form), the charts and the
 * band. zh() says whether Chinese is on; strategies() the names the form
 * offers. Returns arm(kind, {replica, forward}) for the fault cards,
 * started(run) for the run form, sample(run, step) for each live sample,
 * follow(step) for a step the band shows that is no load run's (a lesson's
 * case, the Timeline's sale),
 * injected({kind, at, ms}) for a fault injected from the Faults page, and
 * relabel() after a language switch.
 */
export function initFaultArm({ form, charts, zh, strategies }) {
  let armed = null; // {k, replica, forward, runId, fired, at, error}
  let effects = { sale: 0, list: [] }; // the fault_effects shown in the band: of the band's sale only
  const checked = new Set(); // sale ids whose timeline was read for its faults
  const line = document.querySelector('#armed');
  const note = el('ul', { id: 'fault-note', class: 'fault-note', 'aria-live': 'polite' });
  note.hidden = true;
  // On the band's row under its heading, after the verdict's reason.
  const notes = document.querySelector('#band-notes');
  if (notes) notes.append(note);
  else document.querySelector('#verdict').after(note);
  // The armed line names the other fencing setting: it follows the checkbox.
  form.elements.fencing?.addEventListener('change', () => render());

  function set(name, v) {
    const input = form.elements[name];
    if (!input) return;
    if (input.type === 'checkbox') input.checked = v; else input.value = String(v);
    input.dispatchEvent(new Event('change', { bubbles: true }));
  }

  function armedText() {
    if (!armed) return '';
    const z = zh();
    const head = `${label('armed', z)}: ${armed.k.kind} ${label('armedOn', z)} ${armed.replica || '–'}`;
    if (armed.error) return `${head}: ${label('armedFailed', z)} (${armed.error})`;
    if (armed.fired) return `${head}: ${label('armedFired', z)} ${clock(armed.at)}`;
    // The other side of the comparison: whichever the form does not hold now.
    const fenced = form.elements.fencing?.checked;
    const again = armed.k.arm?.fencing?.length > 1 ? `; ${label(fenced ? 'armedFencingOff' : 'armedFencing', z)}` : '';
    return `${head}: ${label('armedWaits', z)}${again}`;
  }

  function render() {
    const text = armedText();
    line.hidden = !text;
    const disarm = el('button', { type: 'button', class: 'link', text: label('disarm', zh()) });
    disarm.addEventListener('click', () => { armed = null; render(); });
    line.replaceChildren(text, ...(armed && !armed.fired ? [' ', disarm] : []));
    const z = zh();
    // The band, in one short line: what is armed until the fault's effect is known, then that.
    const short = armed && !armed.error
      ? `${label('armed', z)}: ${armed.k.kind} → ${armed.replica || '–'}${armed.fired ? ` (${label('armedFired', z)} ${clock(armed.at)})` : ''}`
      : text;
    const items = [...(short && !effects.list.length ? [el('li', { class: 'armed-line', text: short })] : []),
      ...effects.list.map((e) => el('li', { class: e.damaged ? 'bad' : 'why', 'data-kind': e.kind,
        text: `${label(`f${e.kind}`, z)}: ${z && e.zh ? e.zh : e.en}` }))];
    note.hidden = !items.length;
    note.replaceChildren(...items);
  }

  function arm(k, { replica, forward }) {
    const values = armForm(k, strategies());
    for (const [name, v] of Object.entries(values)) set(name, v);
    armed = { k, replica, forward, runId: 0, fired: false };
    render();
    location.hash = '#/run';
    line.scrollIntoView?.({ block: 'nearest' });
  }

  function started(run) {
    if (armed && !armed.runId) armed.runId = run.id;
    else if (armed?.fired) armed = null; // fired in a previous run: the line has said so
    render();
  }

  async function fire(step) {
    armed.fired = true;
    armed.at = Date.now();
    const k = armed.k;
    try {
      await postJSON('/api/faults', armedFault(k, step.sale_id, armed.forward ? armed.replica : ''));
      const ms = Number(k.arm?.params?.ms) || 0;
      charts.mark(armed.at / 1000, k.kind, ms ? (armed.at + ms) / 1000 : undefined);
    } catch (err) {
      armed.error = err.message;
    }
    render();
  }

  let shown = 0; // the sale the band shows
  const said = new Map(); // sale id -> its fault_effects, once read

  async function readEffects(saleId) {
    let t;
    try { t = await getJSON(`/api/sales/${saleId}/timeline`, { timeoutMs: 15000 }); } catch { checked.delete(saleId); return; }
    if (saleId === shown) for (const f of t.faults || []) charts.mark(f.from / 1000, f.kind, f.to ? f.to / 1000 : undefined);
    said.set(saleId, t.fault_effects || []);
    if (saleId === shown) { effects = { sale: saleId, list: said.get(saleId) }; render(); }
  }

  /**
   * follow is told the step the band shows, whatever put it there (a load
   * run, a lesson, the Timeline's sale): the band's fault note is that
   * sale's, never an earlier one's; a finished step's faults are read once.
   */
  function follow(step) {
    const sale = step?.sale_id || 0;
    if (sale !== shown) {
      shown = sale;
      effects = { sale, list: said.get(sale) || [] };
      render();
    }
    if (step?.status === 'done' && sale && !checked.has(sale)) {
      checked.add(sale);
      readEffects(sale);
    }
  }

  function sample(run, step) {
    if (fireNow(armed, run)) fire(run.steps.find((s) => s.status === 'running'));
    follow(step);
  }

  function injected({ kind, at, ms }) {
    charts.mark(at / 1000, kind, ms ? (at + ms) / 1000 : undefined);
  }

  return { arm, started, sample, follow, injected, relabel: render };
}

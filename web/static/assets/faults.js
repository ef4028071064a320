// The Faults section: one small form per fault kind of the table that GET
// /api/faults serves (its title, description, parameters with their bounds
// and choices: faults-model.js), and a replica picker. POST /api/faults
// goes to the replica that served the page, which forwards it to the chosen
// one. The page does not second-guess the
// inputs: the API checks them and its refusal names the field.
import { ApiError, getJSON, postJSON } from './api.js';
import { el } from './dom.js';
import { addLabels, applyLabels } from './i18n.js';
import { faultLabels, needLabels, paramControl } from './faults-model.js';
import { applyFaultLimits } from './limits.js';

const $ = (sel) => document.querySelector(sel);

addLabels({
  faultNeeds: ['Shows something with', '需要以下条件才有效果'],
  armNext: ['Arm for the next run', '为下一次压测设置'],
});

/** param builds the label and input for one parameter of a kind. */
function param(kind, p) {
  const id = `fault-${kind}-${p.name}`;
  const c = paramControl(p);
  let input;
  if (c.tag === 'select') {
    input = el('select', { id, name: p.name }, ...c.options.map((n) => el('option', { value: n, text: n })));
  } else if (c.type === 'number') {
    input = el('input', { id, name: p.name, type: 'number', inputmode: 'numeric', min: c.min });
    if (c.max) input.max = c.max;
    if (c.value) input.value = input.defaultValue = c.value;
  } else {
    input = el('input', { id, name: p.name, type: 'text' });
  }
  input.addEventListener('input', () => { input.dataset.touched = '1'; });
  return el('label', { for: id }, el('span', { 'data-l': `p${p.name}`, text: p.name }), input);
}

/**
 * initFaults builds the section. opts.zh() says whether Chinese labels are
 * on; opts.needToken(err) handles a 401 (403 forbidden for faults);
 * opts.onArm(kind, {replica, forward}) arms a kind for the next run (app.js fills the
 * Run form); opts.onInjected({kind, replica, at, ms}) hears each fault injected
 * here (the charts mark it). Returns setReplicas(list) (the
 * replicas events keep the picker current) and setSaleId(id) (the live
 * run's sale, the default of every sale_id input).
 */
export function initFaults({ zh, needToken, onArm = () => {}, onInjected = () => {} }) {
  let own = ''; // this page's replica id
  let enabled = false;
  let shops = []; // [{id, alive, url}]
  const picker = $('#fault-replica');

  function fillPicker() {
    const keep = picker.value || own;
    const sig = shops.map((m) => `${m.id}:${m.alive}`).join() + own;
    if (picker.dataset.sig === sig) return;
    picker.dataset.sig = sig;
    picker.replaceChildren(...shops.map((m) => {
      const o = el('option', { value: m.id, text: `${m.id}${m.id === own ? ' (serves this page)' : ''}${m.alive ? '' : ' (gone)'}` });
      o.disabled = !m.alive;
      return o;
    }));
    if (shops.some((m) => m.id === keep && m.alive)) picker.value = keep;
  }

  function setReplicas(list) {
    shops = list.filter((m) => m.kind === 'shop');
    if (!own) own = shops.find((m) => m.url && m.url.replace(/\/$/, '') === location.origin)?.id || '';
    fillPicker();
  }

  async function inject(form, kind, params) {
    const out = form.querySelector('.msg');
    const btn = form.querySelector('button.inject');
    out.className = 'msg';
    for (const i of form.querySelectorAll('[aria-invalid]')) i.removeAttribute('aria-invalid');
    const body = { kind };
    for (const p of params) {
      const v = form.elements[p.name].value.trim();
      if (v === '') continue; // left out: the API says it is required
      body[p.name] = p.type === 'duration_ms' || p.type === 'id' ? Number(v) : v;
    }
    const target = picker.value;
    // The replica serving the page runs it itself; any other is forwarded.
    if (target && target !== own) body.replica = target;
    btn.disabled = true;
    out.textContent = `injecting ${kind} into ${target || 'this replica'}…`;
    try {
      const res = await postJSON('/api/faults', body);
      onInjected({ kind, replica: target || own, at: Date.now(), ms: body.ms });
      const what = Object.entries(res || {}).map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : v}`).join(', ');
      out.textContent = `Accepted by ${target || 'this replica'} at ${new Date().toLocaleTimeString('en-GB')}: ${what}`;
      out.classList.add('good');
    } catch (err) {
      out.classList.add('bad');
      if (err instanceof ApiError && (err.status === 401 || err.code === 'forbidden')) {
        needToken(err);
        out.textContent = `${err.message}: enter the admin token at the top of the page, then inject again.`;
      } else if (err instanceof ApiError) {
        out.textContent = `Refused${err.field ? ` (${err.field})` : ''}: ${err.message}`;
        const f = err.field && (form.elements[err.field] || (err.field === 'replica' ? picker : null));
        if (f) { f.setAttribute('aria-invalid', 'true'); f.focus(); }
      } else {
        out.textContent = `Failed: ${err.message}`;
      }
    } finally {
      btn.disabled = !enabled;
    }
  }

  function kindForm(k) {
    const id = `fault-${k.kind}`;
    const params = k.parameters || [];
    const btn = el('button', { type: 'submit', class: 'inject' }, el('span', { 'data-l': 'inject', text: 'Inject' }),
      el('span', { class: 'sr-only', text: ` ${k.kind}` }));
    btn.disabled = !enabled;
    const arm = el('button', { type: 'button', class: 'arm', 'data-l': 'armNext', text: 'Arm for the next run' });
    arm.disabled = !enabled;
    // The replica to name (the picked one, else this page's) and whether the
    // POST must be forwarded to it.
    // An arm on one replica drives the first by id (as the runs API picks
    // it): the fault goes there, where its holder is.
    arm.addEventListener('click', () => {
      const first = k.arm?.replicas === 1 ? shops.filter((m) => m.alive).map((m) => m.id).sort()[0] : '';
      if (first) picker.value = first;
      const target = picker.value || own;
      onArm(k, { replica: target, forward: target !== own });
    });
    const needs = Object.keys(needLabels(k)).map((key) => el('li', { 'data-l': key, text: key }));
    const form = el('form', { class: 'fault', id, 'data-kind': k.kind, novalidate: '', 'aria-labelledby': `${id}-h`, 'aria-describedby': `${id}-d` },
      el('h3', { id: `${id}-h` }, el('span', { 'data-l': `f${k.kind}`, text: k.kind }), ' ', el('code', { text: k.kind })),
      el('p', { class: 'note', id: `${id}-d`, ...(k.descriptions?.en ? { 'data-l': `d${k.kind}` } : {}), text: k.description }),
      el('div', { class: 'fault-needs' }, el('strong', { 'data-l': 'faultNeeds', text: 'Shows something with' }),
        el('ul', {}, ...needs), arm),
      el('div', { class: 'fault-params' }, ...params.map((p) => param(k.kind, p)), btn),
      el('p', { class: 'msg', role: 'status', 'aria-live': 'polite' }));
    form.addEventListener('submit', (e) => { e.preventDefault(); inject(form, k.kind, params); });
    return form;
  }

  async function load() {
    const box = $('#fault-kinds');
    let info;
    try {
      [info] = await Promise.all([getJSON('/api/faults'),
        getJSON('/api/replicas').then(setReplicas).catch(() => {})]);
    } catch (err) {
      box.replaceChildren(el('p', { class: 'msg bad', text: `Cannot list the fault kinds: ${err.message}` }));
      return;
    }
    enabled = !!info.enabled;
    if (info.replica) { own = info.replica; picker.dataset.sig = ''; fillPicker(); }
    $('#faults-off').hidden = enabled;
    picker.disabled = !enabled;
    addLabels(faultLabels(info.kinds));
    for (const k of info.kinds || []) addLabels(needLabels(k));
    box.replaceChildren(...(info.kinds || []).map(kindForm));
    applyFaultLimits(box);
    applyLabels(box, zh());
  }

  load();
  return {
    setReplicas,
    setSaleId(id) {
      for (const i of document.querySelectorAll('#fault-kinds input[name=sale_id]')) {
        if (id && !i.dataset.touched) i.value = String(id);
      }
    },
  };
}

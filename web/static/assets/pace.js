// The Run form's Pace select: a pace (pace-model.js) writes its values into
// the form's inputs, so that a run lasts long enough for a class to watch.
import { addLabels } from './i18n.js';
import { PACES, PACE_LABELS } from './pace-model.js';

addLabels(PACE_LABELS);

/** initPace makes form's pace select (name "pace") fill the form. */
export function initPace(form) {
  const select = form.elements.pace;
  select.addEventListener('change', () => {
    const p = PACES[select.value];
    if (!p) return;
    const set = (name, v) => {
      form.elements[name].value = String(v);
      form.elements[name].dispatchEvent(new Event('input', { bubbles: true }));
    };
    set('stock', p.stock);
    set('buyers', p.buyers);
    // The load model's radio: its change event lets the form switch the load's bounds.
    const radio = [...form.elements.model].find((r) => r.value === p.model);
    if (!radio.checked) {
      radio.checked = true;
      radio.dispatchEvent(new Event('change', { bubbles: true }));
    }
    set('load', p.load);
    set('work_ms', p.work_ms);
    set('opens_in_ms', p.opens_in_s); // the input's name; its unit is the second
  });
}

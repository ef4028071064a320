// The Faults page's model, from GET /api/faults without a browser: the
// fault table (internal/faults) is the only list of kinds, their
// parameters and their labels; the page builds its forms from it.

/**
 * faultLabels returns the labels the table carries, as i18n.js keys them:
 * f<kind> for a kind's title, p<name> for a parameter's label, each
 * [English, 中文].
 */
export function faultLabels(kinds) {
  const out = {};
  for (const k of kinds || []) {
    if (k.title) out[`f${k.kind}`] = [k.title.en, k.title.zh];
    for (const p of k.parameters || []) {
      if (p.label) out[`p${p.name}`] = [p.label.en, p.label.zh];
    }
  }
  return out;
}

/**
 * paramControl says how to ask for one parameter: a select of its choices,
 * or a number input bounded by the table (a duration starts at the value
 * the table suggests).
 */
export function paramControl(p) {
  if (p.type === 'choice') return { tag: 'select', options: p.choices || [] };
  const c = { tag: 'input', type: 'number', min: String(p.min ?? 1) };
  if (p.type === 'duration_ms') {
    if (p.max) c.max = String(p.max);
    c.value = String(p.suggested || p.min || 1);
  }
  return c;
}

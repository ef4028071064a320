// The Matrix section's drawing: the run's line, the summary, the filters
// (a row or strategy, a fault, findings only), the legend of words, the
// grid (bands of rows, numbered fault columns, a word and a colour per
// cell; the row names and the column numbers stay in view while it
// scrolls), the columns' titles under it, and one cell's detail in a
// dialog (observed and predicted with their reasons, the figures, the
// history check, the seed, the replay line with a copy button, the sale's
// timeline). The arrow keys move in the grid, Enter opens a cell. It
// imports only matrix-model.js, so that the exported page
// (internal/matrix WriteHTML) inlines the two files as they are.
import {
  L, cellLabel, cellView, rowLabel, columnTitle, detail, faultOptions, fill, KINDS, kindClass, meaning, moveIn, rowOptions, runLine, summaryParts, table, word,
} from './matrix-model.js';

/** h builds an element: attrs (class, text, any attribute; null skipped) and children. */
function h(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = v; else if (k === 'text') e.textContent = v; else e.setAttribute(k, v === true ? '' : v);
  }
  for (const k of kids) if (k !== null && k !== undefined && k !== false) e.append(k);
  return e;
}

/** rowName is a row's name (rowLabel) in code, breakable after its - + / (db-pessimistic-autocommit wraps in a narrow column). */
function rowName(ref, names) {
  const { text, variant } = rowLabel(ref, names);
  const code = h('code', { class: variant ? 'mx-rname variant' : 'mx-rname', title: variant ? ref.name : null });
  for (const part of text.split(/(?<=[-+/])/)) code.append(part, h('wbr'));
  return code;
}

/**
 * createMatrixView draws into root. opts.zh() says whether Chinese is on;
 * opts.saleHref(id) is the link to a sale's timeline (null: none, the
 * exported page). Returns render({observed, report}), relabel(),
 * message(text, bad) and open(row, fault) (a cell's detail).
 */
export function createMatrixView(root, { zh = () => false, saleHref = () => null } = {}) {
  let data = null; // {observed, report}
  const filter = { row: '', fault: '', findings: false };
  let at = [0, 0]; // the grid's focused cell (visible row, visible column)
  let grid = []; // the visible cells' buttons, row by row
  const dialog = h('dialog', { class: 'mx-detail', 'aria-labelledby': 'mx-detail-h' });
  let opened = null; // {row, fault, from}: the detail shown and the button that opened it

  dialog.addEventListener('close', () => {
    const from = opened?.from;
    opened = null;
    if (from?.isConnected) from.focus();
  });
  dialog.addEventListener('click', (e) => { if (e.target === dialog) dialog.close(); }); // a click on the backdrop

  function render(d) {
    data = d;
    draw();
  }

  function message(text, bad = false) {
    data = null;
    root.replaceChildren(h('p', { class: bad ? 'mx-msg bad' : 'mx-msg', role: bad ? 'alert' : 'status', text }));
  }

  function draw() {
    if (!data?.report) return;
    const z = zh();
    const rep = data.report;
    root.replaceChildren(runPara(rep, z), summaryPara(rep, z), controls(rep, z), h('div', { class: 'mx-grid-wrap' }), legend(z), columnsList(rep, z), dialog);
    drawGrid();
    if (opened && dialog.open) fillDetail(opened.row, opened.fault);
  }

  function runPara(rep, z) {
    const r = runLine(rep, data.observed, z);
    if (r.predicted) return h('p', { class: 'mx-run predicted' }, `${r.text} `, h('code', { text: r.command }), ` ${r.after}`);
    return h('p', { class: 'mx-run' }, `${r.text} `, h('code', { text: r.machine }), ' · ', `${L('mxCommit', z)} `, h('code', { text: r.commit }),
      ' · ', r.quick, ' · ', h('span', { class: r.interrupted ? 'mx-interrupted' : null, text: r.complete }));
  }

  function summaryPara(rep, z) {
    const parts = summaryParts(rep, z);
    const p = h('p', { class: 'mx-summary', role: 'status' });
    parts.forEach((s, i) => {
      if (i) p.append(z ? '，' : ', ');
      p.append(s.strong ? h('strong', { class: s.finding ? 'mx-sum-finding' : null, text: s.text }) : s.text);
    });
    return p;
  }

  function controls(rep, z) {
    const rowSel = h('select', { id: 'mx-f-row', name: 'row' });
    const ro = rowOptions(rep, z);
    rowSel.append(h('option', { value: ro.all.value, text: ro.all.text }));
    for (const b of ro.bands) {
      const g = h('optgroup', { label: b.title });
      for (const o of b.options) g.append(h('option', { value: o.value, text: o.row ? `\u2003${o.text}` : o.text }));
      rowSel.append(g);
    }
    rowSel.value = filter.row;
    if (rowSel.value !== filter.row) filter.row = ''; // a row the new report does not have
    const faultSel = h('select', { id: 'mx-f-fault', name: 'fault' });
    for (const o of faultOptions(rep, z)) faultSel.append(h('option', { value: o.value, text: o.text }));
    faultSel.value = filter.fault;
    if (faultSel.value !== filter.fault) filter.fault = '';
    const only = h('input', { id: 'mx-f-findings', type: 'checkbox', name: 'findings' });
    only.checked = filter.findings;
    const onChange = () => {
      Object.assign(filter, { row: rowSel.value, fault: faultSel.value, findings: only.checked });
      at = [0, 0];
      drawGrid();
    };
    for (const e of [rowSel, faultSel, only]) e.addEventListener('change', onChange);
    return h('div', { class: 'mx-filters' },
      h('label', { for: 'mx-f-row' }, h('span', { text: L('mxFilterRow', z) }), rowSel),
      h('label', { for: 'mx-f-fault' }, h('span', { text: L('mxFilterFault', z) }), faultSel),
      h('label', { for: 'mx-f-findings', class: 'mx-check' }, only, ` ${L('mxFindingsOnly', z)}`));
  }

  /** legend says what each word means, and the two styles: predicted (not run) and a finding. */
  function legend(z) {
    const words = h('ul', { class: 'mx-words' });
    for (const k of KINDS) {
      words.append(h('li', {}, h('span', { class: `mx-chip ${kindClass(k)}`, text: word(k, z) }), ` ${meaning(k, z)}`));
    }
    words.append(h('li', {}, h('span', { class: `mx-chip ${kindClass('holds')} predicted`, text: word('holds', z) }), ` ${L('mxPredictedStyle', z)}`));
    words.append(h('li', {}, h('span', { class: `mx-chip ${kindClass('broken')} finding`, text: word('broken', z) }), ` ${L('mxFindingStyle', z)}`));
    return h('section', { class: 'mx-legend', 'aria-labelledby': 'mx-legend-h' }, h('h3', { id: 'mx-legend-h', text: L('mxLegend', z) }), words);
  }

  function columnsList(rep, z) {
    const ol = h('ol', { class: 'mx-cols' });
    (rep.faults || []).forEach((c, i) => ol.append(h('li', { value: String(i + 1) },
      h('strong', { class: 'mx-col-n', text: String(i + 1) }), ' ', columnTitle(c, z), ' ', h('code', { text: c.name }))));
    return h('section', { class: 'mx-cols-box', 'aria-labelledby': 'mx-cols-h' }, h('h3', { id: 'mx-cols-h', text: L('mxColumns', z) }), ol);
  }

  function drawGrid() {
    const z = zh();
    const wrap = root.querySelector('.mx-grid-wrap');
    if (!wrap) return;
    const t = table(data.report, filter, z);
    grid = [];
    const rows = t.bands.reduce((n, b) => n + b.rows.length, 0);
    if (!rows || !t.columns.length) {
      wrap.replaceChildren(h('p', { class: 'mx-msg', role: 'status', text: L('mxNoMatch', z) }));
      return;
    }
    const few = t.columns.length <= 3; // one fault or a few: their titles fit the header
    const head = h('tr', {}, h('th', { scope: 'col', class: 'mx-corner', text: L('mxCorner', z) }));
    for (const c of t.columns) {
      head.append(h('th', { scope: 'col', class: few ? 'mx-colh wide' : 'mx-colh', title: `${c.n} · ${columnTitle(c, z)} (${c.name})` },
        h('span', { class: 'mx-n', text: String(c.n) }), few ? ` ${columnTitle(c, z)}` : null));
    }
    const names = t.bands.flatMap((b) => b.rows.map((r) => r.ref.name));
    const tbl = h('table', { class: 'mx-table', role: 'grid', 'aria-label': L('mxTableLabel', z), 'aria-rowcount': String(rows + 1) }, h('thead', {}, head));
    for (const b of t.bands) {
      const body = h('tbody', { class: `mx-band g-${b.group}` },
        h('tr', { class: 'mx-band-h' }, h('th', { colspan: String(t.columns.length + 1), scope: 'colgroup' }, h('span', { text: b.title }))));
      for (const r of b.rows) {
        const tr = h('tr', {}, h('th', { scope: 'row', class: 'mx-rowh' }, rowName(r.ref, names)));
        const buttons = [];
        r.cells.forEach((cell, ci) => {
          const v = cellView(cell, z);
          const btn = h('button', {
            type: 'button', class: `mx-cell ${v.cls}${v.run ? '' : ' predicted'}${v.finding ? ' finding' : ''}`,
            tabindex: '-1', 'aria-label': cellLabel(cell, t.columns[ci], z), title: cellLabel(cell, t.columns[ci], z),
            'data-row': cell.row, 'data-fault': cell.fault,
          }, v.word);
          const [gr, gc] = [grid.length, ci];
          btn.addEventListener('click', () => { at = [gr, gc]; roving(); open(cell.row, cell.fault, btn); });
          buttons.push(btn);
          tr.append(h('td', { role: 'gridcell' }, btn));
        });
        grid.push(buttons);
        body.append(tr);
      }
      tbl.append(body);
    }
    tbl.addEventListener('keydown', (e) => {
      const to = moveIn(e.key, at[0], at[1], grid.length, grid[0].length, e.ctrlKey || e.metaKey);
      if (!to) return;
      e.preventDefault();
      at = to;
      roving();
      grid[at[0]][at[1]].focus();
    });
    const scroll = h('div', { class: 'mx-scroll', role: 'region', 'aria-label': L('mxTableLabel', z) }, tbl);
    wrap.replaceChildren(scroll);
    at = [Math.min(at[0], grid.length - 1), Math.min(at[1], grid[0].length - 1)];
    roving();
  }

  /** roving gives the focused cell the grid's one Tab stop. */
  function roving() {
    grid.forEach((row, r) => row.forEach((b, c) => b.setAttribute('tabindex', r === at[0] && c === at[1] ? '0' : '-1')));
  }

  function open(row, fault, from = null) {
    if (!data?.report) return;
    opened = { row, fault, from };
    fillDetail(row, fault);
    if (!dialog.open) {
      if (typeof dialog.showModal === 'function') dialog.showModal(); else dialog.setAttribute('open', '');
    }
    dialog.querySelector('#mx-detail-h')?.focus(); // its top: on a phone the detail is read from its heading down
  }

  function fillDetail(row, fault) {
    const z = zh();
    const d = detail(data.report, row, fault, z);
    if (!d) return;
    const verdict = (key, v, why) => h('div', { class: 'mx-verdict' },
      h('h4', { text: L(key, z) }),
      h('p', {}, h('span', { class: `mx-chip big ${v.cls}`, text: v.word }), ' ', h('span', { class: 'mx-why', text: why })));
    const kids = [
      h('h3', { id: 'mx-detail-h', tabindex: '-1' }, h('code', { class: 'mx-rname', text: d.row }), ' × ', h('span', { class: 'mx-n', text: String(d.n) }), ` ${d.title} `, h('code', { text: d.fault })),
    ];
    if (d.finding) kids.push(h('p', { class: 'mx-finding-note', text: L('mxFinding', z) }));
    kids.push(h('div', { class: 'mx-verdicts' },
      d.observed ? verdict('mxObserved', d.observed, d.observed.why)
        : h('div', { class: 'mx-verdict' }, h('h4', { text: L('mxObserved', z) }), h('p', { class: 'mx-why', text: d.notRun })),
      verdict('mxPredicted', d.predicted, d.predicted.why)));
    const facts = h('dl', { class: 'mx-facts' });
    const fact = (key, ...value) => facts.append(h('div', {}, h('dt', { text: L(key, z) }), h('dd', {}, ...value)));
    if (d.unavailable) fact('mxUnavail', h('strong', { text: d.unavailable }));
    if (d.history) fact('mxHistory', h('span', { class: d.historyBad ? 'bad' : null, text: d.history }));
    if (d.seed) fact('mxSeed', h('code', { text: String(d.seed) }));
    if (d.elapsed) fact('mxElapsed', d.elapsed);
    if (d.figures.length) {
      const figs = h('dl', { class: 'mx-figs' });
      for (const f of d.figures) figs.append(h('div', { class: f.bad ? 'bad' : f.warn ? 'warn' : null }, h('dt', { text: f.label }), h('dd', { text: f.value })));
      kids.push(h('h4', { text: L('mxFigures', z) }), figs);
    }
    if (facts.childElementCount) kids.push(facts);
    if (d.replay) kids.push(replayBlock(d.replay, z));
    if (d.saleId) {
      const link = saleHref(d.saleId);
      kids.push(h('p', { class: 'mx-sale' }, link ? h('a', { href: link, class: 'mx-sale-link', text: fill('mxTimeline', z, { id: d.saleId }) })
        : fill('mxSaleOnly', z, { id: d.saleId })));
    }
    const close = h('button', { type: 'button', class: 'mx-close', text: L('mxClose', z) });
    close.addEventListener('click', () => dialog.close());
    kids.push(h('p', { class: 'mx-detail-foot' }, close));
    dialog.replaceChildren(...kids);
    dialog.querySelector('.mx-sale-link')?.addEventListener('click', () => dialog.close());
  }

  function replayBlock(line, z) {
    const code = h('code', { class: 'mx-replay-line', text: line });
    const btn = h('button', { type: 'button', class: 'mx-copy', text: L('mxCopy', z) });
    const said = h('span', { class: 'mx-copied', role: 'status' });
    btn.addEventListener('click', async () => {
      let ok = false;
      try { await navigator.clipboard.writeText(line); ok = true; } catch { /* no clipboard here (a file, an insecure origin) */ }
      if (!ok) {
        const range = document.createRange();
        range.selectNodeContents(code);
        const sel = getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
        try { ok = document.execCommand('copy'); } catch { ok = false; }
      }
      said.textContent = L(ok ? 'mxCopied' : 'mxCopyFailed', z);
    });
    return h('div', { class: 'mx-replay' }, h('h4', { text: L('mxReplay', z) }), h('p', {}, code), h('p', {}, btn, ' ', said));
  }

  return {
    render,
    message,
    relabel: () => draw(),
    open: (row, fault) => open(row, fault, null),
    filter: () => ({ ...filter }),
  };
}

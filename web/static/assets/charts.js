// Charts over time of the run in progress, drawn with uPlot (copied from
// npm into assets/vendor by `make web`). Without it, Charts.available is
// false and the page shows its tables only. A chart's height is the CSS
// variable --chart-h of its container (lower on a phone). The x axis counts
// the seconds since the run's first point ("0 s, 5 s, 10 s"): a clock
// repeated the same "15:06:02" under a short step. A run's steps are drawn
// one after another, each after a labelled divider; each fault is a
// labelled band from its injection to its healing (marks). The points and
// marks of the followed run are kept in sessionStorage, so that a reload
// draws them again.
import { addLabels, label } from './i18n.js';

const WINDOW = 600; // points kept: ten minutes at one event a second
const STORE = 'seckill.charts'; // sessionStorage: {key, data, marks} of the followed run

// Each series' label is a key of the labels (i18n.js), its words below.
const SERIES = {
  orders: [{ label: 'sOrders', stroke: '#1f6feb', width: 2 }],
  latency: [
    { label: 'sClientP50', stroke: '#7fb3ff' }, { label: 'sClientP95', stroke: '#3b82f6' },
    { label: 'sClientP99', stroke: '#1e3a8a', width: 2 },
    { label: 'sServerP50', stroke: '#fdba74', dash: [6, 3] }, { label: 'sServerP95', stroke: '#f97316', dash: [6, 3] },
    { label: 'sServerP99', stroke: '#9a3412', width: 2, dash: [6, 3] },
  ],
  lockwait: [
    { label: 'sP50', stroke: '#86efac' }, { label: 'sP95', stroke: '#22c55e' }, { label: 'sP99', stroke: '#166534', width: 2 },
  ],
};
addLabels({
  sOrders: ['orders/s', '订单/秒'],
  sClientP50: ['client p50', '客户端 p50'], sClientP95: ['client p95', '客户端 p95'], sClientP99: ['client p99', '客户端 p99'],
  sServerP50: ['server p50', '服务端 p50'], sServerP95: ['server p95', '服务端 p95'], sServerP99: ['server p99', '服务端 p99'],
  sP50: ['p50', 'p50'], sP95: ['p95', 'p95'], sP99: ['p99', 'p99'],
  axisSeconds: ['s', '秒'],
});

// Tick steps of the x axis in seconds: the smallest that leaves `space` px between labels.
const STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600];

/** xSplits places a tick every whole step of seconds from t0, the step's first point, within [min, max]. */
export function xSplits(t0, min, max, widthPx, space = 70) {
  const span = Math.max(max - min, 1e-9);
  const most = Math.max(1, Math.floor(widthPx / space));
  // Past ten minutes a tick, a step that keeps the ticks to `most` (a restored
  // single point gave uPlot a span of years: millions of ticks hung the page).
  const step = STEPS.find((s) => span / s <= most) || Math.ceil(span / most);
  const out = [];
  for (let k = Math.ceil((min - t0) / step); t0 + k * step <= max + 1e-9; k++) out.push(t0 + k * step);
  return out;
}

/** runOf is the run part of a view key ("run/step"). */
const runOf = (key) => String(key ?? '').split('/')[0];

/**
 * marksPlugin draws the marks (steps' dividers and faults' bands) as
 * elements over the plot, each with its label, placed on every redraw.
 */
function marksPlugin(charts) {
  return {
    hooks: {
      draw: (u) => {
        const box = u.over.querySelector('.marks') || u.over.appendChild(Object.assign(document.createElement('div'), { className: 'marks' }));
        const [min, max] = [u.scales.x.min, u.scales.x.max];
        // The step the window begins in is named at its left edge.
        const current = charts.marks.filter((m) => m.type === 'step' && m.t < min).at(-1);
        const shown = charts.marks.filter((m) => m === current || ((m.to ?? m.t) >= min && m.t <= max));
        box.replaceChildren(...shown.map((m) => {
          const d = document.createElement('div');
          d.className = `mark ${m.type}`;
          d.dataset.kind = m.label;
          const left = u.valToPos(Math.max(m.t, min), 'x');
          d.style.left = `${left}px`; // CSSOM: the CSP allows it, unlike a style attribute
          if (m.to !== undefined) d.style.width = `${Math.max(2, u.valToPos(Math.min(m.to, max), 'x') - left)}px`;
          // A label near the right edge goes on the left of its line, inside the plot.
          if (left > u.over.clientWidth - 70) d.classList.add('near-end');
          d.append(Object.assign(document.createElement('span'), { textContent: m.label }));
          return d;
        }));
      },
    },
  };
}

/**
 * Charts keeps one uPlot per figure, the points of the followed run (all
 * its steps) and its marks.
 */
export class Charts {
  constructor(els) {
    this.available = typeof window.uPlot === 'function';
    this.els = els; // {orders, latency, lockwait}: container elements
    this.plots = {};
    this.data = {};
    this.key = null;
    this.zh = false;
    this.marks = []; // {type: 'step'|'fault', t, to?, label} (t in seconds)
    this.nextStep = null; // {label, gap}: the divider to draw at the next point
    if (!this.available) return;
    const saved = this.restore();
    for (const [name, series] of Object.entries(SERIES)) {
      this.data[name] = saved?.data?.[name]?.length === series.length + 1 ? saved.data[name] : [[], ...series.map(() => [])];
      const opts = {
        width: this.width(name), height: this.height(name),
        // uPlot's default shows the points only while they are few: a short
        // step's one or two samples stay visible.
        series: [{}, ...series.map((s) => ({ ...s, label: label(s.label, false) }))],
        // Seconds since the step's first point, one label per whole step: never the same label twice.
        axes: [{
          size: 30,
          splits: (u, i, min, max) => xSplits(this.t0(name, min), min, max, u.bbox.width / devicePixelRatio),
          values: (u, ticks) => ticks.map((t) => `${Math.round(t - this.t0(name, t))} ${label('axisSeconds', this.zh)}`),
        }, { size: 56 }],
        scales: {
          x: { time: false },
          y: { range: (u, min, max) => [0, max > 0 ? max * 1.1 : 1] },
        },
        legend: { live: false },
        plugins: [marksPlugin(this)],
      };
      this.plots[name] = new window.uPlot(opts, this.data[name], els[name]);
      // One restored sample has no span: the half minute that follows it, as push shows it.
      const d = this.data[name];
      if (d[0].length === 1) this.plots[name].setScale('x', { min: d[0][0], max: d[0][0] + 30 });
    }
    window.addEventListener('resize', () => this.resize());
  }

  /** t0 is the time of the chart's first point (the step's start), or fallback before any. */
  t0(name, fallback) { return this.data[name]?.[0]?.[0] ?? fallback; }

  /** resize fits the charts to their boxes again (a window or type size change). */
  resize() {
    for (const [name, p] of Object.entries(this.plots)) p.setSize({ width: this.width(name), height: this.height(name) });
  }

  /** relabel writes the series' names in the legends and the axis unit in the current language. */
  relabel(zh) {
    this.zh = zh;
    for (const [name, p] of Object.entries(this.plots)) {
      // The legend lists the x series too only when it is live (here: not).
      const rows = [...this.els[name].querySelectorAll('.u-legend .u-series')];
      const skip = rows.length - SERIES[name].length;
      SERIES[name].forEach((s, i) => {
        p.series[i + 1].label = label(s.label, zh);
        const text = rows[i + skip]?.querySelector('.u-label');
        if (text) text.textContent = p.series[i + 1].label;
      });
      p.redraw(false, true);
    }
  }

  width(name) { return Math.max(220, this.els[name].clientWidth || 360); }

  height(name) { return parseInt(getComputedStyle(this.els[name]).getPropertyValue('--chart-h'), 10) || 180; }

  /** restore reads the followed run's points and marks a reload left, or null. */
  restore() {
    try {
      const saved = JSON.parse(sessionStorage.getItem(STORE) || 'null');
      if (!saved?.key || !saved.data) return null;
      this.key = saved.key;
      this.marks = Array.isArray(saved.marks) ? saved.marks : [];
      return saved;
    } catch { return null; }
  }

  /** save keeps the points and marks for a reload (quietly: storage may be full or off). */
  save() {
    try { sessionStorage.setItem(STORE, JSON.stringify({ key: this.key, data: this.data, marks: this.marks })); } catch { /* not kept */ }
  }

  /**
   * reset follows the view key ("run/step"): another run clears the points
   * and marks; another step of the same run keeps them. Either way the
   * step's first point gets a divider labelled with the step (label: its
   * strategy: stepName), after a gap in the lines when a step came before.
   */
  reset(key, stepName = '') {
    if (key === this.key) return;
    const sameRun = this.key !== null && runOf(key) === runOf(this.key);
    this.key = key;
    if (!this.available) return;
    // The divider goes at the step's first point (push), on the points' clock.
    this.nextStep = { label: stepName || `step ${String(key).split('/')[1] ?? ''}`, gap: sameRun };
    if (!sameRun) {
      this.marks = [];
      for (const name of Object.keys(this.data)) {
        this.data[name] = this.data[name].map(() => []);
        this.plots[name]?.setData(this.data[name]);
      }
    }
    this.save();
  }

  /**
   * mark adds a fault's band from `from` to `to` (seconds; to omitted: a
   * line), labelled name; the same kind at about the same time (within 5 s: the
   * page's clock and the server's differ) is one mark, whoever reports it
   * (the page that injected it, the timeline), the later report winning.
   */
  mark(from, name, to) {
    if (!this.available) return;
    const m = to !== undefined && to > from ? { type: 'fault', t: from, to, label: name } : { type: 'fault', t: from, label: name };
    const same = this.marks.findIndex((x) => x.type === 'fault' && x.label === name && Math.abs(x.t - from) < 5);
    if (same >= 0) this.marks[same] = m; else this.marks.push(m);
    for (const p of Object.values(this.plots)) p.redraw(false);
    this.save();
  }

  /** push appends one point per chart: t in seconds, values per series. */
  push(t, values) {
    if (!this.available) return;
    const step = this.nextStep;
    this.nextStep = null;
    if (step) this.marks.push({ type: 'step', t, label: step.label });
    for (const [name, vals] of Object.entries(values)) {
      const d = this.data[name];
      if (step?.gap && d[0].length && d[0].at(-1) < t) { // the lines break between steps
        d[0].push((d[0].at(-1) + t) / 2);
        for (const col of d.slice(1)) col.push(null);
      }
      d[0].push(t);
      vals.forEach((v, i) => d[i + 1].push(v));
      if (d[0].length > WINDOW) for (const col of d) col.shift();
      const p = this.plots[name];
      p.setData(d);
      // One sample has no span: show the half minute that follows it.
      if (d[0].length === 1) p.setScale('x', { min: t, max: t + 30 });
    }
    this.save();
  }
}

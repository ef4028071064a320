// Charts over time of the run in progress, drawn with uPlot (copied from
// npm into assets/vendor by `make web`). Without it, Charts.available is
// false and the page shows its tables only. A chart's height is the CSS
// variable --chart-h of its container (the band is lower on a phone).
// A run's steps are drawn one after another, each after a labelled
// divider; each fault is a labelled band from its injection to its
// healing (marks). The points and marks of the followed run are kept in
// sessionStorage, so that a reload draws them again.

const WINDOW = 600; // points kept: ten minutes at one event a second
const STORE = 'seckill.charts'; // sessionStorage: {key, data, marks} of the followed run

const SERIES = {
  orders: [{ label: 'orders/s', stroke: '#1f6feb', width: 2 }],
  latency: [
    { label: 'client p50', stroke: '#7fb3ff' }, { label: 'client p95', stroke: '#3b82f6' },
    { label: 'client p99', stroke: '#1e3a8a', width: 2 },
    { label: 'server p50', stroke: '#fdba74', dash: [6, 3] }, { label: 'server p95', stroke: '#f97316', dash: [6, 3] },
    { label: 'server p99', stroke: '#9a3412', width: 2, dash: [6, 3] },
  ],
  lockwait: [
    { label: 'p50', stroke: '#86efac' }, { label: 'p95', stroke: '#22c55e' }, { label: 'p99', stroke: '#166534', width: 2 },
  ],
};

const clock = (t) => new Date(t * 1000).toLocaleTimeString('en-GB');

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
        series: [{}, ...series.map((s) => ({ ...s }))],
        // Time of day only: the date line would take a row of the band.
        axes: [{ size: 30, space: 80, values: (u, ticks) => ticks.map(clock) }, { size: 56 }],
        scales: {
          x: { time: true },
          y: { range: (u, min, max) => [0, max > 0 ? max * 1.1 : 1] },
        },
        legend: { live: false },
        plugins: [marksPlugin(this)],
      };
      this.plots[name] = new window.uPlot(opts, this.data[name], els[name]);
    }
    window.addEventListener('resize', () => {
      for (const [name, p] of Object.entries(this.plots)) p.setSize({ width: this.width(name), height: this.height(name) });
    });
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
   * strategy), after a gap in the lines when a step came before.
   */
  reset(key, label = '') {
    if (key === this.key) return;
    const sameRun = this.key !== null && runOf(key) === runOf(this.key);
    this.key = key;
    if (!this.available) return;
    // The divider goes at the step's first point (push), on the points' clock.
    this.nextStep = { label: label || `step ${String(key).split('/')[1] ?? ''}`, gap: sameRun };
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
   * line), labelled; the same kind at about the same time (within 5 s: the
   * page's clock and the server's differ) is one mark, whoever reports it
   * (the page that injected it, the timeline), the later report winning.
   */
  mark(from, label, to) {
    if (!this.available) return;
    const m = to !== undefined && to > from ? { type: 'fault', t: from, to, label } : { type: 'fault', t: from, label };
    const same = this.marks.findIndex((x) => x.type === 'fault' && x.label === label && Math.abs(x.t - from) < 5);
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
      // One sample has no span (uPlot would pick years): show a minute around it.
      if (d[0].length === 1) p.setScale('x', { min: t - 30, max: t + 30 });
    }
    this.save();
  }
}

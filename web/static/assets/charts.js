// Charts over time of the run in progress, drawn with uPlot (copied from
// npm into assets/vendor by `make web`). Without it, Charts.available is
// false and the page shows its tables only. A chart's height is the CSS
// variable --chart-h of its container (lower on a phone). The x axis counts
// the seconds since the step's first point ("0 s, 5 s, 10 s"): a clock
// repeated the same "15:06:02" under a short step.
import { addLabels, label } from './i18n.js';

const WINDOW = 300; // points kept: five minutes at one event a second

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
  const step = STEPS.find((s) => span / s <= most) || STEPS[STEPS.length - 1];
  const out = [];
  for (let k = Math.ceil((min - t0) / step); t0 + k * step <= max + 1e-9; k++) out.push(t0 + k * step);
  return out;
}

/** Charts keeps one uPlot per figure and the points of the current step. */
export class Charts {
  constructor(els) {
    this.available = typeof window.uPlot === 'function';
    this.els = els; // {orders, latency, lockwait}: container elements
    this.plots = {};
    this.data = {};
    this.key = null;
    this.zh = false;
    if (!this.available) return;
    for (const [name, series] of Object.entries(SERIES)) {
      this.data[name] = [[], ...series.map(() => [])];
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
      };
      this.plots[name] = new window.uPlot(opts, this.data[name], els[name]);
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

  /** reset clears the points when the run or its step changes. */
  reset(key) {
    if (key === this.key) return;
    this.key = key;
    for (const name of Object.keys(this.data)) {
      this.data[name] = this.data[name].map(() => []);
      this.plots[name]?.setData(this.data[name]);
    }
  }

  /** push appends one point per chart: t in seconds, values per series. */
  push(t, values) {
    if (!this.available) return;
    for (const [name, vals] of Object.entries(values)) {
      const d = this.data[name];
      d[0].push(t);
      vals.forEach((v, i) => d[i + 1].push(v));
      if (d[0].length > WINDOW) for (const col of d) col.shift();
      const p = this.plots[name];
      p.setData(d);
      // One sample has no span: show the half minute that follows it.
      if (d[0].length === 1) p.setScale('x', { min: t, max: t + 30 });
    }
  }
}

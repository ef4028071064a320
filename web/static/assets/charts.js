// Charts over time of the run in progress, drawn with uPlot (copied from
// npm into assets/vendor by `make web`). Without it, Charts.available is
// false and the page shows its tables only. A chart's height is the CSS
// variable --chart-h of its container (the band is lower on a phone).

const WINDOW = 300; // points kept: five minutes at one event a second

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

/** Charts keeps one uPlot per figure and the points of the current step. */
export class Charts {
  constructor(els) {
    this.available = typeof window.uPlot === 'function';
    this.els = els; // {orders, latency, lockwait}: container elements
    this.plots = {};
    this.data = {};
    this.key = null;
    if (!this.available) return;
    for (const [name, series] of Object.entries(SERIES)) {
      this.data[name] = [[], ...series.map(() => [])];
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
      };
      this.plots[name] = new window.uPlot(opts, this.data[name], els[name]);
    }
    window.addEventListener('resize', () => {
      for (const [name, p] of Object.entries(this.plots)) p.setSize({ width: this.width(name), height: this.height(name) });
    });
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
      // One sample has no span (uPlot would pick years): show a minute around it.
      if (d[0].length === 1) p.setScale('x', { min: t - 30, max: t + 30 });
    }
  }
}

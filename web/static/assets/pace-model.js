// The Run form's teaching pace, without a browser: each pace is the form
// values (index.html's input names) that make a run last long enough to
// watch. Open-model runs: the buyers arrive at `load` requests per second,
// so a step lasts buyers / rate whatever the strategy, and the work in the
// lock (work_ms) keeps a lock's hand-over slow enough to see.

/** PACES by name; normal is the form's own defaults. */
export const PACES = {
  normal: { stock: 100, buyers: 2000, model: 'concurrency', load: 50, work_ms: 5, opens_in_s: 0 },
  // About 30 s a step: 60 buyers at 2/s for 30 units, 0.5 s inside the lock
  // (2 hand-overs a second, the arrival rate); the herd waits 5 s for the
  // opening, then arrives over the 30 s.
  class: { stock: 30, buyers: 60, model: 'rate', load: 2, work_ms: 500, opens_in_s: 5 },
  // About 60 s a step, one buyer every 2 s, 2 s inside the lock.
  slow: { stock: 10, buyers: 30, model: 'rate', load: 0.5, work_ms: 2000, opens_in_s: 5 },
};

/** paceLabels are the pace select's options, [English, 中文]. */
export const PACE_LABELS = {
  pace: ['Pace', '节奏'],
  paceNormal: ['normal', '正常'],
  paceClass: ['class', '课堂节奏'],
  paceSlow: ['slow motion', '慢动作'],
  paceHint: ['class: about 30 s a step; slow motion: about 60 s', '课堂节奏：每步约 30 秒；慢动作：约 60 秒'],
};

/**
 * stepSeconds estimates how long one step of a run with form values v
 * lasts: the buyers' arrival (open model), or the stock's hand-overs one
 * after another through the lock, whichever is longer, after the opening.
 */
export function stepSeconds(v) {
  const arrival = v.model === 'rate' ? v.buyers / v.load : 0;
  const handovers = (Math.min(v.stock, v.buyers) * v.work_ms) / 1000;
  return v.opens_in_s + Math.max(arrival, handovers);
}

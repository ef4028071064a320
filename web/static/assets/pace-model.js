// The Run form's teaching pace, without a browser: each pace is the form
// values (index.html's input names) that make a run last long enough to
// watch. Closed-model runs with seconds of work in the lock (work_ms): a
// step lasts its stock's hand-overs one after another, each slow enough to
// see, and holders that should not overlap do so for seconds.

/** PACES by name; normal is the form's own defaults. */
export const PACES = {
  normal: { stock: 100, buyers: 2000, model: 'concurrency', load: 50, work_ms: 5, opens_in_s: 0 },
  // About 30 s a step: 20 units handed over every 1.5 s. Closed model, 2
  // buyers in flight per agent: on a lock that does not cross replicas
  // (none, mutex) the holders on different replicas overlap for the whole
  // 1.5 s, seconds a class can see; a safe lock queues them, and with up to
  // 3 agents (6 in flight) the last waits 7.5 s, inside the 10 s lock wait.
  // The herd waits 5 s for the opening.
  class: { stock: 20, buyers: 60, model: 'concurrency', load: 2, work_ms: 1500, opens_in_s: 5 },
  // About 60 s a step: one buyer in flight per agent, 3 s inside the lock.
  slow: { stock: 20, buyers: 40, model: 'concurrency', load: 1, work_ms: 3000, opens_in_s: 5 },
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

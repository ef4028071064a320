// The sections (Run, Timeline, Compare, Lessons, Class, Matrix, Interview, Faults, Strategies): one shows at a
// time below the live band, chosen by the URL's hash (#/compare), so a
// section is deep-linkable, a reload keeps it and the back button works.
// The hash also carries the run the page follows (#/run?run=12): a move to
// another replica keeps both, and the comparison's pinned steps
// (#/compare?pins=12.1,14.2) so that a trainer can share them, and the
// Timeline's comparison of two sales (#/timeline?sale=12&vs=13). The nav is
// plain links; the arrow keys move between them.

export const SECTIONS = ['run', 'timeline', 'compare', 'lessons', 'class', 'matrix', 'interview', 'faults', 'strategies'];

/**
 * vsInHash reads the `vs` of a timeline link (#/timeline?sale=12&vs=13):
 * null when there is none, else {raw, id} with id 0 when raw is not a sale
 * id (a positive whole number).
 */
export function vsInHash(hash) {
  const m = /^#\/timeline\?(?:[^#]*&)?vs=([^&#]*)/.exec(hash || '');
  if (!m) return null;
  let raw = m[1];
  try { raw = decodeURIComponent(raw.replace(/\+/g, ' ')); } catch { /* kept as written */ }
  raw = raw.trim();
  if (!raw) return null;
  return { raw, id: /^\d{1,15}$/.test(raw) && Number(raw) > 0 ? Number(raw) : 0 };
}

/** saleInHash reads a timeline link's `sale` (0 for none): a lesson case's link opens that sale. */
export const saleInHash = (hash) => Number((/^#\/timeline\?(?:[^#]*&)?sale=(\d+)/.exec(hash || '') || [])[1] || 0);

/**
 * compareOf is the Timeline's comparison as the hash keeps it
 * ("sale=12&vs=13"), '' without one: a sale and a valid vs.
 */
export const compareOf = (sale, vs) => (sale > 0 && vs > 0 ? `sale=${sale}&vs=${vs}` : '');

/**
 * parseHash reads "#/section?run=ID&pins=RUN.STEP,..." (and the older
 * "#run=ID"); on the Timeline "sale=A&vs=B", a comparison of two sales.
 */
export function parseHash(hash) {
  const m = hash.match(/^#\/([a-z]+)/);
  const section = m && SECTIONS.includes(m[1]) ? m[1] : 'run';
  const run = Number((hash.match(/[?&#]run=(\d+)/) || [])[1] || 0);
  const pins = (hash.match(/[?&]pins=([\d.,]+)/) || [])[1] || '';
  return { section, run, pins, compare: compareOf(saleInHash(hash), vsInHash(hash)?.id || 0) };
}

/** hashOf is the canonical hash; pins is kept on the comparison's only, compare on the Timeline's. */
export const hashOf = (section, run, pins = '', compare = '') => {
  const q = [section === 'timeline' ? compare : '', run ? `run=${run}` : '', section === 'compare' && pins ? `pins=${pins}` : '']
    .filter(Boolean).join('&');
  return `#/${section}${q ? `?${q}` : ''}`;
};

/**
 * initNav shows the section the hash names and follows its changes.
 * onRun(id) is called when a new hash names another run to follow, onShow(name)
 * each time a section is shown. Returns
 * run() (the run the hash names, 0 for none) and followRun(id), which puts
 * the followed run into the URL and the nav links.
 */
export function initNav({ onRun = () => {}, onShow = () => {}, onPins = () => {} } = {}) {
  const links = [...document.querySelectorAll('#nav a[data-section]')];
  let { section, run, pins, compare } = parseHash(location.hash);

  function show(moveFocus) {
    for (const name of SECTIONS) document.getElementById(name).hidden = name !== section;
    document.body.dataset.section = section;
    onShow(section);
    for (const a of links) {
      a.href = hashOf(a.dataset.section, run, pins, compare);
      if (a.dataset.section === section) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
    }
    // On a phone the nav scrolls sideways: the current section's link is
    // brought into its view (not the page's), centred.
    const current = links.find((a) => a.dataset.section === section);
    const bar = current?.parentElement;
    if (bar && bar.scrollWidth > bar.clientWidth) {
      bar.scrollLeft += current.getBoundingClientRect().left - bar.getBoundingClientRect().left - (bar.clientWidth - current.offsetWidth) / 2;
    }
    if (moveFocus) {
      // To the section's heading, so that Tab continues inside the section
      // and a screen reader announces where it landed.
      window.scrollTo(0, 0);
      document.querySelector(`#${section} h2`)?.focus({ preventScroll: true });
    }
  }

  // The canonical form of the hash, without a new history entry.
  const canonical = () => {
    if (location.hash !== hashOf(section, run, pins, compare)) history.replaceState(null, '', hashOf(section, run, pins, compare));
  };

  window.addEventListener('hashchange', () => {
    const before = run, pinsBefore = pins, compareBefore = compare;
    const hash = location.hash;
    ({ section, run, pins, compare } = parseHash(hash));
    if (!run) run = before; // a bare #/faults keeps following the same run
    if (!pins) pins = pinsBefore; // and a bare #/compare the same pins
    // and a bare #/timeline the same comparison; a link to one sale (sale=, no vs) ends it
    if (!compare && !saleInHash(hash) && !vsInHash(hash)) compare = compareBefore;
    if (pins !== pinsBefore) onPins(pins);
    canonical();
    show(true);
    if (run !== before) onRun(run);
  });
  for (const a of links) {
    // The link to the section already shown changes no hash: show it again
    // all the same, so that focus goes to its heading.
    a.addEventListener('click', (e) => {
      if (a.getAttribute('href') !== location.hash) return;
      e.preventDefault();
      show(true);
    });
  }
  document.querySelector('#nav').addEventListener('keydown', (e) => {
    const i = links.indexOf(document.activeElement);
    if (i < 0) return;
    const to = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1, Home: 0, End: links.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    links[(to + links.length) % links.length].focus();
  });
  // The state into the URL (no new history entry) and the nav's links.
  function rewrite() {
    history.replaceState(null, '', hashOf(section, run, pins, compare));
    for (const a of links) a.href = hashOf(a.dataset.section, run, pins, compare);
  }
  // An unknown or missing section becomes the Run section.
  canonical();
  show(false);

  return {
    run: () => run,
    pins: () => pins,
    followRun(id) {
      run = id;
      rewrite();
    },
    /** setPins puts the comparison's pins ("12.1,14.2") into the URL and the links. */
    setPins(p) {
      pins = p;
      rewrite();
    },
    /** setCompare puts the Timeline's comparison (sale and vs, 0 for none) into the URL and the links. */
    setCompare(sale, vs) {
      compare = compareOf(sale, vs);
      rewrite();
    },
  };
}

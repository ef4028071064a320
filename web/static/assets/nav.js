// The sections (Run, Timeline, Compare, Lessons, Faults, Strategies): one shows at a
// time below the live band, chosen by the URL's hash (#/compare), so a
// section is deep-linkable, a reload keeps it and the back button works.
// The hash also carries the run the page follows (#/run?run=12): a move to
// another replica keeps both, and the comparison's pinned steps
// (#/compare?pins=12.1,14.2) so that a trainer can share them. The nav is
// plain links; the arrow keys move between them.

export const SECTIONS = ['run', 'timeline', 'compare', 'lessons', 'faults', 'strategies'];

/** parseHash reads "#/section?run=ID&pins=RUN.STEP,..." (and the older "#run=ID"). */
export function parseHash(hash) {
  const m = hash.match(/^#\/([a-z]+)/);
  const section = m && SECTIONS.includes(m[1]) ? m[1] : 'run';
  const run = Number((hash.match(/[?&#]run=(\d+)/) || [])[1] || 0);
  const pins = (hash.match(/[?&]pins=([\d.,]+)/) || [])[1] || '';
  return { section, run, pins };
}

/** hashOf is the canonical hash; pins is kept on the comparison's only. */
export const hashOf = (section, run, pins = '') => {
  const q = [run ? `run=${run}` : '', section === 'compare' && pins ? `pins=${pins}` : ''].filter(Boolean).join('&');
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
  let { section, run, pins } = parseHash(location.hash);

  function show(moveFocus) {
    for (const name of SECTIONS) document.getElementById(name).hidden = name !== section;
    document.body.dataset.section = section;
    onShow(section);
    for (const a of links) {
      a.href = hashOf(a.dataset.section, run, pins);
      if (a.dataset.section === section) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
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
    if (location.hash !== hashOf(section, run, pins)) history.replaceState(null, '', hashOf(section, run, pins));
  };

  window.addEventListener('hashchange', () => {
    const before = run, pinsBefore = pins;
    ({ section, run, pins } = parseHash(location.hash));
    if (!run) run = before; // a bare #/faults keeps following the same run
    if (!pins) pins = pinsBefore; // and a bare #/compare the same pins
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
  // An unknown or missing section becomes the Run section.
  canonical();
  show(false);

  return {
    run: () => run,
    pins: () => pins,
    followRun(id) {
      run = id;
      history.replaceState(null, '', hashOf(section, run, pins));
      for (const a of links) a.href = hashOf(a.dataset.section, run, pins);
    },
    /** setPins puts the comparison's pins ("12.1,14.2") into the URL and the links. */
    setPins(p) {
      pins = p;
      history.replaceState(null, '', hashOf(section, run, pins));
      for (const a of links) a.href = hashOf(a.dataset.section, run, pins);
    },
  };
}

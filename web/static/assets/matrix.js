// The Matrix section (#/matrix): which lock survives which failure, read
// from GET /api/matrix ({observed, report}) each time the section shows
// (a run saved meanwhile shows at once) and drawn by matrix-view.js; a
// cell's detail links to its sale's timeline (#/timeline?sale=ID).
import { getJSON } from './api.js';
import { addLabels, label } from './i18n.js';
import { MX_LABELS } from './matrix-model.js';
import { createMatrixView } from './matrix-view.js';

addLabels(MX_LABELS);

/**
 * initMatrix starts the section. opts.zh() says whether Chinese is on.
 * Returns show() (read the report again and draw it) and relabel().
 */
export function initMatrix({ zh }) {
  const root = document.getElementById('matrix-root');
  const view = createMatrixView(root, { zh, saleHref: (id) => `#/timeline?sale=${id}` });
  let loaded = false;
  let asking = null;
  let failed = '';

  // The grid's box fills the screen under the sticky band: its height is the band's.
  const stage = document.querySelector('.stage');
  const fit = () => { if (stage) document.documentElement.style.setProperty('--mx-stage-h', `${stage.offsetHeight}px`); };
  window.addEventListener('resize', fit);
  if (stage && typeof ResizeObserver === 'function') new ResizeObserver(fit).observe(stage);

  async function show() {
    fit();
    if (asking) return asking;
    if (!loaded) view.message(label('mxLoading', zh()));
    asking = (async () => {
      try {
        const body = await getJSON('/api/matrix', { timeoutMs: 15000 });
        failed = '';
        loaded = true;
        view.render(body);
      } catch (err) {
        failed = err.message;
        if (!loaded) view.message(`${label('mxError', zh())}: ${failed}`, true);
      } finally {
        asking = null;
      }
    })();
    return asking;
  }

  return {
    show,
    relabel() {
      if (loaded) view.relabel();
      else if (failed) view.message(`${label('mxError', zh())}: ${failed}`, true);
      else view.message(label('mxLoading', zh()));
    },
  };
}

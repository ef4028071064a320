// The Matrix section (#/matrix): which lock survives which failure, read
// from GET /api/matrix ({observed, report}) each time the section shows
// (a run saved meanwhile shows at once) and drawn by matrix-view.js; a
// cell's detail links to its sale's timeline (#/timeline?sale=ID).
import { ApiError, getJSON } from './api.js';
import { addLabels, label } from './i18n.js';
import { MX_LABELS } from './matrix-model.js';
import { createMatrixView } from './matrix-view.js';

addLabels(MX_LABELS);
addLabels({
  mxNoRoute: ['This shop serves no matrix: GET /api/matrix answered 404 (a build from before the matrix).', '该实例不提供矩阵：GET /api/matrix 返回 404（它的版本早于矩阵功能）。'],
});

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

  const errorText = () => (failed === 'mxNoRoute' ? label(failed, zh()) : `${label('mxError', zh())}: ${failed}`);

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
        failed = err instanceof ApiError && err.status === 404 ? 'mxNoRoute' : err.message;
        if (!loaded) view.message(errorText(), true);
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
      else if (failed) view.message(errorText(), true);
      else view.message(label('mxLoading', zh()));
    },
  };
}

// The Interview section (#/interview): the flash-sale design question as
// the questions interviewers ask, read from GET /api/interview each time the
// section shows (a run finished meanwhile fills its figures at once) and
// drawn by interview-view.js.
import { ApiError, getJSON } from './api.js';
import { addLabels, label } from './i18n.js';
import { IV_LABELS } from './interview-model.js';
import { createInterviewView } from './interview-view.js';

addLabels(IV_LABELS);

/** initInterview starts the section; opts.zh() says whether Chinese is on. Returns show() and relabel(). */
export function initInterview({ zh }) {
  const view = createInterviewView(document.getElementById('interview-root'), { zh });
  let loaded = false;
  let failed = '';
  let asking = null;
  const errorText = () => (failed === 'ivNoRoute' ? label(failed, zh()) : `${label('ivError', zh())}: ${failed}`);

  async function show() {
    if (asking) return asking;
    if (!loaded) view.message(label('ivLoading', zh()));
    asking = (async () => {
      try {
        view.render(await getJSON('/api/interview', { timeoutMs: 15000 }));
        loaded = true;
        failed = '';
      } catch (err) {
        failed = err instanceof ApiError && err.status === 404 ? 'ivNoRoute' : err.message;
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
      else view.message(label('ivLoading', zh()));
    },
  };
}

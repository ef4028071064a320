// Draws the interview path (interview-model.js) into a root element: one
// card per question (the ask, the answer, the figures measured here with the
// run each came from, the trade-off, the next question). Used by the
// dashboard's #/interview and inlined in the page `loadtest interview
// --html` writes, where links is false: that page has no shop to open.
import { ivLabel, pageView } from './interview-model.js';

/**
 * createInterviewView returns render(page), relabel() and message(text,
 * isError). opts.zh() says whether Chinese is on; opts.links whether the
 * dashboard's links (a run's section, a sale's timeline) are drawn.
 */
export function createInterviewView(root, { zh, links = true }) {
  let page = null;
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };

  function figure(f) {
    const box = el('li', f.measured ? 'iv-fig' : 'iv-fig iv-none');
    const num = el('p', 'iv-num');
    num.append(el('span', f.word ? 'iv-val iv-word' : 'iv-val', f.value));
    if (f.measured && f.unit) num.append(el('span', 'iv-unit', ` ${f.unit}`));
    box.append(num, el('p', 'iv-label', f.label));
    if (f.detail) box.append(el('p', 'iv-detail', f.detail));
    if (!f.measured) {
      box.append(el('p', 'iv-missing', `${ivLabel('ivNever', zh())}: ${f.missing}`));
      return box;
    }
    const from = el('p', 'iv-from');
    if (links && f.link) {
      const a = el('a', '', f.from);
      a.setAttribute('href', f.link);
      from.append(a);
    } else from.append(f.from);
    if (links && f.saleLink) {
      const s = el('a', 'iv-sale', ivLabel('ivOpenSale', zh()));
      s.setAttribute('href', f.saleLink);
      from.append(' · ', s);
    }
    box.append(from);
    return box;
  }

  function card(q) {
    const c = el('article', 'iv-q');
    c.id = `iv-${q.id}`;
    const h = el('h3', 'iv-ask');
    h.append(el('span', 'iv-n', `${q.n}.`), ` ${q.ask}`);
    c.append(h, el('p', 'iv-answer', q.answer));
    if (q.figures.length) {
      c.append(el('h4', 'iv-h', ivLabel('ivShowMe', zh())));
      const ul = el('ul', 'iv-figs');
      for (const f of q.figures) ul.append(figure(f));
      c.append(ul);
    }
    const t = el('p', 'iv-trade');
    t.append(el('strong', '', `${ivLabel('ivTradeOff', zh())}: `), q.tradeOff);
    const n = el('p', 'iv-next');
    n.append(el('strong', '', `${ivLabel('ivFollowUp', zh())}: `), q.followUp);
    c.append(t, n);
    return c;
  }

  function draw() {
    const v = pageView(page, zh());
    const head = el('p', 'iv-count', v.count);
    if (v.how) head.append(el('span', 'iv-how', ` — ${v.how}`));
    root.replaceChildren(head, ...v.questions.map(card));
  }

  return {
    render(p) { page = p; draw(); },
    relabel() { if (page) draw(); },
    message(text, isError = false) { root.replaceChildren(el('p', isError ? 'iv-msg iv-err' : 'iv-msg', text)); },
  };
}

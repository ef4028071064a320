// The "Students: open on your phone" button of the Run section and its
// dialog: the band's sale's shop page as phones on the same network open
// it (GET /api/sales/:id/share), with a large QR code
// (GET /api/sales/:id/qr.png), or, when the shop listens on loopback only,
// why not and how to share. Whether the admin token is set is said; the
// token itself is never shown, and the link never carries it.
import { getJSON } from './api.js';
import { el } from './dom.js';
import { addLabels, label } from './i18n.js';

addLabels({
  shareOpen: ['Students: open on your phone', '学生用手机打开'],
  shareTitle: ['Open the sale on your phone', '用手机打开秒杀页面'],
  shareScan: ['Scan the code, or type the address:', '扫描二维码，或输入地址：'],
  shareToken: ['The admin token is set: creating sales and other admin actions need it. The link does not carry it.',
    '已设置管理员令牌：创建秒杀等管理操作都需要它，链接里不含令牌。'],
  shareNoToken: ['No admin token is set.', '未设置管理员令牌。'],
  shareNotShared: ['Not shared', '未共享'],
  shareClose: ['Close', '关闭'],
  shareNoSale: ['No sale yet: start a run first.', '还没有秒杀：请先发起压测。'],
  shareFailed: ['Cannot read the link', '无法读取链接'],
});

const $ = (sel) => document.querySelector(sel);

/**
 * initShare wires the button to liveSale() (the sale the band shows);
 * zh() says the language, which the link carries (?lang=) to the phones.
 */
export function initShare({ liveSale, zh }) {
  const dialog = $('#share');
  const body = $('#share-body');
  const show = async () => {
    const z = zh();
    const sale = liveSale();
    $('#share-h').textContent = label('shareTitle', z);
    $('#share-close').textContent = label('shareClose', z);
    if (!sale?.id) {
      body.replaceChildren(el('p', { class: 'share-msg', text: label('shareNoSale', z) }));
    } else {
      const lang = z ? 'zh' : 'en';
      try {
        const info = await getJSON(`/api/sales/${sale.id}/share?lang=${lang}`);
        body.replaceChildren(...(info.shared ? shared(info, sale.id, lang, z) : notShared(info, z)));
      } catch (err) {
        body.replaceChildren(el('p', { class: 'share-msg bad', text: `${label('shareFailed', z)}: ${err.message}` }));
      }
    }
    if (!dialog.open) dialog.showModal();
  };
  $('#share-btn').addEventListener('click', show);
  $('#share-close').addEventListener('click', () => dialog.close());
  const relabel = () => { $('#share-btn').textContent = label('shareOpen', zh()); };
  relabel();
  return { relabel };
}

function shared(info, id, lang, z) {
  const img = el('img', { id: 'share-qr', class: 'share-qr', src: `/api/sales/${id}/qr.png?lang=${lang}`, alt: info.url, width: '512', height: '512' });
  return [el('p', { class: 'share-msg', text: label('shareScan', z) }), img,
    el('p', { class: 'share-url' }, el('a', { id: 'share-url', href: info.url, text: info.url })),
    el('p', { class: 'share-token', text: label(info.admin_token ? 'shareToken' : 'shareNoToken', z) })];
}

function notShared(info, z) {
  const m = info.message || {};
  return [el('p', { class: 'share-msg bad' }, el('strong', { text: `${label('shareNotShared', z)}: ` }), z ? m.zh || m.en : m.en)];
}

/*! Fitroom theme loader (Apache-2.0). The buttons are in the page; the dialog's code is fetched on the first click. */
/* global document, window, Element */
(() => {
  'use strict';
  if (window.FitroomLoader) return; // the block and the app embed may both include it
  window.FitroomLoader = true;
  let dialogs = null;

  /** The dialog code (fitroom-dialog.js, also an extension asset) with the block's settings. */
  const load = (cfg) =>
    (dialogs ??= new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.src = cfg.dialogSrc;
      for (const k of ['fitroomApi', 'privacyUrl', 'customer', 'shop', 'consent']) if (cfg[k]) s.dataset[k] = cfg[k];
      s.onload = () => (window.Fitroom && window.Fitroom.open ? resolve(window.Fitroom) : reject(new Error('no dialog')));
      s.onerror = () => reject(new Error('not loaded'));
      document.head.append(s);
    }).catch((e) => {
      dialogs = null; // a later click tries again
      throw e;
    }));

  document.addEventListener('click', async (ev) => {
    const button = ev.target instanceof Element ? ev.target.closest('[data-fitroom-open]') : null;
    const cfg = button && (button.closest('[data-dialog-src]') || document.querySelector('[data-dialog-src]'));
    if (!cfg) return;
    ev.preventDefault();
    const host = button.closest('[data-fitroom-tryon],[data-fitroom-size],[data-fitroom-3d]');
    button.setAttribute('aria-busy', 'true');
    try {
      (await load(cfg.dataset)).open(button.dataset.fitroomOpen, host);
    } catch {
      button.title = 'This could not be loaded; try again';
    } finally {
      button.removeAttribute('aria-busy');
    }
  });
})();

/*! Fitroom storefront widget v1 (Apache-2.0). Try-on, size and 3D panels for product pages; no key in the page. */
/* global document, window, location, FileReader, Image, crypto, TextEncoder, btoa, fetch, setTimeout, URL */
(() => {
  'use strict';
  const script = document.currentScript;
  if (!script) return;
  const d = script.dataset;
  const API = (d.fitroomApi || new URL(script.src).origin).replace(/\/$/, '');
  const TOKEN_URL = d.tokenUrl || null;
  const SIZE_URL = d.sizeUrl || null;
  // The consent step before a photo leaves the page: always behind a shop's app proxy, else on request.
  const PROXIED = API.startsWith('/apps/');
  const CONSENT = d.consent === 'required' || (PROXIED && d.consent !== 'off');
  const CONSENT_KEY = `fitroom-consent:${d.shop || location.host}:${d.customer || 'guest'}`;
  const STAGES = { queued: 'Waiting for a free slot', validating: 'Checking the photos', 'validate inputs': 'Checking the photos', 'resolve identity': 'Preparing your model', 'build garment grid': 'Preparing the garment', generate: 'Dressing you', store: 'Almost done', processing: 'Working on it' };
  let shopperPhoto = null;

  const css = `.fr-btn{font:inherit;padding:.6em 1.2em;border-radius:.5em;border:1px solid #222;background:#222;color:#fff;cursor:pointer}
.fr-btn[disabled]{opacity:.5;cursor:default}.fr-btn.fr-alt{background:#fff;color:#222}
dialog.fr-dialog{border:0;border-radius:.8em;padding:1.2em;max-width:min(32em,92vw);max-height:92vh;overflow:auto;box-shadow:0 .5em 2em rgba(0,0,0,.3);font:inherit}
dialog.fr-dialog::backdrop{background:rgba(0,0,0,.45)}.fr-dialog h2{margin:0 0 .6em;font-size:1.2em}
.fr-row{display:flex;flex-direction:column;gap:.25em;margin:.6em 0}.fr-row input,.fr-row select{font:inherit;padding:.4em}
.fr-status{min-height:1.4em;margin:.6em 0;color:#444}.fr-error{color:#a40000}.fr-result img{max-width:100%;max-height:62vh;display:block;margin:auto;border-radius:.5em}
.fr-actions{display:flex;gap:.6em;justify-content:flex-end;margin-top:.8em}.fr-spin{display:inline-block;width:1em;height:1em;border:.15em solid #ccc;border-top-color:#222;border-radius:50%;animation:fr-r 1s linear infinite;vertical-align:-.15em;margin-right:.4em}
@keyframes fr-r{to{transform:rotate(360deg)}}.fr-size-result{margin-top:.6em}.fr-check:empty{display:none}.fr-check{margin:.6em 0}.fr-3d{width:min(28em,84vw)}.fr-3d model-viewer{width:100%;height:22em}.fr-consent ul{padding-left:1.2em}.fr-consent h3{margin:.4em 0;font-size:1em}`;
  const style = document.createElement('style');
  style.textContent = css;
  document.head.append(style);

  const el = (tag, attrs = {}, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === 'text') e.textContent = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else if (v !== false && v != null) e.setAttribute(k, v === true ? '' : v);
    }
    e.append(...kids);
    return e;
  };
  let uid = 0;
  const field = (label, input) => {
    input.id ||= `fr-f${++uid}`;
    return el('div', { class: 'fr-row' }, el('label', { for: input.id, text: label }), input);
  };

  /** An accessible modal: labelled, focus kept inside, Escape and the close button close it. */
  function dialog(title, body, onClose) {
    const titleId = `fr-t${++uid}`;
    const dlg = el('dialog', { class: 'fr-dialog', 'aria-labelledby': titleId, 'aria-modal': 'true' }, el('h2', { id: titleId, text: title }), body);
    const opener = document.activeElement;
    dlg.addEventListener('close', () => {
      dlg.remove();
      onClose?.();
      if (opener && opener.focus) opener.focus();
    });
    dlg.addEventListener('keydown', (ev) => {
      if (ev.key !== 'Tab') return;
      const f = [...dlg.querySelectorAll('button,input,select,a[href],[tabindex]:not([tabindex="-1"])')].filter((x) => !x.disabled && x.offsetParent !== null);
      if (!f.length) return;
      const [first, last] = [f[0], f[f.length - 1]];
      const wrapTo = ev.shiftKey ? (document.activeElement === first ? last : null) : document.activeElement === last ? first : null;
      if (wrapTo) {
        ev.preventDefault();
        wrapTo.focus();
      }
    });
    document.body.append(dlg);
    dlg.showModal();
    return dlg;
  }

  const readFile = (file) =>
    new Promise((res, rej) => {
      const r = new FileReader();
      r.onload = () => res(r.result);
      r.onerror = () => rej(new Error('The photo could not be read'));
      r.readAsDataURL(file);
    });

  /** Photos are sent at most 1600 px on their long side (smaller requests, same result). */
  async function shrink(dataUrl) {
    const img = new Image();
    img.src = dataUrl;
    await img.decode();
    const s = Math.min(1, 1600 / Math.max(img.naturalWidth, img.naturalHeight));
    if (s === 1) return dataUrl;
    const c = el('canvas', { width: Math.round(img.naturalWidth * s), height: Math.round(img.naturalHeight * s) });
    c.getContext('2d').drawImage(img, 0, 0, c.width, c.height);
    return c.toDataURL('image/jpeg', 0.9);
  }

  // Behind a shop's app proxy (/apps/...) cookies do not travel, and a Fitroom host on another site
  // gets no cookies where third-party cookies are blocked (Safari, strict settings): the pass then
  // also travels in a header. The HttpOnly cookie stays for same-site deployments.
  const PASS_IN_HEADER = PROXIED || new URL(API, location.href).origin !== location.origin;
  let pass = null;
  async function api(path, init = {}) {
    const headers = { ...(init.headers || {}), ...(PROXIED && accepted() ? { 'x-fitroom-consent': accepted() } : {}), ...(PASS_IN_HEADER ? { 'x-service-verification-pass-mode': 'header', ...(pass ? { 'x-service-verification-pass': pass } : {}) } : {}) };
    const res = await fetch(path.startsWith('http') || path.startsWith('/apps/') ? path : API + path, { credentials: 'include', ...init, headers });
    pass = res.headers.get('x-service-verification-pass') || pass;
    const body = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(body.error ? body.error.message : `HTTP ${res.status}`);
    return body;
  }

  /** Proof of work (ALTCHA): the number whose SHA-256 with the salt is the challenge. */
  async function solve(c) {
    const enc = new TextEncoder();
    const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');
    for (let start = 0; start <= c.maxnumber; start += 500) {
      const batch = [];
      for (let n = start; n < Math.min(start + 500, c.maxnumber + 1); n++) batch.push(crypto.subtle.digest('SHA-256', enc.encode(c.salt + n)).then((h) => (hex(h) === c.challenge ? n : -1)));
      const found = (await Promise.all(batch)).find((n) => n >= 0);
      if (found !== undefined) return btoa(JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number: found, salt: c.salt, signature: c.signature }));
    }
    throw new Error('The verification challenge could not be solved');
  }

  /** The vendor's script, loaded once from the address the challenge route names. */
  const vendorScripts = {};
  const loadVendor = (v, src) =>
    (vendorScripts[v] ??= new Promise((res, rej) => document.head.append(el('script', { src, async: true, onload: () => (window[v] ? res(window[v]) : rej(new Error('The verification could not be loaded'))), onerror: () => rej(new Error('The verification could not be loaded')) }))));

  /**
   * A single-use X-Challenge-Token: a proof of work solved here (altcha), or the token of the
   * vendor widget (Turnstile, hCaptcha) rendered into `box`; both vendors share render(el, params).
   */
  async function challengeToken(box) {
    const c = await api('/api/v1/challenge');
    if (c.verifier === 'off') return null;
    if (c.verifier === 'altcha') return solve(c.challenge);
    if (c.verifier !== 'turnstile' && c.verifier !== 'hcaptcha') throw new Error('This shop\'s visitor check is not supported by this widget');
    const vendor = await loadVendor(c.verifier, c.script);
    const slot = el('div');
    box.replaceChildren(slot);
    try {
      return await new Promise((res, rej) => vendor.render(slot, { sitekey: c.siteKey, callback: res, 'error-callback': () => rej(new Error('The visitor check failed; try again')), 'expired-callback': () => rej(new Error('The visitor check expired; try again')) }));
    } finally {
      box.replaceChildren();
    }
  }

  async function storefrontToken() {
    if (!TOKEN_URL) return null; // behind an app proxy the shop's signature is the credential
    const r = await fetch(TOKEN_URL, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: '{}' });
    const b = await r.json().catch(() => ({}));
    if (!r.ok || !b.token) throw new Error('The shop could not start a try-on session');
    return b.token;
  }

  const store = () => {
    try {
      return window.localStorage;
    } catch {
      return null; // storage blocked: the shopper is asked each time
    }
  };
  let acceptedNow = null;
  const accepted = () => acceptedNow || (store() && store().getItem(CONSENT_KEY)) || null;

  /**
   * The consent step: what is sent, who processes it, how long it is kept and the shop's privacy
   * policy, before any photo can be chosen. The answer is remembered per shopper (this browser,
   * this shop, the logged-in customer or the guest). Resolves once accepted; `form` stays hidden
   * (and its submit refused) until then.
   */
  function consentStep(wrap, form, dlg, first) {
    if (!CONSENT || accepted()) return;
    form.hidden = true;
    const box = el('div', { class: 'fr-consent', role: 'group', 'aria-label': 'Before you upload a photo' }, el('p', { text: 'Loading…' }));
    wrap.prepend(box);
    const notice = PROXIED ? api('/storefront/v1/consent') : Promise.resolve({ version: '1', photoRetentionHours: Number(d.retentionHours) || null, processor: { name: d.processor || 'Fitroom', host: new URL(API, location.href).host }, sent: ['the photo you choose', 'the measurements and sizes you enter', 'this product\'s picture'] });
    notice.then(
      (n) => {
        const hours = n.photoRetentionHours;
        const kept = hours ? `Your photo and the pictures made from it are deleted after ${hours >= 48 && hours % 24 === 0 ? `${hours / 24} days` : `${hours} hour${hours === 1 ? '' : 's'}`}.` : 'Your photo is kept only as long as the shop\'s privacy policy says.';
        const yes = el('button', { class: 'fr-btn', type: 'button', text: 'I agree, continue' });
        const no = el('button', { class: 'fr-btn fr-alt', type: 'button', text: 'Not now', onclick: () => dlg.close() });
        yes.addEventListener('click', () => {
          acceptedNow = String(n.version);
          store()?.setItem(CONSENT_KEY, acceptedNow);
          box.remove();
          form.hidden = false;
          first.focus();
        });
        box.replaceChildren(
          el('h3', { text: 'Before you upload a photo' }),
          el('ul', {}, el('li', { text: `What is sent: ${n.sent.join(', ')}.` }), el('li', { text: `Who processes it: ${n.processor.name} (${n.processor.host}), the try-on service this shop uses, only to show you this product on you or your size.` }), el('li', { text: `How long it is kept: ${kept}` })),
          ...(d.privacyUrl ? [el('p', {}, el('a', { href: d.privacyUrl, target: '_blank', rel: 'noopener', text: 'This shop\'s privacy policy' }))] : []),
          el('div', { class: 'fr-actions' }, no, yes),
        );
        yes.focus();
      },
      (e) => box.replaceChildren(el('p', { class: 'fr-error', text: `${e.message}: no photo can be sent right now.` })),
    );
  }

  function tryOnDialog(host) {
    const photo = el('input', { type: 'file', accept: 'image/*', capture: 'user', required: true });
    const whole = el('input', { type: 'checkbox', checked: true });
    const height = el('input', { type: 'number', min: 140, max: 210, value: 170, inputmode: 'numeric' });
    const size = el('select', {}, ...['XS', 'S', 'M', 'L', 'XL', 'XXL', '3XL'].map((s) => el('option', { value: s, text: s, selected: s === 'M' })));
    const gender = el('select', {}, el('option', { value: 'female', text: 'Women\'s fit' }), el('option', { value: 'male', text: 'Men\'s fit' }));
    const measures = el('div', { hidden: true }, field('Height (cm)', height), field('Usual size', size), field('Fit', gender));
    whole.addEventListener('change', () => (measures.hidden = whole.checked));
    const status = el('div', { class: 'fr-status', role: 'status', 'aria-live': 'polite' });
    const result = el('div', { class: 'fr-result' });
    const check = el('div', { class: 'fr-check' });
    const go = el('button', { class: 'fr-btn', type: 'submit', text: 'Try it on' });
    const close = el('button', { class: 'fr-btn fr-alt', type: 'button', text: 'Close', onclick: () => dlg.close() });
    const form = el('form', {}, field('Your photo', photo), el('div', { class: 'fr-row' }, el('label', {}, whole, ' The photo shows me from head to toe')), measures, check, status, result, el('div', { class: 'fr-actions' }, close, go));
    const wrap = el('div', {}, form);
    const dlg = dialog('Try it on', wrap);
    const say = (text, busy, error) => {
      status.replaceChildren(...(busy ? [el('span', { class: 'fr-spin', 'aria-hidden': 'true' })] : []), text);
      status.classList.toggle('fr-error', !!error);
    };
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      if (CONSENT && !accepted()) return;
      if (!photo.files[0]) return say('Choose a photo first', false, true);
      go.disabled = true;
      result.replaceChildren();
      try {
        say('Reading your photo…', true);
        shopperPhoto = await shrink(await readFile(photo.files[0]));
        say('Checking that you are human…', true);
        const [challenge, token] = await Promise.all([challengeToken(check), storefrontToken()]);
        const headers = { 'content-type': 'application/json', ...(token ? { 'x-api-key': token } : {}), ...(challenge ? { 'x-challenge-token': challenge } : {}) };
        const slot = { top: 'topGarment', bottom: 'bottomGarment', fullBody: 'fullBodyGarment' }[host.dataset.category || 'top'] || 'topGarment';
        const identity = whole.checked ? { personImages: [shopperPhoto] } : { faceImage: shopperPhoto, clothingSize: { height: Number(height.value), size: size.value }, gender: gender.value };
        say('Sending…', true);
        let job = await api('/api/v1/virtual-fitting', { method: 'POST', headers, body: JSON.stringify({ ...identity, [slot]: new URL(host.dataset.garmentUrl, location.href).href }) });
        const pollHeaders = token ? { 'x-api-key': token } : {};
        for (let i = 0; job.status !== 'completed' && job.status !== 'failed' && i < 600; i++) {
          const stage = job.progress && job.progress.stage ? job.progress.stage : job.status;
          say(`${STAGES[stage] || 'Working on it'}…`, true);
          await new Promise((r) => setTimeout(r, 1000));
          job = await api(job.statusUrl || `/api/v1/jobs/${job.jobId}`, { headers: pollHeaders });
        }
        if (job.status !== 'completed') throw new Error(job.error || 'The try-on did not finish');
        say('Here you are.');
        result.append(el('img', { src: job.results[0].url, alt: 'You wearing this garment' }));
      } catch (e) {
        say(e.message, false, true);
      } finally {
        go.disabled = false;
      }
    });
    photo.focus();
    consentStep(wrap, form, dlg, photo);
  }

  function sizePanel(host) {
    const out = el('div', { class: 'fr-size-result', role: 'status', 'aria-live': 'polite' });
    const check = el('div', { class: 'fr-check' });
    const height = el('input', { type: 'number', min: 140, max: 210, value: 170, inputmode: 'numeric' });
    const chest = el('input', { type: 'number', min: 70, max: 160, placeholder: 'optional', inputmode: 'numeric' });
    const waist = el('input', { type: 'number', min: 55, max: 170, placeholder: 'optional', inputmode: 'numeric' });
    const size = el('select', {}, el('option', { value: '', text: '— or your measurements —' }), ...['XS', 'S', 'M', 'L', 'XL', 'XXL', '3XL'].map((s) => el('option', { value: s, text: s })));
    const gender = el('select', {}, el('option', { value: 'female', text: 'Women\'s fit' }), el('option', { value: 'male', text: 'Men\'s fit' }));
    const photo = el('input', { type: 'file', accept: 'image/*', capture: 'user' });
    const go = el('button', { class: 'fr-btn', type: 'submit', text: 'Find my size' });
    const form = el('form', {}, field('Height (cm)', height), field('Usual size', size), field('Chest (cm)', chest), field('Waist (cm)', waist), field('Fit', gender), field('A photo of your face (kept with your fit profile)', photo), check, out, el('div', { class: 'fr-actions' }, el('button', { class: 'fr-btn fr-alt', type: 'button', text: 'Close', onclick: () => dlg.close() }), go));
    const wrap = el('div', {}, form);
    const dlg = dialog('Find my size', wrap);
    consentStep(wrap, form, dlg, height);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      if (CONSENT && !accepted()) return;
      go.disabled = true;
      out.classList.remove('fr-error');
      out.replaceChildren(el('span', { class: 'fr-spin', 'aria-hidden': 'true' }), 'Working out your size…');
      try {
        const chart = host.dataset.sizeChart ? JSON.parse(host.dataset.sizeChart) : null;
        if (!SIZE_URL && !chart) throw new Error('This shop has not set up size recommendations');
        const face = photo.files[0] ? await shrink(await readFile(photo.files[0])) : shopperPhoto;
        if (!face) throw new Error('Add a photo of your face (or try something on first)');
        const m = { height: Number(height.value) };
        if (chest.value) m.chest = Number(chest.value);
        if (waist.value) m.waist = Number(waist.value);
        const profile = { faceImage: face, gender: gender.value, ...(size.value ? { clothingSize: { height: m.height, size: size.value } } : { bodyMeasurements: m }) };
        let b;
        if (SIZE_URL) {
          const r = await fetch(SIZE_URL, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...profile, productId: host.dataset.productId }) });
          b = await r.json().catch(() => ({}));
          if (!r.ok) throw new Error(b.error ? b.error.message : 'No recommendation right now');
        } else {
          // behind the shop's app proxy, with the product's chart in the page: twin, then size fitting
          const json = { 'content-type': 'application/json' };
          let twin = await api('/api/v1/digital-twin', { method: 'POST', headers: json, body: JSON.stringify(profile) });
          // job reads are browser-protected: the first one carries a solved challenge, later ones the pass
          let challenge = twin.digitalTwinId ? null : await challengeToken(check);
          for (let i = 0; !twin.digitalTwinId && twin.status !== 'failed' && i < 120; i++) {
            await new Promise((r) => setTimeout(r, 1000));
            const j = await api(twin.statusUrl || `/api/v1/jobs/${twin.jobId}`, { headers: challenge ? { 'x-challenge-token': challenge } : {} });
            challenge = null;
            twin = { ...twin, status: j.status, digitalTwinId: j.result && j.result.digitalTwinId };
          }
          if (!twin.digitalTwinId) throw new Error('Your fit profile could not be made');
          b = await api('/api/v1/size-fitting', { method: 'POST', headers: json, body: JSON.stringify({ digitalTwinId: twin.digitalTwinId, products: [{ id: String(host.dataset.productId || 'product'), ...chart }] }) });
        }
        const rec = (b.products || [])[0];
        if (!b.available || !rec || !rec.recommendedSize) throw new Error('No size could be recommended for this product');
        out.replaceChildren(el('strong', { text: `Your size: ${rec.recommendedSize}` }), ...(rec.reason ? [el('p', { text: rec.reason })] : []));
      } catch (e) {
        out.classList.add('fr-error');
        out.replaceChildren(e.message);
      } finally {
        go.disabled = false;
      }
    });
  }

  let viewer = null;
  function view3d(host) {
    const box = el('div', { class: 'fr-3d' });
    const dlg = dialog('See it in 3D', el('div', {}, box, el('div', { class: 'fr-actions' }, el('button', { class: 'fr-btn fr-alt', type: 'button', text: 'Close', onclick: () => dlg.close() }))));
    viewer ??= new Promise((res, rej) => document.head.append(el('script', { type: 'module', src: `${API}/widget/v1/model-viewer.min.js`, onload: res, onerror: () => rej(new Error('The 3D viewer could not be loaded')) })));
    viewer.then(
      () => box.append(el('model-viewer', { src: host.dataset.glbUrl, alt: host.dataset.alt || 'The product in 3D', ar: true, 'ar-modes': 'webxr scene-viewer quick-look', 'camera-controls': true, 'touch-action': 'pan-y', 'shadow-intensity': '1' })),
      (e) => box.append(e.message),
    );
  }

  const mount = (selector, label, open) => {
    for (const host of document.querySelectorAll(selector)) {
      if (host.dataset.fitroomMounted) continue;
      host.dataset.fitroomMounted = '1';
      host.append(el('button', { class: 'fr-btn', type: 'button', text: host.dataset.label || label, onclick: () => open(host) }));
    }
  };
  const init = () => {
    mount('[data-fitroom-tryon]', 'Try it on', tryOnDialog);
    mount('[data-fitroom-size]', 'Find my size', sizePanel);
    mount('[data-fitroom-3d]', 'View in 3D', view3d);
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
  const panels = { tryon: tryOnDialog, size: sizePanel, '3d': view3d };
  // the theme's loader renders the buttons and hands the first click over
  window.Fitroom = { init, open: (kind, host) => panels[kind](host), version: 'v1' };
})();

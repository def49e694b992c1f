/* global document, sessionStorage, history, location, FileReader, fetch, TextEncoder, crypto, btoa, URL, Blob, setTimeout, clearTimeout */
// The playground page: builds a request from the form, sends it like any client, follows the job.
const $ = (id) => document.getElementById(id);
const KEY = 'fitroom.playground.key';
const TWIN = 'fitroom.playground.twin';
const STATUSES = ['queued', 'validating', 'processing', 'uploading', 'completed'];
const PATHS = { 'digital-twin': '/api/v1/digital-twin', 'size-fitting': '/api/v1/size-fitting', 'virtual-fitting': '/api/v1/virtual-fitting', 'shoe-3d': '/api/v1/shoe-3d' };
const files = {};
/** Images still being read: a submission waits for them (a file picked just before pressing Send). */
const reading = new Set();
let polling = null;

const el = (tag, attrs = {}, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (k === 'class') e.className = v; else if (k.startsWith('on')) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  e.append(...children.filter((c) => c !== null && c !== undefined));
  return e;
};
/** Long data URLs shortened for display; the request itself keeps them whole. */
const shorten = (json) => JSON.stringify(json, null, 2).replace(/"data:([a-z/+.-]+);base64,[A-Za-z0-9+/=]{40,}"/g, (m, type) => `"data:${type};base64,…(${Math.round(m.length / 1365)} kB)"`);
const say = (text, kind = '') => Object.assign($('message'), { textContent: text, className: kind });

// --- the key: this tab only ---
$('key').value = sessionStorage.getItem(KEY) ?? '';
$('key').addEventListener('input', () => sessionStorage.setItem(KEY, $('key').value.trim()));

// --- operations ---
function showOperation() {
  const op = $('operation').value;
  for (const fs of document.querySelectorAll('fieldset[data-op]')) fs.hidden = fs.dataset.op !== op;
  for (const i of document.querySelectorAll('.twin-id')) if (!i.value) i.value = sessionStorage.getItem(TWIN) ?? '';
  history.replaceState(null, '', `#${op}`);
}
if (PATHS[location.hash.slice(1)]) $('operation').value = location.hash.slice(1);
$('operation').addEventListener('change', showOperation);
showOperation();

// --- image drop zones ---
const readAsDataUrl = (file) => new Promise((resolve, reject) => Object.assign(new FileReader(), { onload: (e) => resolve(e.target.result), onerror: reject }).readAsDataURL(file));
for (const zone of document.querySelectorAll('.drop')) {
  const max = Number(zone.dataset.multiple ?? 1);
  const input = el('input', { type: 'file', accept: 'image/*', name: zone.dataset.field, ...(max > 1 ? { multiple: '' } : {}) });
  const thumbs = el('div', { class: 'thumbs' });
  const hint = el('span', { class: 'hint' }, 'Drop image', max > 1 ? 's' : '', ' here or ');
  zone.append(el('strong', {}, zone.dataset.label), hint, el('label', { class: 'pick' }, 'choose…', input), thumbs);
  const take = async (list) => {
    const picked = [...list].filter((f) => f.type.startsWith('image/')).slice(0, max);
    if (!picked.length) return;
    files[zone.dataset.field] = await Promise.all(picked.map(readAsDataUrl));
    thumbs.replaceChildren(...files[zone.dataset.field].map((src) => el('img', { src, alt: '' })));
    zone.classList.add('filled');
  };
  const track = (list) => {
    const p = take(list).finally(() => reading.delete(p));
    reading.add(p);
  };
  input.addEventListener('change', () => track(input.files));
  // the sample photo the README's walkthrough uses, fetched from this host
  if (zone.dataset.sample) {
    const sample = el('button', { type: 'button', class: 'sample' }, 'use the sample photo');
    sample.addEventListener('click', async () => {
      const r = await fetch(`/playground/assets/${zone.dataset.sample}`);
      if (!r.ok) return sample.remove();
      const blob = await r.blob();
      track([new globalThis.File([blob], zone.dataset.sample, { type: blob.type })]);
    });
    hint.after(sample);
  }
  zone.addEventListener('dragover', (e) => (e.preventDefault(), zone.classList.add('over')));
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => (e.preventDefault(), zone.classList.remove('over'), track(e.dataTransfer.files)));
}

// --- the request ---
function buildBody(op, form) {
  const v = (name) => form.querySelector(`fieldset[data-op="${op}"] [name="${name}"]`);
  const need = (field, label) => {
    if (!files[field]?.length) throw new Error(`Drop an image for "${label}" first.`);
    return files[field];
  };
  if (op === 'digital-twin') {
    const m = { height: Number(v('height').value) };
    for (const d of ['chest', 'waist']) if (v(d).value) m[d] = Number(v(d).value);
    return { faceImage: need('faceImage', 'Face photo')[0], gender: v('gender').value, bodyMeasurements: m };
  }
  if (op === 'size-fitting') {
    let products;
    try { products = JSON.parse(v('products').value); } catch (e) { throw new Error(`Products is not valid JSON: ${e.message}`, { cause: e }); }
    return { digitalTwinId: v('twinId').value.trim(), products };
  }
  if (op === 'virtual-fitting') {
    const body = { digitalTwinId: v('twinId').value.trim() };
    if (files.topGarment?.length) body.topGarment = files.topGarment[0];
    if (files.bottomGarment?.length) body.bottomGarment = files.bottomGarment[0];
    if (!body.topGarment && !body.bottomGarment) throw new Error('Drop a top or a bottom garment first.');
    return body;
  }
  return { images: need('images', 'Photos'), options: { uploadToService: v('uploadToService').checked } };
}

/** The builtin bot check (ALTCHA proof of work), as the storefront widget solves it. */
async function challengeToken() {
  const c = await (await fetch('/api/v1/challenge')).json();
  if (c.verifier === 'off') return null;
  if (c.verifier !== 'altcha') throw new Error(`This deployment verifies browsers with ${c.verifier}; the playground solves only the builtin check. Use curl (below) instead.`);
  const enc = new TextEncoder();
  const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');
  for (let start = 0; start <= c.challenge.maxnumber; start += 500) {
    const batch = [];
    for (let n = start; n < Math.min(start + 500, c.challenge.maxnumber + 1); n++) batch.push(crypto.subtle.digest('SHA-256', enc.encode(c.challenge.salt + n)).then((h) => (hex(h) === c.challenge.challenge ? n : -1)));
    const found = (await Promise.all(batch)).find((n) => n >= 0);
    if (found !== undefined) return btoa(JSON.stringify({ ...c.challenge, number: found, maxnumber: undefined }));
  }
  throw new Error('The verification challenge could not be solved');
}

/** A call with the key; a 403 asking for bot verification is solved once and retried. */
async function api(path, init = {}) {
  const key = $('key').value.trim();
  const send = (extra = {}) => fetch(path, { ...init, headers: { ...(init.body ? { 'content-type': 'application/json' } : {}), ...(key ? { 'x-api-key': key } : {}), ...extra } });
  let res = await send();
  let body = await res.json().catch(() => ({}));
  if (res.status === 403 && body.error?.code === 'BOT_VERIFICATION_REQUIRED') {
    say('Solving the browser check (once an hour)…');
    const token = await challengeToken();
    res = await send(token ? { 'x-challenge-token': token } : {});
    body = await res.json().catch(() => ({}));
  }
  return { status: res.status, body };
}

function showCurl(op, body, jobId) {
  const origin = location.origin;
  const lines = [`export KEY=fr_live_…   # your key`, `curl -s ${origin}${PATHS[op]} -H "X-API-Key: $KEY" -H 'content-type: application/json' -d @body.json`];
  if (jobId) lines.push(`curl -s ${origin}/api/v1/jobs/${jobId} -H "X-API-Key: $KEY"          # poll until completed or failed`, `curl -s ${origin}/api/v1/jobs/${jobId}/trace -H "X-API-Key: $KEY"    # the stage timeline`);
  $('curl').textContent = lines.join('\n');
  const link = $('body-download');
  if (link.href.startsWith('blob:')) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([JSON.stringify(body)], { type: 'application/json' }));
  $('curl-panel').hidden = false;
}

// --- following a job ---
function showStages(job) {
  const at = STATUSES.indexOf(job.status);
  $('stages').replaceChildren(...STATUSES.map((s, i) => el('li', { class: job.status === 'failed' && i === Math.max(at, 0) ? 'failed' : i < at || job.status === 'completed' ? 'done' : i === at ? 'current' : '' }, s)));
  const bar = $('progress');
  const stage = typeof job.progress === 'object' ? job.progress.stage : job.status;
  // a percentage only once the job gives one: until then the bar is indeterminate, as the spec asks
  const pct = typeof job.progress === 'number' ? job.progress : job.progress?.percentage;
  if (typeof pct === 'number' && (pct > 0 || job.status === 'completed')) bar.value = pct;
  else bar.removeAttribute('value');
  $('progress-text').textContent = job.status === 'failed' ? 'failed' : typeof pct === 'number' && pct > 0 ? `${pct}% · ${stage}` : `${stage}…`;
}

async function showTrace(jobId) {
  const { status, body } = await api(`/api/v1/jobs/${jobId}/trace`);
  if (status !== 200) return;
  const rows = body.timeline;
  if (!rows.length) return;
  const t0 = Date.parse(rows[0].startedAt);
  const total = Math.max(1, ...rows.map((r) => Date.parse(r.endedAt ?? r.startedAt) - t0));
  $('trace').replaceChildren(
    ...rows.map((r) => {
      const start = Date.parse(r.startedAt) - t0;
      const width = Math.max(0.6, ((r.durationMs ?? 0) / total) * 100);
      return el('li', { class: r.outcome },
        el('span', { class: 'name' }, r.stage),
        el('span', { class: 'lane' }, el('span', { class: 'span', style: `left:${(start / total) * 100}%;width:${Math.min(width, 100 - (start / total) * 100)}%` })),
        el('span', { class: 'ms' }, r.durationMs === null ? r.outcome : `${r.durationMs} ms`));
    }),
  );
}

function showResult(op, job) {
  const out = $('result');
  if (op === 'digital-twin') {
    const id = job.digitalTwinId ?? job.result?.digitalTwinId;
    sessionStorage.setItem(TWIN, id);
    for (const i of document.querySelectorAll('.twin-id')) i.value = id;
    out.replaceChildren(el('p', { class: 'ok' }, 'Digital twin ', el('code', {}, id), ' — now pick Size fitting or Virtual fitting: the id is filled in.'));
  } else if (op === 'virtual-fitting') {
    out.replaceChildren(el('img', { class: 'result-image', src: job.result.imageUrl, alt: 'The twin dressed in the garments' }), el('p', {}, el('a', { href: job.result.imageUrl, target: '_blank', rel: 'noopener' }, 'Open the image'), ' (a signed URL, valid until ', job.results?.[0]?.expiresAt ?? 'it expires', ')'));
  } else if (op === 'shoe-3d') {
    const r = job.result;
    const viewer = el('model-viewer', { src: r.glbUrl, 'camera-controls': '', 'auto-rotate': '', 'shadow-intensity': '0.6', alt: 'The reconstructed model', id: 'model' });
    const ar = r.arObject
      ? el('p', {}, 'AR object ', el('code', {}, r.arObject.id), ': ', el('a', { href: r.viewerUrl, target: '_blank', rel: 'noopener' }, 'open the AR viewer'))
      : el('p', { class: 'note' }, 'Not an AR object: submit with "Also make it an AR host object" (options.uploadToService) to get one, or upload the GLB to the AR host.');
    out.replaceChildren(viewer, ar, el('img', { class: 'grid', src: r.previewGrid, alt: 'Six views of the model' }), el('p', {}, el('a', { href: r.glbUrl, download: 'model.glb' }, 'Download the GLB')));
  }
}

async function follow(op, jobId, first) {
  clearTimeout(polling);
  $('run').hidden = false;
  $('run-title').replaceChildren('Job ', el('code', { id: 'job-id' }, jobId));
  $('result').replaceChildren();
  $('trace').replaceChildren(el('li', { class: 'empty' }, 'The timeline appears when the job has run.'));
  let job = first;
  for (;;) {
    showStages(job);
    if (job.status === 'completed' || job.status === 'failed') break;
    await new Promise((r) => (polling = setTimeout(r, op === 'shoe-3d' ? 1500 : 1000)));
    const r = await api(`/api/v1/jobs/${jobId}`);
    if (r.status !== 200) return say(r.body.error?.message ?? `Status read failed (${r.status})`, 'error');
    job = r.body;
    $('answer').textContent = shorten(job);
  }
  if (job.status === 'completed') {
    showResult(op, job);
    say('Done.', 'ok');
  } else say(`The job failed: ${job.errorCode}: ${job.error}`, 'error');
  await showTrace(jobId);
}

$('form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const op = $('operation').value;
  if (!$('key').value.trim()) return say('Paste an API key first.', 'error');
  let body;
  await Promise.allSettled([...reading]);
  try { body = buildBody(op, $('form')); } catch (err) { return say(err.message, 'error'); }
  $('submit').disabled = true;
  say('Sending…');
  showCurl(op, body);
  try {
    const { status, body: answer } = await api(PATHS[op], { method: 'POST', body: JSON.stringify(body) });
    $('answer').textContent = shorten(answer);
    if (status >= 400) return say(`${status} ${answer.error?.code}: ${answer.error?.message}${answer.error?.details ? ` (${answer.error.details.map((d) => `${d.field}: ${d.message}`).join('; ')})` : ''}`, 'error');
    if (op === 'size-fitting') {
      clearTimeout(polling);
      $('run').hidden = false;
      $('run-title').replaceChildren('Size fitting: answered at once, no job');
      $('stages').replaceChildren();
      $('trace').replaceChildren(el('li', { class: 'empty' }, 'Size fitting runs no job, so it has no trace.'));
      $('progress').value = 100;
      $('progress-text').textContent = 'answered at once';
      $('result').replaceChildren(el('table', {}, el('tr', {}, el('th', {}, 'Product'), el('th', {}, 'Size'), el('th', {}, 'Confidence'), el('th', {}, 'Why')), ...(answer.products ?? []).map((p) => el('tr', {}, el('td', {}, p.id), el('td', { class: 'size' }, p.recommendedSize ?? '—'), el('td', {}, p.confidence === undefined ? '' : `${Math.round(p.confidence * 100)}%`), el('td', {}, p.reason ?? '')))), ...(answer.available === false ? [el('p', { class: 'note' }, answer.reason ?? 'This twin has no measured body (photo or silhouette twins).')] : []));
      return say('Done.', 'ok');
    }
    showCurl(op, body, answer.jobId);
    say(`Job ${answer.jobId} ${answer.status}.`);
    await follow(op, answer.jobId, { jobId: answer.jobId, status: answer.status, progress: answer.status === 'completed' ? 100 : { stage: 'queued' }, ...(answer.status === 'completed' ? (await api(`/api/v1/jobs/${answer.jobId}`)).body : {}) });
  } catch (err) {
    say(err.message, 'error');
  } finally {
    $('submit').disabled = false;
  }
});

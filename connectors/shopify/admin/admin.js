/**
 * The embedded admin's script: Polaris web components filled from the admin JSON routes under
 * /shopify/api, every call carrying App Bridge's session token (`shopify.idToken()`), products and
 * collections chosen with App Bridge's resource picker, results told with its toast. Sections whose
 * route this server does not have (404) show a quiet empty state instead of an error.
 */
/* global shopify, document, fetch, open, setTimeout, clearTimeout, URL */
import { DIMENSIONS, DIM_LABEL, emptyRange, validateChart } from './size-chart-rules.js';

const API = '/shopify/api';

const $ = (id) => document.getElementById(id);

/** Creates an element: attributes (false/null skipped, true as an empty attribute), `on*` listeners, children. */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'object' ? c : String(c));
  return el;
}

class HttpError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `The server answered HTTP ${status}`);
    this.status = status;
    this.code = body?.error?.code;
  }
}

/** One admin route with the session token. `optional`: a 404 (a route this server lacks) gives null. */
async function call(path, { method = 'GET', body, optional = false } = {}) {
  const token = await shopify.idToken();
  const res = await fetch(API + path, { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  if (optional && res.status === 404) return null;
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new HttpError(res.status, data);
  return data;
}

function toast(message, isError = false) {
  shopify.toast.show(message, isError ? { isError: true } : undefined);
}

function fail(e) {
  if (e?.code === 'PLATFORM_REAUTH_REQUIRED') {
    $('notice').replaceChildren(h('s-banner', { tone: 'warning', heading: 'Fitroom needs to be authorized again' }, h('s-paragraph', {}, 'Shopify no longer accepts Fitroom\'s access. Reload the app from your Apps list to authorize it.')));
  }
  toast(e?.message ?? String(e), true);
}

const numericId = (gid) => String(gid).split('/').pop();
const dateText = (iso) => (iso ? new Date(iso).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' }) : '');

// ---------------------------------------------------------------- onboarding and this month

const STEPS = {
  appEmbed: { title: 'Turn on the Fitroom app embed', text: 'It loads the try-on widget on your storefront. The theme editor opens with the embed selected: switch it on and save.', action: 'Open theme editor' },
  productBlock: { title: 'Add the Fitroom block to product pages', text: '"Try it on", "Find my size" and the 3D view. The theme editor opens with the block added to your product template: place it and save.', action: 'Add the block' },
  sizeChart: { title: 'Set a size chart', text: 'Shoppers get a size recommendation from the body measurements each size fits.', action: 'Edit a size chart' },
  firstModel: { title: 'Generate a first 3D model', text: 'Built from a product\'s photos and added to its media.', action: 'Choose products' },
};

async function loadOverview() {
  try {
    const o = await call('/overview');
    renderChecklist(o.checklist);
    renderFigures(o.month);
  } catch (e) {
    $('setup-progress').textContent = 'The setup could not be checked.';
    fail(e);
  }
}

function renderChecklist(steps) {
  const done = steps.filter((s) => s.done === true).length;
  $('setup-progress').textContent = done === steps.length ? 'All set: Fitroom is live on your store.' : `${done} of ${steps.length} steps done`;
  $('checklist').replaceChildren(...steps.map((s) => {
    const meta = STEPS[s.id];
    const badge = s.done === true ? h('s-badge', { tone: 'success' }, 'Done') : s.done === false ? h('s-badge', { tone: 'info' }, 'To do') : h('s-badge', {}, 'Not checked');
    const note = s.done === null ? h('s-text', { color: 'subdued' }, ' Fitroom cannot read your theme to check this (it needs the read_themes permission).') : null;
    let action;
    if (s.url) action = h('s-button', { href: s.url, target: '_blank', variant: s.done ? 'tertiary' : 'primary' }, meta.action);
    else if (s.id === 'sizeChart') action = h('s-button', { variant: s.done ? 'tertiary' : 'primary', onclick: () => $('chart').scrollIntoView({ behavior: 'smooth' }) }, meta.action);
    else action = h('s-button', { variant: s.done ? 'tertiary' : 'primary', onclick: pickProductsFor3d }, meta.action);
    return h('s-box', { border: 'base', borderRadius: 'base', padding: 'base', 'data-step': s.id, 'data-done': String(s.done) },
      h('s-stack', { direction: 'inline', gap: 'base', alignItems: 'center', justifyContent: 'space-between' },
        h('s-stack', { gap: 'small-300' }, h('s-stack', { direction: 'inline', gap: 'small-200' }, badge, h('s-heading', {}, meta.title)), h('s-paragraph', {}, meta.text, note)),
        action));
  }));
}

function renderFigures(month) {
  const since = new Date(`${month.start}T00:00:00Z`).toLocaleDateString(undefined, { day: 'numeric', month: 'long', timeZone: 'UTC' });
  const figure = (label, value, key) => h('s-box', { border: 'base', borderRadius: 'base', padding: 'base', 'data-figure': key },
    h('s-stack', { gap: 'small-300' }, h('s-text', { color: 'subdued' }, label), h('s-heading', {}, String(value)), h('s-text', { color: 'subdued' }, `since ${since}`)));
  $('figures').replaceChildren(
    figure('Try-ons', month.tryOns, 'tryOns'),
    figure('Size recommendations', month.sizeRecommendations, 'sizeRecommendations'),
    figure('3D models', month.models3d, 'models3d'),
  );
}

// ---------------------------------------------------------------- plan and usage cap

async function loadBilling() {
  const body = $('billing-body');
  try {
    const b = await call('/billing', { optional: true });
    if (!b) {
      body.replaceChildren(h('s-paragraph', { 'data-empty': 'billing' }, 'Plans are not offered on this server: every feature is available.'));
      $('plan').replaceChildren();
      return;
    }
    const money = (n) => new Intl.NumberFormat(undefined, { style: 'currency', currency: b.usage?.currency || 'USD' }).format(Number(n) || 0);
    const cap = Number(b.usage?.cap) || 0;
    const used = Number(b.usage?.amount) || 0;
    const share = cap > 0 ? Math.min(100, Math.round((used / cap) * 100)) : 0;
    const meter = cap > 0 ? [h('s-text', {}, `Usage charges: ${money(used)} of ${money(cap)} (${share}% of the cap)`), h('div', { class: 'fr-meter', role: 'meter', 'aria-valuemin': 0, 'aria-valuemax': cap, 'aria-valuenow': used, 'aria-label': 'Usage against the cap' }, h('span', { style: `width:${share}%` }))] : [];
    $('plan').replaceChildren(h('s-stack', { gap: 'small-300' }, h('s-text', { type: 'strong' }, `Plan: ${b.plan ?? 'none'}${b.status ? ` (${b.status})` : ''}`), ...meter));
    const plans = (Array.isArray(b.plans) ? b.plans : []).map((p) => (typeof p === 'string' ? { id: p, name: p } : { ...p, id: p.id ?? p.name, name: p.name ?? p.id }));
    body.replaceChildren(h('s-stack', { gap: 'base' }, ...plans.map((p) => {
      const price = p.price ?? p.amount;
      const current = p.id === b.plan || p.name === b.plan;
      const terms = p.usageTerms ?? p.description;
      return h('s-stack', { direction: 'inline', gap: 'base', alignItems: 'center', 'data-plan': p.id },
        h('s-text', { type: 'strong' }, p.name), price !== undefined ? h('s-text', {}, typeof price === 'number' ? `${money(price)} a month` : String(price)) : null, terms ? h('s-text', { color: 'subdued' }, terms) : null,
        current ? h('s-badge', { tone: 'success' }, 'Current plan') : h('s-button', { onclick: () => (p.id === 'free' ? cancelPlan() : subscribe(p.id)) }, `Choose ${p.name}`));
    })));
  } catch (e) {
    body.replaceChildren(h('s-paragraph', {}, 'The plan could not be loaded.'));
    fail(e);
  }
}

/** The free plan is no subscription: choosing it cancels the paid one. */
async function cancelPlan() {
  try {
    await call('/billing/cancel', { method: 'POST' });
    toast('You are on the free plan');
    loadBilling();
  } catch (e) {
    fail(e);
  }
}

async function subscribe(plan) {
  try {
    const r = await call('/billing/subscribe', { method: 'POST', body: { plan } });
    // Shopify's confirmation page replaces the whole admin, not the app's frame
    if (r.confirmationUrl) open(r.confirmationUrl, '_top');
    else loadBilling();
  } catch (e) {
    fail(e);
  }
}

// ---------------------------------------------------------------- products and 3D

let products = [];
let generations = [];
let polling = null;

function modelState(p) {
  const g = generations.find((x) => x.productId === p.id);
  if (g && g.status !== 'ready') return g;
  if (p.media?.nodes?.some((m) => m.mediaContentType === 'MODEL_3D') || g?.status === 'ready') return { status: 'ready' };
  return { status: 'none' };
}

const MODEL_BADGE = { ready: ['success', 'Ready'], generating: ['info', 'Generating'], attaching: ['info', 'Adding to Shopify'], failed: ['critical', 'Failed'], none: [undefined, 'No model'] };

async function loadProducts() {
  try {
    const data = await call('/products');
    products = data.products;
    generations = data.generations;
    renderProducts();
  } catch (e) {
    $('product-list').replaceChildren(h('s-paragraph', {}, 'Products could not be loaded.'));
    fail(e);
  }
}

function renderProducts() {
  if (!products.length) {
    $('product-list').replaceChildren(h('s-paragraph', {}, 'No products yet. Add products in Shopify; they appear here with their 3D state.'));
    return;
  }
  const rows = products.map((p) => {
    const s = modelState(p);
    const [tone, text] = MODEL_BADGE[s.status] ?? MODEL_BADGE.none;
    const busy = s.status === 'generating' || s.status === 'attaching';
    const image = p.images?.nodes?.[0];
    const action = s.status === 'failed'
      ? h('s-button', { onclick: (e) => generate(p, e.currentTarget) }, 'Retry')
      : h('s-button', { disabled: busy || !p.images?.nodes?.length, onclick: (e) => generate(p, e.currentTarget) }, s.status === 'ready' ? 'Generate again' : 'Generate 3D');
    return h('s-table-row', { 'data-product': p.id },
      h('s-table-cell', {}, h('s-stack', { direction: 'inline', gap: 'small-200', alignItems: 'center' }, image ? h('s-thumbnail', { src: image.url, alt: image.altText || p.title, size: 'small' }) : null, h('s-text', {}, p.title))),
      h('s-table-cell', {}, h('s-stack', { gap: 'small-400' }, h('s-badge', { tone }, text), s.error ? h('s-text', { color: 'subdued' }, s.error) : null)),
      h('s-table-cell', {}, p.sizeChart?.value ? h('s-badge', { tone: 'success' }, 'Set') : h('s-text', { color: 'subdued' }, 'None')),
      h('s-table-cell', {}, h('s-stack', { direction: 'inline', gap: 'small-200' }, action, h('s-button', { variant: 'tertiary', onclick: () => editChartOf(p) }, 'Edit size chart'))));
  });
  $('product-list').replaceChildren(h('s-table', {},
    h('s-table-header-row', {}, h('s-table-header', { listSlot: 'primary' }, 'Product'), h('s-table-header', {}, '3D model'), h('s-table-header', {}, 'Size chart'), h('s-table-header', {}, 'Actions')),
    h('s-table-body', {}, rows)));
  schedulePoll();
}

function schedulePoll() {
  clearTimeout(polling);
  if (!generations.some((g) => g.status === 'generating' || g.status === 'attaching')) return;
  polling = setTimeout(async () => {
    try {
      generations = (await call('/generations')).generations;
      renderProducts();
    } catch (e) {
      fail(e);
    }
  }, 5000);
}

async function generate(p, button) {
  button?.setAttribute('loading', '');
  try {
    const r = await call(`/products/${numericId(p.id)}/3d`, { method: 'POST' });
    generations = [r.generation, ...generations.filter((g) => g.productId !== p.id)];
    toast(`Generating the 3D model of ${p.title}`);
    renderProducts();
  } catch (e) {
    fail(e);
  } finally {
    button?.removeAttribute('loading');
  }
}

async function pickProductsFor3d() {
  const picked = await shopify.resourcePicker({ type: 'product', multiple: true, action: 'select' });
  if (!picked?.length) return;
  let started = 0;
  for (const p of picked) {
    try {
      await call(`/products/${numericId(p.id)}/3d`, { method: 'POST' });
      started++;
    } catch (e) {
      toast(`${p.title}: ${e.message}`, true);
    }
  }
  if (started) toast(`${started} 3D ${started === 1 ? 'model' : 'models'} started`);
  loadProducts();
}

async function pickCollectionFor3d() {
  const picked = await shopify.resourcePicker({ type: 'collection', multiple: false, action: 'select' });
  const c = picked?.[0];
  if (!c) return;
  try {
    const r = await call(`/collections/${numericId(c.id)}/3d`, { method: 'POST' });
    toast(`${c.title}: ${r.generations.length} models started${r.skipped.length ? `, ${r.skipped.length} products without photos skipped` : ''}`);
    loadProducts();
  } catch (e) {
    fail(e);
  }
}

// ---------------------------------------------------------------- size chart editor

const chart = {
  product: null,
  category: 'top',
  unit: 'cm',
  columns: ['chest', 'waist'],
  rows: ['S', 'M', 'L'].map((label) => ({ label, m: { chest: emptyRange(), waist: emptyRange() } })),
};
let chartErrors = {};

/** Loads a product's saved chart into the table (or keeps the table, to reuse it for this product). */
function editChartOf(p) {
  chart.product = { id: p.id, title: p.title };
  const saved = p.sizeChart?.value ? safeJson(p.sizeChart.value) : null;
  if (saved?.sizeChart?.sizes?.length) {
    chart.category = saved.category ?? chart.category;
    chart.unit = saved.sizeChart.unit ?? 'cm';
    chart.columns = DIMENSIONS.filter((d) => saved.sizeChart.sizes.some((s) => s.measurements?.[d]));
    chart.rows = saved.sizeChart.sizes.map((s) => ({ label: s.label, m: Object.fromEntries(chart.columns.map((d) => [d, s.measurements?.[d] ? { min: String(s.measurements[d].min), max: String(s.measurements[d].max) } : emptyRange()])) }));
  }
  chartErrors = {};
  renderChart();
  $('chart').scrollIntoView({ behavior: 'smooth' });
}

function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

async function pickChartProduct() {
  const picked = await shopify.resourcePicker({ type: 'product', multiple: false, action: 'select' });
  const p = picked?.[0];
  if (!p) return;
  editChartOf(products.find((x) => x.id === p.id) ?? { id: p.id, title: p.title });
}

function fieldLabel(i, d, end) {
  return `${chart.rows[i].label || `Row ${i + 1}`} ${d ? `${DIM_LABEL[d].toLowerCase()} ` : ''}${end}`;
}

function numberField(i, d, end) {
  const key = `${i}.${d}.${end}`;
  return h('s-number-field', {
    label: fieldLabel(i, d, end), labelAccessibilityVisibility: 'exclusive', placeholder: end, value: chart.rows[i].m[d][end], min: 0, step: 0.5,
    error: chartErrors[key], 'data-key': key,
    oninput: (e) => {
      chart.rows[i].m[d][end] = e.currentTarget.value ?? '';
      clearError(e.currentTarget, key);
    },
  });
}

function clearError(el, key) {
  if (!chartErrors[key]) return;
  delete chartErrors[key];
  el.removeAttribute('error');
}

function renderChart() {
  $('chart-product-title').textContent = chart.product ? chart.product.title : 'No product chosen';
  $('chart-product-title').setAttribute('color', chart.product ? 'base' : 'subdued');
  const category = h('s-select', { label: 'Garment', value: chart.category, onchange: (e) => { chart.category = e.currentTarget.value; } },
    h('s-option', { value: 'top', selected: chart.category === 'top' }, 'Top'), h('s-option', { value: 'bottom', selected: chart.category === 'bottom' }, 'Bottom'), h('s-option', { value: 'fullBody', selected: chart.category === 'fullBody' }, 'Full body'));
  const unit = h('s-select', { label: 'Unit', value: chart.unit, onchange: (e) => { chart.unit = e.currentTarget.value; renderChart(); } },
    h('s-option', { value: 'cm', selected: chart.unit === 'cm' }, 'Centimetres'), h('s-option', { value: 'in', selected: chart.unit === 'in' }, 'Inches'));
  $('chart-options').replaceChildren(category, unit);

  const header = h('s-table-header-row', {}, h('s-table-header', { listSlot: 'primary' }, 'Size'),
    ...chart.columns.map((d) => h('s-table-header', {}, h('s-stack', { direction: 'inline', gap: 'small-300', alignItems: 'center' }, `${DIM_LABEL[d]} (${chart.unit}, min–max)`,
      h('s-button', { variant: 'tertiary', accessibilityLabel: `Remove ${DIM_LABEL[d].toLowerCase()}`, onclick: () => removeColumn(d) }, '✕')))),
    h('s-table-header', {}, ''));
  const rows = chart.rows.map((r, i) => h('s-table-row', { 'data-row': i },
    h('s-table-cell', {}, h('s-text-field', { label: `Size ${i + 1} label`, labelAccessibilityVisibility: 'exclusive', value: r.label, error: chartErrors[`${i}.label`], 'data-key': `${i}.label`,
      oninput: (e) => { r.label = e.currentTarget.value ?? ''; clearError(e.currentTarget, `${i}.label`); },
      onchange: () => renderChart() })),
    ...chart.columns.map((d) => h('s-table-cell', {}, h('div', { class: 'fr-range' }, numberField(i, d, 'min'), numberField(i, d, 'max')))),
    h('s-table-cell', {}, h('s-button', { variant: 'tertiary', tone: 'critical', accessibilityLabel: `Remove size ${r.label || i + 1}`, onclick: () => { chart.rows.splice(i, 1); chartErrors = {}; renderChart(); } }, 'Remove'))));
  $('chart-table').replaceChildren(h('s-table', {}, header, h('s-table-body', {}, rows)));

  const missing = DIMENSIONS.filter((d) => !chart.columns.includes(d));
  $('chart-actions').replaceChildren(
    h('s-button', { onclick: () => { chart.rows.push({ label: '', m: Object.fromEntries(chart.columns.map((d) => [d, emptyRange()])) }); renderChart(); } }, 'Add size'),
    ...missing.map((d) => h('s-button', { variant: 'tertiary', onclick: () => addColumn(d) }, `Add ${DIM_LABEL[d].toLowerCase()}`)),
    h('s-button', { variant: 'primary', id: 'save-chart', onclick: saveChart }, 'Save size chart'));
}

function addColumn(d) {
  chart.columns = DIMENSIONS.filter((x) => x === d || chart.columns.includes(x));
  for (const r of chart.rows) r.m[d] = emptyRange();
  renderChart();
}

function removeColumn(d) {
  chart.columns = chart.columns.filter((x) => x !== d);
  for (const r of chart.rows) delete r.m[d];
  chartErrors = {};
  renderChart();
}

async function saveChart() {
  const { errors, general, sizeChart } = validateChart(chart);
  if (!chart.product) general.unshift('Choose the product this chart is for.');
  chartErrors = errors;
  const count = Object.keys(errors).length;
  renderChart();
  if (general.length || count) {
    $('chart-errors').replaceChildren(h('s-banner', { tone: 'critical', heading: 'The size chart was not saved' },
      ...general.map((g) => h('s-paragraph', {}, g)), count ? h('s-paragraph', {}, `Fix the ${count} highlighted ${count === 1 ? 'field' : 'fields'}.`) : null));
    toast('Check the size chart', true);
    return;
  }
  $('chart-errors').replaceChildren();
  const button = $('save-chart');
  button?.setAttribute('loading', '');
  try {
    await call(`/products/${numericId(chart.product.id)}/size-chart`, { method: 'PUT', body: { category: chart.category, sizeChart } });
    const p = products.find((x) => x.id === chart.product.id);
    if (p) p.sizeChart = { value: JSON.stringify({ category: chart.category, sizeChart }) };
    toast(`Size chart saved for ${chart.product.title}`);
    renderProducts();
    loadOverview();
  } catch (e) {
    fail(e);
  } finally {
    button?.removeAttribute('loading');
  }
}

// ---------------------------------------------------------------- data requests

async function loadRequests() {
  const body = $('requests-body');
  try {
    const r = await call('/data-requests', { optional: true });
    const list = Array.isArray(r?.dataRequests) ? r.dataRequests : null;
    if (!list?.length) {
      body.replaceChildren(h('s-paragraph', { 'data-empty': 'requests' }, 'No open requests. When a customer asks your store for their data, Shopify sends the request to Fitroom and the export of what Fitroom holds appears here.'));
      return;
    }
    body.replaceChildren(h('s-table', {},
      h('s-table-header-row', {}, h('s-table-header', { listSlot: 'primary' }, 'Customer'), h('s-table-header', {}, 'Requested'), h('s-table-header', {}, 'Status'), h('s-table-header', {}, 'Export')),
      h('s-table-body', {}, list.map((d) => h('s-table-row', { 'data-request': d.id },
        h('s-table-cell', {}, `Customer ${d.customerId}`),
        h('s-table-cell', {}, dateText(d.requestedAt)),
        h('s-table-cell', {}, d.deliveredAt ? h('s-badge', { tone: 'success' }, `Delivered ${dateText(d.deliveredAt)}`) : h('s-badge', { tone: 'warning' }, d.status || 'Open')),
        h('s-table-cell', {}, h('s-stack', { direction: 'inline', gap: 'small-200' },
          h('s-button', { onclick: () => download(d, 'json') }, 'JSON'),
          h('s-button', { onclick: () => download(d, 'html') }, 'Summary (HTML)'),
          d.deliveredAt ? null : h('s-button', { variant: 'tertiary', onclick: () => delivered(d) }, 'Mark delivered'))))))));
  } catch (e) {
    body.replaceChildren(h('s-paragraph', {}, 'Data requests could not be loaded.'));
    fail(e);
  }
}

/** The export needs the session token, so it is fetched and saved from a blob rather than linked. */
async function download(d, format) {
  try {
    const token = await shopify.idToken();
    const res = await fetch(`${API}/data-requests/${encodeURIComponent(d.id)}/export?format=${format}`, { headers: { authorization: `Bearer ${token}` } });
    if (!res.ok) throw new HttpError(res.status, await res.json().catch(() => ({})));
    const url = URL.createObjectURL(await res.blob());
    const a = h('a', { href: url, download: `fitroom-customer-${d.customerId}.${format}` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  } catch (e) {
    fail(e);
  }
}

async function delivered(d) {
  try {
    await call(`/data-requests/${encodeURIComponent(d.id)}/delivered`, { method: 'POST' });
    toast('Marked as delivered');
    loadRequests();
  } catch (e) {
    fail(e);
  }
}

// ---------------------------------------------------------------- privacy: retention and erasures

async function loadRetention() {
  const box = $('retention');
  try {
    const s = await call('/settings', { optional: true });
    if (!s) {
      box.replaceChildren(h('s-paragraph', { 'data-empty': 'settings' }, 'Shoppers\' photos are kept for the server\'s default time.'));
      return;
    }
    const bounds = { min: 1, ...s.limits?.photoRetentionHours };
    const range = bounds.max ? `between ${bounds.min} and ${bounds.max} hours` : `at least ${bounds.min} hour${bounds.min === 1 ? '' : 's'}`;
    const field = h('s-number-field', { label: 'Keep shoppers\' photos for (hours)', value: s.photoRetentionHours, min: bounds.min, max: bounds.max, step: 1,
      details: `Photos and try-on results are deleted after this time, which the shoppers' notice states (${range}).` });
    const save = async () => {
      const n = Number(field.value);
      if (!Number.isInteger(n) || n < bounds.min || (bounds.max && n > bounds.max)) {
        field.setAttribute('error', `Enter a whole number of hours, ${range}`);
        return;
      }
      field.removeAttribute('error');
      try {
        await call('/settings', { method: 'PUT', body: { photoRetentionHours: n } });
        toast('Photo retention saved');
      } catch (e) {
        fail(e);
      }
    };
    box.replaceChildren(h('s-stack', { direction: 'inline', gap: 'base', alignItems: 'end' }, field, h('s-button', { onclick: save }, 'Save')));
  } catch (e) {
    fail(e);
  }
}

async function loadCompliance() {
  const box = $('compliance');
  try {
    const c = await call('/compliance', { optional: true });
    if (!c) {
      box.replaceChildren(h('s-paragraph', { 'data-empty': 'compliance' }, 'Erasures requested by Shopify are carried out automatically.'));
      return;
    }
    const line = (title, run) => h('s-stack', { direction: 'inline', gap: 'small-200' }, h('s-text', { type: 'strong' }, title),
      h('s-text', { color: 'subdued' }, run ? `last run ${dateText(run.lastRunAt)}: ${run.rows} records and ${run.files} files removed` : 'none yet'));
    box.replaceChildren(h('s-stack', { gap: 'small-300' }, line('Customer erasure', c.customersRedact), line('Store erasure', c.shopRedact)));
  } catch (e) {
    fail(e);
  }
}

// ---------------------------------------------------------------- start

$('recheck').addEventListener('click', loadOverview);
$('pick-products').addEventListener('click', pickProductsFor3d);
$('pick-collection').addEventListener('click', pickCollectionFor3d);
$('chart-product').addEventListener('click', pickChartProduct);
renderChart();
loadOverview();
loadProducts();
loadBilling();
loadRequests();
loadRetention();
loadCompliance();

/**
 * The embedded admin page (inside the Shopify admin, App Bridge): products with their images and 3D
 * state, "Generate 3D" per product or for a whole collection, and a size-chart editor that writes the
 * product's `$app:fitroom.size_chart` metafield. Every call carries App Bridge's session token.
 */
export function adminPage(apiKey: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="shopify-api-key" content="${escapeHtml(apiKey)}">
<script src="https://cdn.shopify.com/shopifycloud/app-bridge.js"></script>
<title>Fitroom</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:0;padding:16px;background:#f1f1f1;color:#303030}
h1{font-size:20px;margin:0 0 12px}section{background:#fff;border-radius:12px;padding:16px;margin-bottom:16px;box-shadow:0 1px 2px rgba(0,0,0,.1)}
table{width:100%;border-collapse:collapse}td,th{padding:8px;border-bottom:1px solid #eee;text-align:left;vertical-align:middle}
img{width:48px;height:48px;object-fit:cover;border-radius:6px;margin-right:4px}button{background:#303030;color:#fff;border:0;border-radius:8px;padding:6px 12px;cursor:pointer}
button[disabled]{opacity:.5}.status{font-size:12px;padding:2px 8px;border-radius:10px;background:#eee}.ready{background:#cdfee1}.failed{background:#fedad9}
textarea{width:100%;min-height:160px;font:12px monospace}#msg{min-height:20px;color:#8e1f0b}
</style></head>
<body>
<h1>Fitroom: try-on, size fitting and 3D</h1>
<div id="msg" role="status" aria-live="polite"></div>
<section><h2>Products</h2><input id="q" placeholder="Search products" aria-label="Search products"> <button id="search">Search</button>
<table><thead><tr><th>Product</th><th>Images</th><th>3D model</th><th></th></tr></thead><tbody id="products"></tbody></table></section>
<section><h2>Digitize a collection</h2><label>Collection id <input id="collection" placeholder="123456789"></label> <button id="digitize">Generate 3D for every product</button></section>
<section><h2>Size chart</h2><p>Body ranges in cm, as the size-fitting API takes them. The chart is stored on the product and read by the theme block.</p>
<label>Product id <input id="chartProduct" placeholder="123456789"></label>
<label>Category <select id="chartCategory"><option>top</option><option>bottom</option><option>fullBody</option></select></label>
<textarea id="chart" aria-label="Size chart JSON">{"version":1,"basis":"body","unit":"cm","sizes":[{"label":"S","measurements":{"chest":{"min":82,"max":90},"waist":{"min":66,"max":74}}},{"label":"M","measurements":{"chest":{"min":90,"max":98},"waist":{"min":74,"max":82}}}]}</textarea>
<button id="saveChart">Save size chart</button></section>
<script>
const $ = (id) => document.getElementById(id);
const say = (t) => { $('msg').textContent = t; };
async function call(path, init = {}) {
  const token = await shopify.idToken();
  const res = await fetch('/shopify/api' + path, { ...init, headers: { ...(init.body ? { 'content-type': 'application/json' } : {}), authorization: 'Bearer ' + token } });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(body.error ? body.error.message : 'HTTP ' + res.status);
  return body;
}
function stateOf(p, gens) {
  const g = gens.find((x) => x.productId === p.id);
  const has = p.media.nodes.some((m) => m.mediaContentType === 'MODEL_3D');
  if (g && g.status !== 'ready') return g;
  return { status: has ? 'ready' : 'none' };
}
async function load() {
  try {
    const q = $('q').value.trim();
    const data = await call('/products' + (q ? '?q=' + encodeURIComponent(q) : ''));
    const rows = data.products.map((p) => {
      const s = stateOf(p, data.generations);
      const tr = document.createElement('tr');
      tr.innerHTML = '<td></td><td></td><td><span class="status"></span></td><td><button>Generate 3D</button></td>';
      tr.children[0].textContent = p.title;
      for (const i of p.images.nodes) { const img = document.createElement('img'); img.src = i.url; img.alt = i.altText || ''; tr.children[1].append(img); }
      const badge = tr.querySelector('.status');
      badge.textContent = s.status + (s.error ? ': ' + s.error : '');
      badge.classList.add(s.status);
      const btn = tr.querySelector('button');
      btn.disabled = !p.images.nodes.length || s.status === 'generating' || s.status === 'attaching';
      btn.onclick = async () => { btn.disabled = true; try { await call('/products/' + encodeURIComponent(p.id.split('/').pop()) + '/3d', { method: 'POST' }); say('Generating the model for ' + p.title); load(); } catch (e) { say(e.message); btn.disabled = false; } };
      return tr;
    });
    $('products').replaceChildren(...rows);
    if (data.generations.some((g) => g.status === 'generating' || g.status === 'attaching')) setTimeout(() => call('/generations').then(load, (e) => say(e.message)), 5000);
  } catch (e) { say(e.message); }
}
$('search').onclick = load;
$('digitize').onclick = async () => { try { const r = await call('/collections/' + encodeURIComponent($('collection').value.trim()) + '/3d', { method: 'POST' }); say(r.generations.length + ' models started, ' + r.skipped.length + ' products skipped (no images)'); load(); } catch (e) { say(e.message); } };
$('saveChart').onclick = async () => {
  try { await call('/products/' + encodeURIComponent($('chartProduct').value.trim()) + '/size-chart', { method: 'PUT', body: JSON.stringify({ category: $('chartCategory').value, sizeChart: JSON.parse($('chart').value) }) }); say('Size chart saved'); }
  catch (e) { say(e.message); }
};
load();
</script></body></html>`;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

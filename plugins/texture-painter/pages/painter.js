/* global document, Image, URL, fetch */
// Texture painter: paints on the model's base colour texture in a canvas, shows the result on the
// model at once, and sends the texture and the painted mask to the enhancement route.
const cfg = JSON.parse(document.getElementById('painter-config').textContent);
const viewer = document.getElementById('viewer');
const canvas = document.getElementById('texture');
const maskCanvas = document.getElementById('mask');
const ctx = canvas.getContext('2d', { willReadFrequently: true });
const mctx = maskCanvas.getContext('2d');
const status = document.getElementById('painter-status');
const enhanceButton = document.getElementById('enhance');
const SIZE = Math.min(1024, cfg.limits.maxSide);
let before = null; // the texture before the current strokes (undo)
let enhanced = 0;

const say = (text) => (status.textContent = text);

function loadImage(url) {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error('image failed to load'));
    img.src = url;
  });
}

/** Puts the canvas on the model as its base colour texture. */
async function pushToModel() {
  const blob = await new Promise((r) => canvas.toBlob(r, 'image/png'));
  const url = URL.createObjectURL(blob);
  const tex = await viewer.createTexture(url);
  const slot = viewer.model.materials[0].pbrMetallicRoughness.baseColorTexture;
  slot.setTexture(tex);
}

viewer.addEventListener('load', async () => {
  try {
    canvas.width = maskCanvas.width = SIZE;
    canvas.height = maskCanvas.height = SIZE;
    const material = viewer.model.materials[0];
    const slot = material.pbrMetallicRoughness.baseColorTexture;
    if (slot.texture) {
      const url = await slot.texture.source.createThumbnail(SIZE, SIZE);
      ctx.drawImage(await loadImage(url), 0, 0, SIZE, SIZE);
    } else {
      // no texture yet: start from the material's colour
      const [r, g, b] = material.pbrMetallicRoughness.baseColorFactor;
      ctx.fillStyle = `rgb(${Math.round(r * 255)},${Math.round(g * 255)},${Math.round(b * 255)})`;
      ctx.fillRect(0, 0, SIZE, SIZE);
      material.pbrMetallicRoughness.setBaseColorFactor([1, 1, 1, 1]);
    }
    await pushToModel();
    before = ctx.getImageData(0, 0, SIZE, SIZE);
    document.body.dataset.ready = '1';
    say('Paint on the texture, then press Enhance.');
  } catch (e) {
    say(`Could not read the model's texture: ${e.message}`);
  }
});
viewer.addEventListener('error', () => say('The model could not be loaded.'));

// painting: the stroke goes on the texture and, in white, on the mask
let drawing = false;
let last = null;
function point(ev) {
  const r = canvas.getBoundingClientRect();
  return [((ev.clientX - r.left) / r.width) * canvas.width, ((ev.clientY - r.top) / r.height) * canvas.height];
}
function stroke(from, to) {
  const size = Number(document.getElementById('brush').value) * (canvas.width / canvas.getBoundingClientRect().width);
  for (const [c, colour] of [[ctx, document.getElementById('colour').value], [mctx, '#ffffff']]) {
    c.strokeStyle = colour;
    c.lineWidth = size;
    c.lineCap = 'round';
    c.lineJoin = 'round';
    c.beginPath();
    c.moveTo(from[0], from[1]);
    c.lineTo(to[0], to[1]);
    c.stroke();
  }
}
canvas.addEventListener('pointerdown', (ev) => {
  if (!document.body.dataset.ready) return;
  drawing = true;
  canvas.setPointerCapture(ev.pointerId);
  last = point(ev);
  stroke(last, last);
});
canvas.addEventListener('pointermove', (ev) => {
  if (!drawing) return;
  const p = point(ev);
  stroke(last, p);
  last = p;
});
const end = () => {
  if (!drawing) return;
  drawing = false;
  void pushToModel();
};
canvas.addEventListener('pointerup', end);
canvas.addEventListener('pointercancel', end);

document.getElementById('undo').addEventListener('click', async () => {
  if (!before) return;
  ctx.putImageData(before, 0, 0);
  mctx.clearRect(0, 0, maskCanvas.width, maskCanvas.height);
  await pushToModel();
  say('Paint removed.');
});

enhanceButton.addEventListener('click', async () => {
  enhanceButton.disabled = true;
  say('Enhancing…');
  try {
    const body = {
      texture: canvas.toDataURL('image/png'),
      mask: maskCanvas.toDataURL('image/png'),
      mode: document.getElementById('mode').value,
      wrap: document.getElementById('wrap').value,
    };
    const prompt = document.getElementById('prompt').value.trim();
    if (prompt) body.prompt = prompt;
    const res = await fetch('/api/v1/texture-painter/enhance', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const out = await res.json();
    if (!res.ok) throw new Error(out.error?.message ?? `HTTP ${res.status}`);
    ctx.drawImage(await loadImage(out.texture), 0, 0, canvas.width, canvas.height);
    mctx.clearRect(0, 0, maskCanvas.width, maskCanvas.height);
    await pushToModel();
    before = ctx.getImageData(0, 0, canvas.width, canvas.height);
    enhanced++;
    document.body.dataset.enhanced = String(enhanced);
    say(`Enhanced ${out.paintedPixels} painted pixels in ${out.regions || 1} region(s) with ${out.engine.model ?? out.engine.provider}.`);
  } catch (e) {
    document.body.dataset.failed = e.message;
    say(`Enhancement failed: ${e.message}`);
  } finally {
    enhanceButton.disabled = false;
  }
});

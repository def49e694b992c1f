/* global document, navigator, setInterval, window, location */
import { config, log, modelsFor, showDebug, showSettings, waitUntilReady } from './common.js';

/**
 * The try-on app: the camera behind a transparent 3D view of the shoe(s). Frames are downsampled
 * to native_ml_size for analysis, at a rate set by pose_quality; the analysis here measures frame
 * motion, which drives the debug read-out.
 */
const FPS = { 1: 10, 2: 20, 3: 30 };
const viewers = [document.getElementById('viewer'), document.getElementById('viewer-pair')].filter(Boolean);

/** Why there is no camera, in words, with what to do; the 3D view works either way. */
function cameraProblem(name) {
  if (!window.isSecureContext) return `Browsers give the camera only to HTTPS pages (or localhost), and this page came over plain HTTP from ${location.host}: open it through HTTPS.`;
  if (!name) return 'This browser offers no camera access to web pages.';
  if (name === 'NotAllowedError' || name === 'SecurityError') return 'Camera access was refused: allow the camera for this site in the browser (the camera icon in the address bar) and reload.';
  if (name === 'NotFoundError' || name === 'OverconstrainedError') return 'none was found on this device.';
  if (name === 'NotReadableError' || name === 'AbortError') return 'The camera is in use by another app: close it and reload.';
  return `The camera could not start (${name}).`;
}

function showCameraProblem(name) {
  const note = document.getElementById('camera-note');
  note.textContent = `No camera: ${cameraProblem(name)} The 3D view still works: drag to turn the shoe, pinch to zoom, or use "View in your space" on a phone.`;
  note.hidden = false;
  document.body.dataset.camera = 'unavailable';
}

async function startCamera() {
  if (!window.isSecureContext || !navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    showCameraProblem(null);
    return null;
  }
  try {
    const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment', width: { ideal: 1280 } }, audio: false });
    const video = document.getElementById('camera');
    video.srcObject = stream;
    if (config.params.mirrorMode === 4 || config.params.mirrorMode === 5) video.style.transform = 'none';
    return video;
  } catch (e) {
    log('camera unavailable', e.name);
    showCameraProblem(e.name);
    return null;
  }
}

function analyse(video) {
  const size = config.params.nativeMlSize;
  const canvas = document.getElementById('analysis');
  canvas.width = size;
  canvas.height = size;
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  let previous = null;
  let motion = 0;
  const tick = () => {
    if (video.readyState >= 2) {
      ctx.drawImage(video, 0, 0, size, size);
      const { data } = ctx.getImageData(0, 0, size, size);
      if (previous) {
        let sum = 0;
        for (let i = 0; i < data.length; i += 4) sum += Math.abs(data[i] - previous[i]) + Math.abs(data[i + 1] - previous[i + 1]) + Math.abs(data[i + 2] - previous[i + 2]);
        motion = sum / (size * size * 3 * 255);
      }
      previous = data;
      showDebug({ analysis: { size, fps: FPS[config.params.poseQuality], motion: Number(motion.toFixed(4)) } });
    }
  };
  setInterval(tick, 1000 / FPS[config.params.poseQuality]);
}

async function start() {
  showSettings();
  showDebug();
  if (!config.autofit || config.autofit.status !== 'finished') await waitUntilReady();
  const models = modelsFor(config.params.mirrorMode, config.properties.side);
  viewers.forEach((v, i) => {
    const m = models[i] || models[0];
    v.setAttribute('ios-src', m.usdz);
    v.setAttribute('src', m.glb);
    v.addEventListener('load', () => {
      document.body.dataset.loaded = String(Number(document.body.dataset.loaded || 0) + 1);
    });
  });
  const video = await startCamera();
  if (video) analyse(video);
}

start().catch((e) => log(e));

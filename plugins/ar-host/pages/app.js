/* global document, navigator, setInterval */
import { config, log, modelsFor, showDebug, showSettings, waitUntilReady } from './common.js';

/**
 * The try-on app: the camera behind a transparent 3D view of the shoe(s). Frames are downsampled
 * to native_ml_size for analysis, at a rate set by pose_quality; the analysis here measures frame
 * motion, which drives the debug read-out.
 */
const FPS = { 1: 10, 2: 20, 3: 30 };
const viewers = [document.getElementById('viewer'), document.getElementById('viewer-pair')].filter(Boolean);

async function startCamera() {
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) return null;
  try {
    const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment', width: { ideal: 1280 } }, audio: false });
    const video = document.getElementById('camera');
    video.srcObject = stream;
    if (config.params.mirrorMode === 4 || config.params.mirrorMode === 5) video.style.transform = 'none';
    return video;
  } catch (e) {
    log('camera unavailable', e.name);
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

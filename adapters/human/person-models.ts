/**
 * The learned person models, run offline on the CPU through `@vladmandic/human` on the tfjs wasm
 * backend: MoveNet Thunder (17 body keypoints), MediaPipe selfie segmentation (person mask),
 * BlazeFace + FaceMesh (faces and their outline). The model files ship in `models/person/` (only
 * the ones used; licences beside them) and in the human package (face models). Loaded once per
 * process; calls are serialised because one model instance is not re-entrant.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RasterImage } from '../../core/images.ts';
import type { FaceBox, Keypoint, KeypointName } from '../../core/ports/person-analyzer.ts';
import type { Point } from '../../core/twins/body.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);

export interface PersonInference {
  keypoints: Keypoint[];
  /** 0..255 person likelihood per pixel of the photo. */
  mask: Uint8Array;
  faces: (FaceBox & { outline: Point[] })[];
}

/* The slice of Human's API used here (its own types pull in DOM typings). */
interface HumanTensor {
  shape: number[];
  data(): Promise<ArrayLike<number>>;
  dispose(): void;
}
interface HumanResult {
  body: { score: number; keypoints: { part: string; position: number[]; score: number }[] }[];
  face: { box: number[]; score: number; annotations?: Record<string, number[][]> }[];
}
interface HumanInstance {
  tf: {
    tensor4d(values: Int32Array, shape: number[], dtype: 'int32'): HumanTensor;
    io: { registerLoadRouter(router: (url: string) => unknown): void };
    getBackend(): string;
  };
  load(): Promise<void>;
  detect(input: HumanTensor): Promise<HumanResult & { error?: string | null }>;
  segmentation(input: HumanTensor): Promise<HumanTensor | null>;
}

/** Loads a tfjs graph model from a `file://` URL: the JSON plus its weight shards, concatenated. */
function fileModelRouter(url: string) {
  const u = String(url);
  if (!u.startsWith('file://')) return null;
  const file = fileURLToPath(u);
  return {
    load: async () => {
      const json = JSON.parse(await readFile(file, 'utf8'));
      const groups: { paths: string[]; weights: unknown[] }[] = json.weightsManifest ?? [];
      const shards = await Promise.all(groups.flatMap((g) => g.paths.map((p) => readFile(path.resolve(path.dirname(file), p)))));
      const all = Buffer.concat(shards);
      return {
        modelTopology: json.modelTopology,
        format: json.format,
        generatedBy: json.generatedBy,
        convertedBy: json.convertedBy,
        signature: json.signature,
        userDefinedMetadata: json.userDefinedMetadata,
        weightSpecs: groups.flatMap((g) => g.weights),
        weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength),
      };
    },
  };
}

const fileUrl = (p: string) => 'file://' + p;

async function loadHuman(): Promise<HumanInstance> {
  // the package's export map lists this build without "./": require it by path
  const humanDist = path.dirname(require.resolve('@vladmandic/human'));
  const wasmDir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm')) + path.sep;
  const { Human } = require(path.join(humanDist, 'human.node-wasm.js')) as { Human: new (config: unknown) => HumanInstance };
  const models = path.join(ROOT, 'models/person');
  const human = new Human({
    backend: 'wasm',
    wasmPath: wasmDir,
    modelBasePath: fileUrl(path.join(humanDist, '../models') + path.sep),
    debug: false,
    // a server sees unrelated photos: no result caching between "similar" inputs, no smoothing
    cacheSensitivity: 0,
    warmup: 'none',
    filter: { enabled: false },
    face: {
      enabled: true,
      detector: { rotation: false, maxDetected: 5, minConfidence: 0.4, return: false },
      mesh: { enabled: true },
      iris: { enabled: false },
      attention: { enabled: false },
      description: { enabled: false },
      emotion: { enabled: false },
      antispoof: { enabled: false },
      liveness: { enabled: false },
    },
    body: { enabled: true, modelPath: fileUrl(path.join(models, 'movenet-thunder.json')), minConfidence: 0.2, maxDetected: 1 },
    segmentation: { enabled: true, modelPath: fileUrl(path.join(models, 'selfie.json')) },
    hand: { enabled: false },
    object: { enabled: false },
    gesture: { enabled: false },
  });
  human.tf.io.registerLoadRouter(fileModelRouter);
  await human.load();
  if (human.tf.getBackend() !== 'wasm') throw new Error(`tfjs backend is ${human.tf.getBackend()}, expected wasm`);
  return human;
}

/** Photos are analysed at most this large (the models work at 256 px; the mask is upsampled). */
const MAX_SIDE = 1024;

/** An integer box-filter downscale so the long side is at most MAX_SIDE; returns RGB int32 and the factor. */
function toModelInput(img: RasterImage): { rgb: Int32Array; width: number; height: number; factor: number } {
  const factor = Math.max(1, Math.ceil(Math.max(img.width, img.height) / MAX_SIDE));
  const w = Math.floor(img.width / factor);
  const h = Math.floor(img.height / factor);
  const rgb = new Int32Array(w * h * 3);
  const n = factor * factor;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let r = 0, g = 0, b = 0;
      for (let dy = 0; dy < factor; dy++) {
        let o = ((y * factor + dy) * img.width + x * factor) * 4;
        for (let dx = 0; dx < factor; dx++, o += 4) {
          r += img.data[o];
          g += img.data[o + 1];
          b += img.data[o + 2];
        }
      }
      const j = (y * w + x) * 3;
      rgb[j] = Math.round(r / n);
      rgb[j + 1] = Math.round(g / n);
      rgb[j + 2] = Math.round(b / n);
    }
  }
  return { rgb, width: w, height: h, factor };
}

/** Bilinear upsampling of the model-size mask to the photo's size. */
function upsampleMask(src: ArrayLike<number>, sw: number, sh: number, stride: number, channel: number, w: number, h: number): Uint8Array {
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const fy = Math.min(sh - 1, Math.max(0, ((y + 0.5) * sh) / h - 0.5));
    const y0 = Math.floor(fy);
    const y1 = Math.min(sh - 1, y0 + 1);
    const ty = fy - y0;
    for (let x = 0; x < w; x++) {
      const fx = Math.min(sw - 1, Math.max(0, ((x + 0.5) * sw) / w - 0.5));
      const x0 = Math.floor(fx);
      const x1 = Math.min(sw - 1, x0 + 1);
      const tx = fx - x0;
      const at = (xx: number, yy: number) => src[(yy * sw + xx) * stride + channel];
      const v = (at(x0, y0) * (1 - tx) + at(x1, y0) * tx) * (1 - ty) + (at(x0, y1) * (1 - tx) + at(x1, y1) * tx) * ty;
      out[y * w + x] = Math.max(0, Math.min(255, Math.round(v)));
    }
  }
  return out;
}

/** One process-wide instance: the models load once, calls run one at a time. */
export class PersonModels {
  #human: Promise<HumanInstance> | null = null;
  #queue: Promise<unknown> = Promise.resolve();

  /** Loads the models (once); rejects with the reason they cannot load. */
  load(): Promise<HumanInstance> {
    this.#human ??= loadHuman();
    return this.#human;
  }

  infer(img: RasterImage): Promise<PersonInference> {
    const run = this.#queue.then(() => this.#infer(img));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #infer(img: RasterImage): Promise<PersonInference> {
    const human = await this.load();
    const input = toModelInput(img);
    const k = input.factor;
    const tensor = human.tf.tensor4d(input.rgb, [1, input.height, input.width, 3], 'int32');
    try {
      const result = await human.detect(tensor);
      if (result.error) throw new Error(`person models: ${result.error}`);
      const seg = await human.segmentation(tensor);
      if (!seg) throw new Error('person models: no segmentation output');
      let mask: Uint8Array;
      try {
        const [sh, sw, channels] = seg.shape;
        // an RGBA tensor whose alpha is the person likelihood
        mask = upsampleMask(await seg.data(), sw, sh, channels ?? 1, (channels ?? 1) - 1, img.width, img.height);
      } finally {
        seg.dispose();
      }
      const keypoints: Keypoint[] = (result.body[0]?.keypoints ?? []).map((p) => ({ name: p.part as KeypointName, x: p.position[0] * k, y: p.position[1] * k, score: p.score }));
      const faces = result.face.map((f) => ({
        x: f.box[0] * k,
        y: f.box[1] * k,
        width: f.box[2] * k,
        height: f.box[3] * k,
        score: f.score,
        outline: (f.annotations?.silhouette ?? []).map((p) => ({ x: p[0] * k, y: p[1] * k })),
      }));
      return { keypoints, mask, faces };
    } finally {
      tensor.dispose();
    }
  }
}

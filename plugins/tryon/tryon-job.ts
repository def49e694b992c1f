/**
 * The try-on job: validate inputs (decode the stashed images under limits), resolve identity (the
 * twin's render, an analysed person photo or an inline twin), build garment grid (one labelled
 * reference for vendors; the direct path sends the product image instead), generate (the model
 * chain, builtin engine last) and store (the result file and its cache entry).
 */
import type { FitroomConfig } from '../../core/config.ts';
import { FitroomError } from '../../core/errors.ts';
import type { FileService } from '../../core/files.ts';
import type { EncodedImage, RasterImage } from '../../core/images.ts';
import type { JobKind, RunningJob } from '../../core/jobs.ts';
import type { ImageCodec } from '../../core/ports/image-codec.ts';
import type { GarmentReference, ImageModelProvider, ModelReference } from '../../core/ports/image-model.ts';
import type { PersonAnalysis, PersonAnalyzer } from '../../core/ports/person-analyzer.ts';
import { checkGarmentPhoto, checkPersonPhoto, type PersonNeeds } from '../../core/tryon/photo-checks.ts';
import type { TwinDirectory } from '../../core/ports/twin-store.ts';
import { twinScope } from '../../core/ports/twin-store.ts';
import { composeGarmentGrid, type GridCell } from '../../core/tryon/garment-grid.ts';
import type { InlineTwins } from '../../core/tryon/inline-twins.ts';
import { runModelChain, type ModelAttempt } from '../../core/tryon/model-chain.ts';
import { clothingPrompt, shoePrompt } from '../../core/tryon/prompts.ts';
import type { GarmentSlot, ProductCategory, SlotImages, TryOnStructuredInput } from '../../core/tryon/tryon-input.ts';
import type { TryOnStore } from '../../core/tryon/tryon-store.ts';
import type { BodyRender } from '../../core/twins/body.ts';
import { restLinks } from '../../core/links.ts';
import { sha256Hex } from '../../core/tryon/cache-key.ts';
import type { StashedImage, TryOnJobInput } from './tryon-service.ts';

/** The garment slot of a single product image (`auto`: the model decides). */
const PRODUCT_SLOT: Record<ProductCategory, string> = { auto: 'auto', top: 'topGarment', bottom: 'bottomGarment', 'full-body': 'fullBodyGarment', shoe: 'shoes' };

/** Decoding limits for request images: pixels checked from the header, then scaled to this side. */
export const IMAGE_LIMITS = { maxPixels: 40_000_000, maxSide: 2048 };

export interface TryOnJobDeps {
  files: FileService;
  codec: ImageCodec;
  config: FitroomConfig;
  store: TryOnStore;
  providers: () => readonly ImageModelProvider[];
  twins: () => TwinDirectory | null;
  inlineTwins: () => InlineTwins | null;
  personAnalyzer: () => PersonAnalyzer | null;
}

/** What the request's garments need to see of the person in the photo. */
function personNeeds(input: TryOnJobInput, slots: GarmentSlot[]): PersonNeeds {
  const category = input.product?.category;
  const has = (slot: GarmentSlot) => slots.includes(slot);
  return {
    torso: has('topGarment') || has('fullBodyGarment') || category === 'top' || category === 'full-body' || category === 'auto',
    legs: has('bottomGarment') || has('fullBodyGarment') || category === 'bottom' || category === 'full-body',
    feet: input.task === 'shoe-tryon' || has('shoes') || category === 'shoe',
  };
}

interface Decoded {
  raster: RasterImage;
  source: EncodedImage;
}

/** Garment photos checked per process: a shop's product is fitted again and again. */
const CHECKED_GARMENTS_MAX = 512;

export function tryOnJobKind(deps: TryOnJobDeps): JobKind<TryOnJobInput> {
  const { files, codec, config } = deps;
  // SHA-256 of garment photos the person models found no person in (a photo of a person is checked
  // every time, so its error is raised every time)
  const checkedGarments = new Set<string>();

  async function load(img: StashedImage): Promise<Decoded> {
    const rec = await files.get(img.fileId);
    const bytes = rec ? await files.read(rec) : null;
    if (!bytes) throw new FitroomError('IMAGE_INVALID', `The image of ${img.field} is no longer available; please resubmit`);
    try {
      return { raster: await codec.decode(bytes, IMAGE_LIMITS), source: { bytes, contentType: img.contentType } };
    } catch (e) {
      throw new FitroomError('IMAGE_INVALID', `Could not decode ${img.field}: ${(e as Error).message}`);
    }
  }

  return {
    name: 'tryon',
    progress: 'stage',
    stages: [
      { name: 'validate inputs', status: 'validating' },
      { name: 'resolve identity', status: 'processing' },
      { name: 'build garment grid', status: 'processing' },
      { name: 'generate', status: 'processing' },
      { name: 'store', status: 'uploading' },
    ],
    maxAttempts: 2,
    estimatedSeconds: 12,
    async run(job: RunningJob<TryOnJobInput>) {
      const input = job.input;
      const { options } = input;
      const ownerHash = job.record.ownerHash;
      // the builtin engine needs a body render; vendors only need the person image
      const builtinMayRun = (options.provider === undefined || options.provider === 'builtin') && (options.model === undefined || options.model === 'builtin-warp');
      // vendors read encoded references (the person, the garment grid); the builtin engine does not
      const vendorsMayRun = options.provider !== 'builtin' && options.model !== 'builtin-warp' && deps.providers().some((p) => p.id !== 'builtin');

      const decoded = await job.stage('validate inputs', async (signal) => {
        const garments: Partial<Record<GarmentSlot, Decoded[]>> = {};
        for (const [slot, list] of Object.entries(input.garments) as [GarmentSlot, StashedImage[]][]) garments[slot] = await Promise.all(list.map(load));
        const shoeViews = await Promise.all(input.shoeViews.map(async (v) => ({ ...(await load(v.image)), angle: v.angle })));
        const product = input.product ? await load(input.product.image) : null;
        const persons = input.identity.kind === 'person' ? await Promise.all(input.identity.images.map(load)) : [];
        job.note({ garments: Object.keys(garments), shoeViews: shoeViews.length, product: !!product, persons: persons.length });
        // photos checked before any model runs: the person (what the garments need to see) and each
        // garment packshot (not a person)
        const analyzer = deps.personAnalyzer();
        let person: PersonAnalysis | null = null;
        if (analyzer) {
          if (persons.length) {
            person = await analyzer.analyze(persons[0].raster, signal);
            job.note({ personAnalysis: { engine: person.engine, faces: person.faces.length, notes: person.notes } });
            checkPersonPhoto(person, 'personImages[0]', personNeeds(input, Object.keys(garments) as GarmentSlot[]));
          }
          for (const [slot, list] of Object.entries(garments) as [GarmentSlot, Decoded[]][]) {
            const sha = sha256Hex(list[0].source.bytes);
            if (checkedGarments.has(sha)) continue;
            checkGarmentPhoto(await analyzer.analyze(list[0].raster, signal), slot);
            if (checkedGarments.size >= CHECKED_GARMENTS_MAX) checkedGarments.delete(checkedGarments.values().next().value!);
            checkedGarments.add(sha);
          }
        }
        return { garments, shoeViews, product, persons, person };
      });

      const identity = await job.stage('resolve identity', async (signal) => {
        const id = input.identity;
        let body: BodyRender | null = null;
        let person: EncodedImage[];
        if (id.kind === 'twin') {
          body = (await deps.twins()?.loadRender(id.twinId, twinScope(job.record))) ?? null;
          if (!body) throw new FitroomError('NOT_FOUND', 'The digital twin has expired or no longer exists; create it again');
          person = vendorsMayRun ? [await codec.encode(body.image, 'png')] : [];
        } else if (id.kind === 'inline') {
          const inline = deps.inlineTwins();
          if (!inline) throw new FitroomError('SERVICE_UNAVAILABLE', 'Inline body sources are not available on this deployment');
          body = await inline.ensure(id.handle, job.record, signal);
          person = vendorsMayRun ? [await codec.encode(body.image, 'png')] : [];
        } else {
          person = decoded.persons.map((p) => p.source);
          if (builtinMayRun && decoded.person) body = decoded.person.body;
        }
        job.note({ identity: id.kind, bodyRender: !!body, pose: body?.pose ?? null });
        return { body, person, twinId: id.kind === 'person' ? null : id.twinId };
      });

      const references = await job.stage('build garment grid', async () => {
        const refs: ModelReference[] = identity.person.map((image) => ({ role: 'person', image }));
        // dedicated try-on models take the garment photos as they are, not the grid
        const garments: GarmentReference[] = [];
        let cells: GridCell[] | null = null;
        if (input.task === 'shoe-tryon') {
          for (const v of decoded.shoeViews) refs.push({ role: 'product', image: v.source });
          const side = decoded.shoeViews.find((v) => v.angle === 'side') ?? decoded.shoeViews[0];
          if (side) garments.push({ slot: 'shoes', image: side.source });
        } else if (decoded.product) {
          refs.splice(1, 0, { role: 'product', image: decoded.product.source });
          garments.push({ slot: PRODUCT_SLOT[input.product!.category as ProductCategory], image: decoded.product.source });
        } else if (!vendorsMayRun) {
          job.note({ grid: 'not built: only the builtin engine can run, and it reads the garments themselves' });
        } else {
          for (const [slot, list] of Object.entries(decoded.garments) as [GarmentSlot, Decoded[]][]) garments.push({ slot, image: list[0].source, ...(list[1] ? { onModel: list[1].source } : {}) });
          const slots: Partial<Record<GarmentSlot, SlotImages>> = {};
          for (const [slot, list] of Object.entries(decoded.garments) as [GarmentSlot, Decoded[]][]) slots[slot] = { packshot: list[0].raster, onModel: list[1]?.raster };
          const grid = composeGarmentGrid(slots);
          cells = grid.cells;
          refs.splice(1, 0, { role: 'garment-grid', image: await codec.encode(grid.image, 'png') });
          job.note({ grid: { width: grid.image.width, height: grid.image.height, cells: grid.cells.map((c) => c.label) } });
        }
        return { refs, cells, garments };
      });

      const generated = await job.stage('generate', async (signal) => {
        const structured: TryOnStructuredInput | undefined = identity.body
          ? {
              body: identity.body,
              garments:
                input.task === 'shoe-tryon'
                  ? { shoes: { packshot: (decoded.shoeViews.find((v) => v.angle === 'side') ?? decoded.shoeViews[0]).raster } }
                  : Object.fromEntries((Object.entries(decoded.garments) as [GarmentSlot, Decoded[]][]).map(([s, l]) => [s, { packshot: l[0].raster, onModel: l[1]?.raster }])),
              product: decoded.product ? { image: decoded.product.raster, category: input.product!.category as ProductCategory } : undefined,
              preserveBackground: options.preserveBackground,
            }
          : undefined;
        const prompt =
          input.task === 'shoe-tryon'
            ? shoePrompt(input.shoeViews.map((v) => v.angle))
            : clothingPrompt(options.promptPreset, references.cells, input.product?.category ?? null, Math.max(0, identity.person.length - 1));
        // every attempt goes to the trace, also when the chain fails (a gated result names its checks)
        const attempts: ModelAttempt[] = [];
        try {
          const result = await runModelChain({
            call: { task: input.task, prompt, references: references.refs, quality: options.quality, signal, structured, garments: references.garments },
            providers: deps.providers(),
            chain: config.ai.modelChain ?? undefined,
            pinnedModel: options.model,
            provider: options.provider,
            onAttempt: (a) => attempts.push(a),
          });
          job.note({ model: result.model, provider: result.provider, attempts });
          return result;
        } catch (err) {
          if (attempts.length) job.note({ attempts });
          throw err;
        }
      });

      return job.stage('store', async () => {
        const image = generated.images[0];
        const file = await files.store(image.bytes, { ownerHash, contentType: image.contentType, ttlSeconds: config.resultTtlSeconds });
        const results = [{ ...files.signedUrl(file, restLinks(config, job.record.baseUrl)), ...(identity.twinId ? { digitalTwinId: identity.twinId } : {}) }];
        if (input.cacheKey && file.expiresAt) {
          await deps.store.putCached({ key: input.cacheKey, ownerHash, fileId: file.id, digitalTwinId: identity.twinId, createdAt: new Date(), expiresAt: file.expiresAt });
        }
        return { result: { imageUrl: results[0].url }, results };
      });
    },
  };
}

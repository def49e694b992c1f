import type { FitroomConfig } from '../../core/config.ts';
import { FitroomError, isFitroomError } from '../../core/errors.ts';
import type { ImageCodec } from '../../core/ports/image-codec.ts';
import type { TwinRenderer } from '../../core/ports/twin-renderer.ts';
import type { InlineTwinRequest, InlineTwins, IdentifiedInlineTwin } from '../../core/tryon/inline-twins.ts';
import type { BodyRender } from '../../core/twins/body.ts';
import type { ClothingSizeLabel } from '../../core/sizing/en13402.ts';
import { resolveTwinRequest } from './twin-request.ts';
import type { TwinService } from './twin-service.ts';
import { twinScope, type TwinOwner } from '../../core/ports/twin-store.ts';
import { loadTwinImages, resolveProfile, twinInputFor, type TwinJobInput } from './twin-job.ts';

const RENDER_TIMEOUT_MS = 120_000;

/**
 * Twins described inline in a virtual-fitting request (face image plus one body source): the same
 * id, cache and rendering as POST /api/v1/digital-twin, so a later request can use the twin id.
 */
export class TwinsInline implements InlineTwins {
  readonly #twins: TwinService;
  readonly #renderer: () => TwinRenderer;
  readonly #codec: ImageCodec;
  readonly #config: FitroomConfig;

  constructor(twins: TwinService, renderer: () => TwinRenderer, codec: ImageCodec, config: FitroomConfig) {
    this.#twins = twins;
    this.#renderer = renderer;
    this.#codec = codec;
    this.#config = config;
  }

  async identify(req: InlineTwinRequest, owner: TwinOwner, signal?: AbortSignal): Promise<IdentifiedInlineTwin> {
    const { ownerHash } = owner;
    const scope = twinScope(owner);
    let resolved;
    try {
      resolved = resolveTwinRequest(
        {
          faceImage: req.faceImage,
          bodyPhotoUrl: req.photoUrl,
          silhouetteImage: req.silhouetteImage,
          bodyMeasurements: req.bodyMeasurements,
          clothingSize: req.clothingSize as { height: number; size: ClothingSizeLabel } | undefined,
          gender: req.gender,
          poseId: req.poseId,
        },
        this.#config.defaultPose,
      );
    } catch (e) {
      // The virtual-fitting request names the photo `photoUrl`.
      if (isFitroomError(e) && e.details) throw new FitroomError(e.code, e.message, { details: e.details.map((d) => ({ ...d, field: d.field === 'bodyPhotoUrl' ? 'photoUrl' : d.field, message: d.message.replace('bodyPhotoUrl', 'photoUrl') })) });
      throw e;
    }
    const identified = await this.#twins.identify(resolved, scope, signal);
    if (await this.#twins.find(identified.id, scope)) return { digitalTwinId: identified.id, cached: true, handle: { twinId: identified.id } };
    const s = resolved.source;
    const handle: TwinJobInput = {
      twinId: identified.id,
      mode: resolved.mode,
      gender: resolved.gender,
      pose: resolved.pose,
      faceFileId: await this.#twins.stashInput(identified.face, ownerHash),
      bodyFileId: identified.body ? await this.#twins.stashInput(identified.body, ownerHash) : null,
      ...(s.mode === 'measurements' ? { measurements: s.measurements } : {}),
      ...(s.mode === 'clothing_size' ? { clothingSize: s.clothingSize } : {}),
    };
    return { digitalTwinId: identified.id, cached: false, handle };
  }

  async ensure(handle: unknown, owner: TwinOwner, signal: AbortSignal): Promise<BodyRender> {
    const input = handle as TwinJobInput;
    const scope = twinScope(owner);
    const existing = await this.#twins.loadRender(input.twinId, scope);
    if (existing) return existing;
    if (!input.faceFileId) throw new FitroomError('NOT_FOUND', 'The digital twin has expired; resubmit the face image and body source');
    const images = await loadTwinImages(this.#twins, this.#codec, input);
    const profile = resolveProfile(input);
    const render = await this.#renderer().render(twinInputFor(input, images, profile), { signal: AbortSignal.any([signal, AbortSignal.timeout(RENDER_TIMEOUT_MS)]) });
    await this.#twins.save({ id: input.twinId, mode: input.mode, pose: input.pose, gender: input.gender, profile, ownerHash: owner.ownerHash, scope }, render);
    for (const id of [input.faceFileId, input.bodyFileId]) if (id) await this.#twins.deleteFile(id).catch(() => undefined);
    return render;
  }
}

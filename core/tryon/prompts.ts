/**
 * Prompt presets for vendor image models, in one place. `clothing-1` is the spec's default preset
 * for clothing try-on; the others are the fixed instructions of the remaining tasks. The builtin
 * engine ignores prompts (it gets structured inputs).
 */
import type { GridCell } from './garment-grid.ts';

export type PromptPreset = 'clothing-1';
export const PROMPT_PRESETS: readonly PromptPreset[] = ['clothing-1'];

/** Clothing try-on: image 1 is the person, image 2 the garment grid (or a single product image). */
export function clothingPrompt(preset: PromptPreset, cells: readonly GridCell[] | null, productCategory: string | null, extraPersonImages: number): string {
  const garments = cells
    ? cells.map((c) => `grid panel ${c.index} (${c.label.toLowerCase()})`).join(', ')
    : `the product in the second image (${productCategory && productCategory !== 'auto' ? productCategory : 'decide whether it is a top, bottom, full-body garment or shoes'})`;
  const extra = extraPersonImages > 0 ? ` The last ${extraPersonImages} image${extraPersonImages > 1 ? 's show' : ' shows'} the same person from other angles; use them only for identity.` : '';
  switch (preset) {
    case 'clothing-1':
      return [
        'Virtual try-on. The first image is the person. Dress this exact person in the garments shown in',
        `${cells ? 'the second image, a labelled grid of product photos' : 'the second image'}: ${garments}.`,
        'Packshot panels show the garment itself; on-model panels only show how it is worn.',
        'Keep the face, skin tone, hair, body shape, pose, framing and lighting of the person unchanged.',
        'Reproduce each garment faithfully: colour, pattern, print, logos, texture and length; do not invent details.',
        'Garments not shown stay as they are. Output one photorealistic image of the full person.' + extra,
      ].join(' ');
  }
}

export function shoePrompt(angles: (string | undefined)[]): string {
  const views = angles.map((a, i) => `image ${i + 2}${a ? ` (${a} view)` : ''}`).join(', ');
  return `Virtual shoe try-on. The first image is the person. Put the shoes shown in ${views} on the person's feet, correct size and orientation for each foot. Keep the person, the clothes, the pose and the background unchanged. Reproduce the shoes faithfully: colour, materials, sole and logos. Output one photorealistic image.`;
}

export function generatePrompt(prompt: string, inputImages: number): string {
  return inputImages > 0 ? `${prompt}\n\nUse the ${inputImages} attached image${inputImages > 1 ? 's' : ''} as reference.` : prompt;
}

export function poseTransferPrompt(target: { poseImage: boolean; poseId?: string }): string {
  const pose = target.poseImage ? 'the pose of the person in the second image' : `the pose "${target.poseId?.replace(/_/g, ' ')}"`;
  return `Pose transfer. Re-pose the person in the first image into ${pose}. Keep their identity, face, hair, body shape, clothes and colours exactly; only the pose and the limbs' positions change. Plain studio background, full body visible. Output one photorealistic image.`;
}

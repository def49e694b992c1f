/**
 * The texture painter's pixel and text work, run on a CPU pool thread (a 2048² texture is 4 M pixels,
 * and its answer a 9 MB data URL: tens of milliseconds each on the HTTP event loop).
 */

export interface MaskInput {
  rgba: Uint8Array;
  width: number;
  height: number;
}

/** White opaque pixels of the mask image (white strokes on black or on transparency) are painted. */
export function paintedMask(input: MaskInput): { mask: Uint8Array; painted: number } {
  const n = input.width * input.height, d = input.rgba;
  const mask = new Uint8Array(n);
  let painted = 0;
  for (let i = 0; i < n; i++) {
    const o = i * 4;
    if (d[o + 3] >= 128 && d[o] * 0.299 + d[o + 1] * 0.587 + d[o + 2] * 0.114 >= 128) {
      mask[i] = 1;
      painted++;
    }
  }
  return { mask, painted };
}

/** The vendor's picture inside the painted region only, over the texture. */
export function composite(input: { texture: Uint8Array; vendor: Uint8Array; mask: Uint8Array }): { rgba: Uint8Array } {
  const out = Uint8Array.from(input.texture);
  for (let i = 0; i < input.mask.length; i++) if (input.mask[i]) for (let c = 0; c < 3; c++) out[i * 4 + c] = input.vendor[i * 4 + c];
  return { rgba: out };
}

/** The 200 answer as UTF-8 JSON bytes, the PNG as a data URL, without a JSON.stringify of 9 MB on the loop. */
export function answer(input: { png: Uint8Array; fields: Record<string, unknown> }): { json: Uint8Array } {
  const b64 = Buffer.from(input.png.buffer, input.png.byteOffset, input.png.byteLength).toString('base64');
  const rest = JSON.stringify(input.fields).slice(1); // the fields' members and the closing brace
  const text = `{"success":true,"texture":"data:image/png;base64,${b64}"${rest === '}' ? '' : ','}${rest}`;
  return { json: Buffer.from(text, 'utf8') };
}

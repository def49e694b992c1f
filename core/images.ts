/**
 * Raster images as the domain sees them: straight (non-premultiplied) RGBA, 8 bits per channel,
 * row-major, no padding. Decoding and encoding live behind the ImageCodec port.
 */
export interface RasterImage {
  width: number;
  height: number;
  /** width * height * 4 bytes, RGBA. */
  data: Uint8Array;
}

/** Encoded image bytes with their media type, as stored or sent to a model. */
export interface EncodedImage {
  bytes: Uint8Array;
  /** e.g. image/png, image/jpeg, image/webp */
  contentType: string;
}

export function createRaster(width: number, height: number, fill: [number, number, number, number] = [0, 0, 0, 0]): RasterImage {
  const data = new Uint8Array(width * height * 4);
  if (fill.some((v) => v !== 0)) {
    for (let i = 0; i < data.length; i += 4) {
      data[i] = fill[0];
      data[i + 1] = fill[1];
      data[i + 2] = fill[2];
      data[i + 3] = fill[3];
    }
  }
  return { width, height, data };
}

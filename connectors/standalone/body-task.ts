import { randomUUID } from 'node:crypto';
import { INLINE_REF_MARK } from '../../core/inline-data.ts';

type Parsed = { ok: true; value: unknown; inline?: DecodedDataUrl[] } | { ok: false };

/** A data URL of the body decoded on the pool thread: its bytes and the reference its stand-in names. */
export interface DecodedDataUrl {
  ref: string;
  bytes: Uint8Array;
  contentType: string;
}

/** Data URLs longer than this are decoded here when the operation takes them as bytes. */
const INLINE_DATA_CHARS = 256 * 1024;
const DATA_URL = /^data:([a-z0-9.+/-]+)(?:;[a-z0-9=-]+)*;base64,/i;

/** Runs on a CPU pool thread: JSON.parse of a large request body (tens of milliseconds per 10 MB). */
export function parseJson(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The same from UTF-8 bytes (shared memory the event loop filled as the body arrived), strict: an object or an array at the top. */
export function parseJsonBytes(bytes: Uint8Array): Parsed {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return { ok: false };
  }
  const first = text.slice(0, 64).trimStart()[0];
  if (first !== '{' && first !== '[') return { ok: false };
  return parseJson(text);
}

/**
 * parseJsonBytes, and then every large base64 data URL in the value is decoded here into bytes and
 * replaced by its stand-in (see core/inline-data.ts): the event loop never holds the megabytes of
 * text nor decodes them. A string with a NUL stays as it is, for the pipeline to refuse.
 */
export function parseJsonBytesDecodingData(bytes: Uint8Array): Parsed {
  const parsed = parseJsonBytes(bytes);
  if (!parsed.ok) return parsed;
  const inline: DecodedDataUrl[] = [];
  const stack: unknown[] = [parsed.value];
  while (stack.length) {
    const v = stack.pop();
    if (!v || typeof v !== 'object') continue;
    const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    for (const [k, x] of entries) {
      if (typeof x !== 'string') {
        if (x && typeof x === 'object') stack.push(x);
        continue;
      }
      if (x.length <= INLINE_DATA_CHARS) continue;
      const m = DATA_URL.exec(x.slice(0, 256));
      if (!m || x.includes('\u0000')) continue;
      const ref = randomUUID().replaceAll('-', '');
      const decoded = Buffer.from(x.slice(m[0].length), 'base64');
      // a buffer of its own, so that it moves to the event loop instead of being copied
      const own = decoded.byteOffset === 0 && decoded.byteLength === decoded.buffer.byteLength ? new Uint8Array(decoded.buffer) : new Uint8Array(decoded);
      inline.push({ ref, bytes: own, contentType: m[1].toLowerCase() });
      (v as Record<string | number, unknown>)[k] = `${m[0]}${INLINE_REF_MARK}${ref}`;
    }
  }
  return inline.length ? { ok: true, value: parsed.value, inline } : parsed;
}

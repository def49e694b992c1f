import { isUtf8 } from 'node:buffer';
import { createHash, randomUUID } from 'node:crypto';
import { INLINE_REF_MARK } from '../../core/inline-data.ts';

type Parsed = { ok: true; value: unknown; inline?: DecodedDataUrl[] } | { ok: false };

/**
 * A large data URL of the body, as the pool thread hands it over: the reference its stand-in names,
 * its type, decoded size and SHA-256, and either its bytes or where its base64 text lies in the
 * body's bytes (decoded only when needed, by `decodeBase64Text`: a cache hit never needs them).
 */
export interface DecodedDataUrl {
  ref: string;
  contentType: string;
  size: number;
  /** Lowercase hex SHA-256 of the decoded bytes, so the event loop never hashes them. */
  sha256: string;
  bytes?: Uint8Array;
  at?: { offset: number; length: number };
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
  return parseStrictText(text);
}

function parseStrictText(text: string): Parsed {
  const first = text.slice(0, 64).trimStart()[0];
  if (first !== '{' && first !== '[') return { ok: false };
  return parseJson(text);
}

function decoded(bytes: Uint8Array, contentType: string): DecodedDataUrl {
  return { ref: newRef(), bytes, size: bytes.length, contentType: contentType.toLowerCase(), sha256: createHash('sha256').update(bytes).digest('hex') };
}

const newRef = () => randomUUID().replaceAll('-', '');

/**
 * parseJsonBytes, and then every large base64 data URL in the value is decoded here into bytes and
 * replaced by its stand-in (see core/inline-data.ts): the event loop never holds the megabytes of
 * text nor decodes them. A string with a NUL stays as it is, for the pipeline to refuse.
 *
 * Most such strings are cut out of the raw bytes before parsing (`cutDataUrls`): on this kind of
 * machine touching fresh memory costs about 4 ms per MB, and decoding the body to text and parsing
 * the megabyte strings out of it made two more copies of them than the decoded images need. What
 * that pass leaves (a data URL written with JSON escapes, say) is decoded from the parsed value as
 * before, so the outcome is the same either way.
 */
export function parseJsonBytesDecodingData(bytes: Uint8Array): Parsed {
  const cut = cutDataUrls(bytes);
  if (!cut) return { ok: false };
  const parsed = parseStrictText(cut.text);
  if (!parsed.ok) return parsed;
  const inline = cut.inline;
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
      const buf = Buffer.from(x.slice(m[0].length), 'base64');
      // a buffer of its own, so that it moves to the event loop instead of being copied
      const own = buf.byteOffset === 0 && buf.byteLength === buf.buffer.byteLength ? new Uint8Array(buf.buffer) : new Uint8Array(buf);
      const d = decoded(own, m[1]);
      inline.push(d);
      (v as Record<string | number, unknown>)[k] = `${m[0]}${INLINE_REF_MARK}${d.ref}`;
    }
  }
  return inline.length ? { ok: true, value: parsed.value, inline } : parsed;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Base64 letter -> its 6 bits; -1 for every other byte ('=' included: padding is handled apart). */
const SEXTET = new Int8Array(256).fill(-1);
for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].entries()) SEXTET[c.charCodeAt(0)] = i;

/**
 * The body's text with each long JSON string value that is a plain base64 data URL (standard
 * letters, `=` padding at the end only, no escapes) replaced by its stand-in, and those data URLs
 * decoded straight from the bytes; null when the bytes are not UTF-8. Strings are found by jumping
 * from quote to quote (a quote inside a string is escaped, and none stands outside one in JSON);
 * a string followed by `:` is a key and stays. The replaced contents hold no quote, backslash or
 * control byte, nor does their stand-in, so the text parses (or fails) as the body would have.
 */
function cutDataUrls(bytes: Uint8Array): { text: string; inline: DecodedDataUrl[] } | null {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // validated once (no copy): the pieces below are then decoded without replacement characters
  if (!isUtf8(buf)) return null;
  const pieces: string[] = [];
  const inline: DecodedDataUrl[] = [];
  let from = 0;
  let at = buf.indexOf(QUOTE);
  while (at >= 0) {
    // `at` opens a string: find its closing quote (one not escaped by an odd run of backslashes)
    let end = buf.indexOf(QUOTE, at + 1);
    while (end > 0) {
      let n = 0;
      while (buf[end - 1 - n] === BACKSLASH) n++;
      if (n % 2 === 0) break;
      end = buf.indexOf(QUOTE, end + 1);
    }
    if (end < 0) break; // unterminated: the parser says so
    if (end - at - 1 > INLINE_DATA_CHARS && !isKey(buf, end + 1)) {
      const prefix = DATA_URL.exec(buf.toString('latin1', at + 1, at + 257));
      const payload = prefix ? hashBase64(buf, at + 1 + prefix[0].length, end) : null;
      if (prefix && payload) {
        const d: DecodedDataUrl = { ref: newRef(), contentType: prefix[1].toLowerCase(), ...payload };
        inline.push(d);
        pieces.push(buf.toString('utf8', from, at + 1), `${prefix[0]}${INLINE_REF_MARK}${d.ref}`);
        from = end;
      }
    }
    at = buf.indexOf(QUOTE, end + 1);
  }
  pieces.push(buf.toString('utf8', from));
  // a byte order mark is dropped, as TextDecoder does
  if (pieces[0].charCodeAt(0) === 0xfeff) pieces[0] = pieces[0].slice(1);
  return { text: pieces.length === 1 ? pieces[0] : pieces.join(''), inline };
}

/** After a closing quote: whether a `:` follows (the string was a key). */
function isKey(buf: Buffer, i: number): boolean {
  while (i < buf.length && (buf[i] === 0x20 || buf[i] === 0x09 || buf[i] === 0x0a || buf[i] === 0x0d)) i++;
  return buf[i] === 0x3a;
}

/** The end of plain base64 in buf[from, to) without its padding; -1 when the padding or the length cannot be plain base64. */
function unpadded(buf: Uint8Array, from: number, to: number): number {
  let end = to;
  if (buf[end - 1] === 0x3d) end--;
  if (buf[end - 1] === 0x3d) end--;
  if (end < to && (to - from) % 4 !== 0) return -1; // padded, but not to a multiple of 4
  return (end - from) % 4 === 1 ? -1 : end;
}

/** Decodes base64 letters buf[from, end) (no padding) into out at 0; false at a byte that is no base64 letter. */
function decodeInto(buf: Uint8Array, from: number, end: number, out: Uint8Array): boolean {
  let o = 0;
  let i = from;
  for (const whole = end - ((end - from) % 4); i < whole; i += 4) {
    const a = SEXTET[buf[i]], b = SEXTET[buf[i + 1]], c = SEXTET[buf[i + 2]], d = SEXTET[buf[i + 3]];
    if ((a | b | c | d) < 0) return false;
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = n >> 16;
    out[o++] = (n >> 8) & 0xff;
    out[o++] = n & 0xff;
  }
  const rest = end - i;
  if (rest > 0) {
    const a = SEXTET[buf[i]], b = SEXTET[buf[i + 1]], c = rest === 3 ? SEXTET[buf[i + 2]] : 0;
    if ((a | b | c) < 0) return false;
    out[o] = (a << 2) | (b >> 4);
    if (rest === 3) out[o + 1] = ((b & 0xf) << 4) | (c >> 2);
  }
  return true;
}

/** Decoded in slices of this many letters into one small buffer, only to hash them. */
const HASH_SLICE = 64 * 1024;
const hashScratch = new Uint8Array((HASH_SLICE / 4) * 3);

/**
 * Standard base64 in buf[from, to): its decoded size and SHA-256, and where it lies; null for
 * anything else (other letters, escapes, misplaced padding, a length that is no whole number of
 * bytes), which is left to the parser and Buffer's lenient decoding. Nothing of its size is
 * allocated: it is decoded slice by slice into a small buffer that is hashed and reused.
 */
function hashBase64(buf: Uint8Array, from: number, to: number): { size: number; sha256: string; at: { offset: number; length: number } } | null {
  const end = unpadded(buf, from, to);
  if (end < 0) return null;
  const hash = createHash('sha256');
  for (let i = from; i < end; i += HASH_SLICE) {
    const stop = Math.min(end, i + HASH_SLICE);
    if (!decodeInto(buf, i, stop, hashScratch)) return null;
    hash.update(hashScratch.subarray(0, decodedLength(stop - i)));
  }
  return { size: decodedLength(end - from), sha256: hash.digest('hex'), at: { offset: from, length: to - from } };
}

const decodedLength = (letters: number) => Math.floor((letters * 3) / 4);

/**
 * Runs on a CPU pool thread: the bytes of data URLs whose base64 text `hashBase64` accepted (each
 * payload, padding included, as the body's shared memory holds it), each in a buffer of its own that
 * moves to the event loop.
 */
export function decodeBase64Texts(texts: Uint8Array[]): Uint8Array[] {
  return texts.map(decodeBase64Text);
}

function decodeBase64Text(text: Uint8Array): Uint8Array {
  const end = unpadded(text, 0, text.length);
  if (end < 0) throw new Error('not the base64 text the body parser accepted');
  const out = new Uint8Array(decodedLength(end));
  if (!decodeInto(text, 0, end, out)) throw new Error('not the base64 text the body parser accepted');
  return out;
}

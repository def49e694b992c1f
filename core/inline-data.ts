/**
 * Large data URLs of a JSON body, handled off the event loop (on the CPU pool thread that parsed the
 * body) and held here while the request runs. The parsed body carries a short stand-in in their
 * place: the original `data:<type>;base64,` prefix and an unguessable reference (base64 letters, so
 * the image schemas' patterns hold for it). Only code that turns a data URL into bytes reads it back
 * (the outbound fetcher, and code that needs only the hash, such as the try-on result cache); the
 * reference is released when the answer is written, so a stand-in that outlived its request
 * resolves to nothing, and none is ever stored in place of the image.
 *
 * The thread hashes each one and knows its size; the bytes themselves are either decoded already
 * (`bytes`) or decoded on first use (`load`, again on a pool thread): a request answered from the
 * hash alone (a cache hit) never makes them.
 */
export interface InlineData {
  contentType: string;
  /** Decoded length in bytes. */
  size: number;
  /** Lowercase hex SHA-256 of the bytes. */
  sha256: string;
  /** The bytes, once decoded. */
  bytes?: Uint8Array;
  /** Decodes the bytes (called at most once, and only while the request holds them). */
  load?: () => Promise<Uint8Array>;
}

/** What a stand-in's payload starts with (then 32 hex digits). */
export const INLINE_REF_MARK = 'FRinlineRef';
const STAND_IN = new RegExp(`^data:([a-z0-9.+/-]+)(?:;[a-z0-9=-]+)*;base64,${INLINE_REF_MARK}([0-9a-f]{32})$`, 'i');

interface Held {
  data: InlineData;
  group: Group;
  loading?: Promise<Uint8Array>;
}

/** The data URLs of one request: released together; `free` runs once they are released and no decoding is under way. */
interface Group {
  released: boolean;
  loading: number;
  free?: () => void;
}

const held = new Map<string, Held>();

/**
 * Holds a request's data URLs under their references; the returned function releases them. `free`
 * (if given) runs once they are released and no `load` is still reading: the memory they are
 * decoded from may then be reused.
 */
export function holdInlineData(items: ({ ref: string } & InlineData)[], free?: () => void): () => void {
  const group: Group = { released: false, loading: 0, free };
  for (const { ref, ...data } of items) held.set(ref, { data, group });
  return () => {
    if (group.released) return;
    group.released = true;
    for (const i of items) held.delete(i.ref);
    if (group.loading === 0) group.free?.();
  };
}

/** Whether `url` is a stand-in (resolved or not: one that outlived its request is refused, never decoded as base64). */
export function isInlineStandIn(url: string): boolean {
  return url.length < 200 && STAND_IN.test(url);
}

function entry(url: string): Held | undefined {
  if (url.length >= 200) return undefined;
  const m = STAND_IN.exec(url);
  return m ? held.get(m[2].toLowerCase()) : undefined;
}

/** What a stand-in refers to (its bytes only if decoded already), or undefined (not a stand-in, or released). */
export function inlineData(url: string): InlineData | undefined {
  return entry(url)?.data;
}

/** The bytes a stand-in refers to, decoded now if they were not; undefined when it is not a held stand-in. */
export async function inlineBytes(url: string): Promise<Uint8Array | undefined> {
  const h = entry(url);
  if (!h) return undefined;
  if (h.data.bytes) return h.data.bytes;
  if (!h.loading) {
    const g = h.group;
    g.loading++;
    h.loading = h.data.load!().then(
      (bytes) => {
        h.data.bytes = bytes;
        return bytes;
      },
    ).finally(() => {
      g.loading--;
      if (g.released && g.loading === 0) g.free?.();
    });
  }
  return h.loading;
}

/** Decodes the held stand-ins among `urls` that are not yet, so that synchronous readers find `inlineData(url).bytes`. */
export async function loadInlineData(urls: readonly (string | undefined)[]): Promise<void> {
  await Promise.all(urls.map((u) => (u ? inlineBytes(u) : undefined)));
}

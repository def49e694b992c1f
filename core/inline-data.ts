/**
 * Large data URLs of a JSON body, decoded off the event loop (on the CPU pool thread that parsed the
 * body) and held here as bytes while the request runs. The parsed body carries a short stand-in in
 * their place: the original `data:<type>;base64,` prefix and an unguessable reference (base64 letters,
 * so the image schemas' patterns hold for it). Only code that turns a data URL into bytes reads it
 * back (the outbound fetcher); the reference is released when the answer is written, so a stand-in
 * that outlived its request resolves to nothing, and none is ever stored in place of the image.
 */
export interface InlineData {
  bytes: Uint8Array;
  contentType: string;
  /** Lowercase hex SHA-256 of the bytes, computed where they were decoded. */
  sha256?: string;
}

/** What a stand-in's payload starts with (then 32 hex digits). */
export const INLINE_REF_MARK = 'FRinlineRef';
const STAND_IN = new RegExp(`^data:([a-z0-9.+/-]+)(?:;[a-z0-9=-]+)*;base64,${INLINE_REF_MARK}([0-9a-f]{32})$`, 'i');

const held = new Map<string, InlineData>();

/** Holds decoded bytes under their references; the returned function releases them. */
export function holdInlineData(items: ({ ref: string } & InlineData)[]): () => void {
  for (const i of items) held.set(i.ref, { bytes: i.bytes, contentType: i.contentType, sha256: i.sha256 });
  return () => {
    for (const i of items) held.delete(i.ref);
  };
}

/** Whether `url` is a stand-in (resolved or not: one that outlived its request is refused, never decoded as base64). */
export function isInlineStandIn(url: string): boolean {
  return url.length < 200 && STAND_IN.test(url);
}

/** The bytes a stand-in refers to, or undefined (not a stand-in, or released). */
export function inlineData(url: string): InlineData | undefined {
  if (url.length >= 200) return undefined;
  const m = STAND_IN.exec(url);
  return m ? held.get(m[2].toLowerCase()) : undefined;
}

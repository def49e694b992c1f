/** Runs on a CPU pool thread: JSON.parse of a large request body (tens of milliseconds per 10 MB). */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The same from UTF-8 bytes (shared memory the event loop filled as the body arrived), strict: an object or an array at the top. */
export function parseJsonBytes(bytes: Uint8Array): { ok: true; value: unknown } | { ok: false } {
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

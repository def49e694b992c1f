/** Runs on a CPU pool thread: JSON.parse of a large request body (tens of milliseconds per 10 MB). */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

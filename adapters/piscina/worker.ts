import { Piscina } from 'piscina';

/**
 * The module every pool thread loads: imports the task's module (once per thread), runs the named
 * function and moves the typed arrays of its answer back instead of copying them.
 */
export default async function dispatch(call: { module: string; name: string; input: unknown } | { preload: string[] }): Promise<unknown> {
  if ('preload' in call) {
    await Promise.all(call.preload.map((m) => import(m)));
    return null;
  }
  const mod = (await import(call.module)) as Record<string, unknown>;
  const fn = mod[call.name];
  if (typeof fn !== 'function') throw new Error(`${call.module} exports no function ${call.name}`);
  const value = await (fn as (input: unknown) => unknown)(call.input);
  const buffers = transferables(value, 3, new Set());
  return buffers.length ? Piscina.move({ [Piscina.transferableSymbol]: buffers, [Piscina.valueSymbol]: value } as unknown as Parameters<typeof Piscina.move>[0]) : value;
}

/** ArrayBuffers that typed arrays in `v` own entirely (a shared or partly viewed buffer is copied). */
export function transferables(v: unknown, depth: number, seen: Set<ArrayBuffer>): ArrayBuffer[] {
  if (ArrayBuffer.isView(v)) {
    const b = v.buffer;
    if (b instanceof ArrayBuffer && v.byteOffset === 0 && v.byteLength === b.byteLength && !seen.has(b)) seen.add(b);
  } else if (depth > 0 && v && typeof v === 'object') {
    for (const x of Array.isArray(v) ? v : Object.values(v)) transferables(x, depth - 1, seen);
  }
  return [...seen];
}

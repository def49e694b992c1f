/**
 * Large data URLs of a JSON body decoded on the pool thread (connectors/standalone/body-task.ts):
 * the value carries stand-ins that only the outbound fetcher resolves, to the very bytes the data URL
 * held, and only while the request holds them.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseJsonBytesDecodingData } from '../../../connectors/standalone/body-task.ts';
import { holdInlineData, inlineData } from '../../../core/inline-data.ts';
import { IMAGE_STRING } from '../../../core/schemas.ts';
import { SafeHttp } from '../../../adapters/http/safe-http.ts';
import { OutboundError } from '../../../core/ports/outbound-http.ts';

const http = new SafeHttp({ allowedPrivateNetworks: [], maxBytes: 1024 * 1024, timeoutMs: 1000, maxRedirects: 0 });
const utf8 = (v: unknown) => new Uint8Array(Buffer.from(JSON.stringify(v)));

describe('data URLs decoded off the event loop', () => {
  it('replaces each large data URL by a stand-in and hands over its exact bytes; small ones and other strings stay', async () => {
    const big = randomBytes(400_000);
    const other = randomBytes(300_000);
    const small = `data:image/png;base64,${randomBytes(100).toString('base64')}`;
    const text = 'x'.repeat(300_000);
    const body = { personImages: [`data:image/png;base64,${big.toString('base64')}`], topGarment: small, nested: { a: [`data:image/webp;base64,${other.toString('base64')}`] }, note: text };
    const r = parseJsonBytesDecodingData(utf8(body));
    if (!r.ok) throw new Error('not parsed');
    const v = r.value as typeof body;
    expect(r.inline).toHaveLength(2);
    expect(v.topGarment).toBe(small);
    expect(v.note).toBe(text);
    expect(v.personImages[0].length).toBeLessThan(100);
    expect(v.personImages[0]).toMatch(new RegExp(IMAGE_STRING.pattern as string));
    expect(v.nested.a[0].startsWith('data:image/webp;base64,')).toBe(true);

    const release = holdInlineData(r.inline!);
    const fetched = await http.fetch(v.personImages[0], { accept: ['image/'] });
    expect(Buffer.from(fetched.bytes).equals(big)).toBe(true);
    expect(fetched.contentType).toBe('image/png');
    expect(Buffer.from((await http.fetch(v.nested.a[0])).bytes).equals(other)).toBe(true);
    // the fetch's limits apply to the held bytes as to a decoded data URL
    await expect(http.fetch(v.personImages[0], { maxBytes: 1000 })).rejects.toMatchObject({ reason: 'too_large' });
    await expect(http.fetch(v.personImages[0], { accept: ['model/'] })).rejects.toMatchObject({ reason: 'unsupported_type' });
    release();
    // after the request: refused, never decoded as the base64 it looks like
    expect(inlineData(v.personImages[0])).toBeUndefined();
    await expect(http.fetch(v.personImages[0])).rejects.toBeInstanceOf(OutboundError);
  });

  it('leaves a data URL with a NUL for the pipeline to refuse, and refuses bytes that are not JSON', () => {
    const withNul = `data:image/png;base64,${'A'.repeat(300_000)}\u0000`;
    const r = parseJsonBytesDecodingData(utf8({ image: withNul }));
    expect(r.ok && (r.value as { image: string }).image).toBe(withNul);
    expect(r.ok && r.inline).toBeUndefined();
    expect(parseJsonBytesDecodingData(new Uint8Array(Buffer.from('"just a string"'))).ok).toBe(false);
  });

  it('a client cannot reach another request\'s bytes with a stand-in it makes up', async () => {
    const release = holdInlineData([{ ref: 'a'.repeat(32), bytes: new Uint8Array([1, 2, 3]), contentType: 'image/png' }]);
    await expect(http.fetch(`data:image/png;base64,FRinlineRef${'b'.repeat(32)}`)).rejects.toMatchObject({ reason: 'invalid_url' });
    release();
  });
});

/**
 * Large data URLs of a JSON body handled on the pool thread (connectors/standalone/body-task.ts):
 * the value carries stand-ins that only the outbound fetcher resolves, to the very bytes the data URL
 * held, and only while the request holds them; the thread hashes them, and those cut out of the raw
 * bytes are decoded only when first needed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeBase64Texts, parseJsonBytesDecodingData, type DecodedDataUrl } from '../../../connectors/standalone/body-task.ts';
import { holdInlineData, inlineBytes, inlineData } from '../../../core/inline-data.ts';
import { IMAGE_STRING } from '../../../core/schemas.ts';
import { SafeHttp } from '../../../adapters/http/safe-http.ts';
import { OutboundError } from '../../../core/ports/outbound-http.ts';

const http = new SafeHttp({ allowedPrivateNetworks: [], maxBytes: 1024 * 1024, timeoutMs: 1000, maxRedirects: 0 });
const utf8 = (v: unknown) => new Uint8Array(Buffer.from(JSON.stringify(v)));
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** What the connector does with the thread's answer (there the decoding runs on the pool): each held, decoded when first needed. */
function hold(body: Uint8Array, inline: DecodedDataUrl[], free?: () => void) {
  let decodes = 0;
  const items = inline.map(({ at, ...i }) => (at ? { ...i, load: async () => (decodes++, decodeBase64Texts([body.subarray(at.offset, at.offset + at.length)])[0]) } : i));
  return { release: holdInlineData(items, free), decodes: () => decodes };
}

describe('data URLs decoded off the event loop', () => {
  it('replaces each large data URL by a stand-in and hands over its exact bytes; small ones and other strings stay', async () => {
    const big = randomBytes(400_000);
    const other = randomBytes(300_000);
    const small = `data:image/png;base64,${randomBytes(100).toString('base64')}`;
    const text = 'x'.repeat(300_000);
    const body = { personImages: [`data:image/png;base64,${big.toString('base64')}`], topGarment: small, nested: { a: [`data:image/webp;base64,${other.toString('base64')}`] }, note: text };
    const raw = utf8(body);
    const r = parseJsonBytesDecodingData(raw);
    if (!r.ok) throw new Error('not parsed');
    const v = r.value as typeof body;
    expect(r.inline).toHaveLength(2);
    // hashed and measured on the thread; cut out of the raw bytes, not decoded yet
    expect(r.inline!.map((i) => [i.sha256, i.size, i.bytes])).toEqual([[sha(big), big.length, undefined], [sha(other), other.length, undefined]]);
    expect(v.topGarment).toBe(small);
    expect(v.note).toBe(text);
    expect(v.personImages[0].length).toBeLessThan(100);
    expect(v.personImages[0]).toMatch(new RegExp(IMAGE_STRING.pattern as string));
    expect(v.nested.a[0].startsWith('data:image/webp;base64,')).toBe(true);

    let freed = 0;
    const { release, decodes } = hold(raw, r.inline!, () => freed++);
    expect(inlineData(v.personImages[0])).toMatchObject({ sha256: sha(big), size: big.length, contentType: 'image/png' });
    const fetched = await http.fetch(v.personImages[0], { accept: ['image/'] });
    expect(Buffer.from(fetched.bytes).equals(big)).toBe(true);
    expect(fetched.contentType).toBe('image/png');
    expect(fetched.sha256).toBe(sha(big));
    // decoded once however often it is fetched
    await http.fetch(v.personImages[0]);
    expect(decodes()).toBe(1);
    expect(Buffer.from((await http.fetch(v.nested.a[0])).bytes).equals(other)).toBe(true);
    // the fetch's limits apply to the held bytes as to a decoded data URL
    await expect(http.fetch(v.personImages[0], { maxBytes: 1000 })).rejects.toMatchObject({ reason: 'too_large' });
    await expect(http.fetch(v.personImages[0], { accept: ['model/'] })).rejects.toMatchObject({ reason: 'unsupported_type' });
    release();
    expect(freed).toBe(1);
    // after the request: refused, never decoded as the base64 it looks like
    expect(inlineData(v.personImages[0])).toBeUndefined();
    expect(await inlineBytes(v.personImages[0])).toBeUndefined();
    await expect(http.fetch(v.personImages[0])).rejects.toBeInstanceOf(OutboundError);
  });

  it('leaves a data URL with a NUL for the pipeline to refuse, and refuses bytes that are not JSON', () => {
    const withNul = `data:image/png;base64,${'A'.repeat(300_000)}\u0000`;
    const r = parseJsonBytesDecodingData(utf8({ image: withNul }));
    expect(r.ok && (r.value as { image: string }).image).toBe(withNul);
    expect(r.ok && r.inline).toBeUndefined();
    expect(parseJsonBytesDecodingData(new Uint8Array(Buffer.from('"just a string"'))).ok).toBe(false);
  });

  it('cuts data URLs out of the raw bytes exactly as parsing would find them: escapes, keys, padding, a byte order mark', async () => {
    const imgs = [400_000, 400_001, 400_002].map((n) => randomBytes(n));
    const b64 = imgs.map((b) => b.toString('base64'));
    const unpadded = b64[1].replace(/=+$/, '');
    // written with JSON escapes (\/ and \n): left to the parser, then decoded leniently as before
    const escaped = `data:image\\/png;base64,${b64[2].slice(0, 1000)}\\n${b64[2].slice(1000)}`;
    const text = `\ufeff{"note":"a \\"quoted\\" data:image/png;base64,AAAA","a":"data:image/png;base64,${b64[0]}","b":["data:image/jpeg;charset=x;base64,${unpadded}"],"c":"${escaped}","data:image/png;base64,${b64[0]}":1}`;
    const raw = new Uint8Array(Buffer.from(text));
    const r = parseJsonBytesDecodingData(raw);
    if (!r.ok) throw new Error('not parsed');
    const v = r.value as Record<string, unknown>;
    const { release } = hold(raw, r.inline!);
    const expected = JSON.parse(text.slice(1)) as Record<string, unknown>;
    expect(v.note).toBe(expected.note);
    // the key stays a key
    expect(v[`data:image/png;base64,${b64[0]}`]).toBe(1);
    expect(r.inline).toHaveLength(3);
    const byRef = (s: unknown) => r.inline!.find((i) => (s as string).endsWith(i.ref))!;
    for (const [s, bytes, type] of [[v.a, imgs[0], 'image/png'], [(v.b as string[])[0], imgs[1], 'image/jpeg'], [v.c, Buffer.from((expected.c as string).slice('data:image/png;base64,'.length), 'base64'), 'image/png']] as const) {
      const d = byRef(s);
      const decoded = (await inlineBytes(s as string))!;
      expect(Buffer.from(decoded).equals(bytes)).toBe(true);
      expect(d.contentType).toBe(type);
      expect(d.sha256).toBe(sha(bytes));
      expect(d.size).toBe(bytes.length);
      expect(decoded.byteLength).toBe(decoded.buffer.byteLength); // moves, not copied
    }
    // the two plain ones were cut out of the bytes; the escaped one was parsed and decoded at once
    expect([byRef(v.a).at, byRef((v.b as string[])[0]).at, byRef(v.c).bytes].every(Boolean)).toBe(true);
    expect(Buffer.from((await inlineBytes(v.c as string))!).equals(imgs[2])).toBe(true);
    release();
  });

  it('refuses bodies that are not UTF-8 or not JSON around a data URL, as parsing the whole would', () => {
    const url = `data:image/png;base64,${randomBytes(300_000).toString('base64')}`;
    const bad = Buffer.concat([Buffer.from(`{"a":"${url}","b":"`), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    expect(parseJsonBytesDecodingData(new Uint8Array(bad)).ok).toBe(false);
    expect(parseJsonBytesDecodingData(new Uint8Array(Buffer.from(`{"a":"${url}",}`))).ok).toBe(false);
    expect(parseJsonBytesDecodingData(new Uint8Array(Buffer.from(`{"a":"${url}`))).ok).toBe(false);
    expect(parseJsonBytesDecodingData(new Uint8Array(Buffer.from(`["${url}"]`))).ok).toBe(true);
    // padding inside the text is not plain base64: decoded leniently, as Buffer does
    const odd = `data:image/png;base64,${'QUFB'.repeat(70_000)}=QUFB`;
    const r = parseJsonBytesDecodingData(new Uint8Array(Buffer.from(JSON.stringify({ a: odd }))));
    expect(r.ok && r.inline?.[0].bytes && Buffer.from(r.inline[0].bytes).equals(Buffer.from(odd.slice(22), 'base64'))).toBe(true);
  });

  it('frees the memory held data URLs are decoded from only once the request ended and no decoding reads it', async () => {
    let finish!: (b: Uint8Array) => void;
    let freed = 0;
    const ref = 'c'.repeat(32);
    const url = `data:image/png;base64,FRinlineRef${ref}`;
    const release = holdInlineData([{ ref, size: 3, sha256: sha(new Uint8Array([1, 2, 3])), contentType: 'image/png', load: () => new Promise<Uint8Array>((r) => (finish = r)) }], () => freed++);
    const decoding = inlineBytes(url);
    release();
    expect(freed).toBe(0);
    finish(new Uint8Array([1, 2, 3]));
    expect(Array.from((await decoding)!)).toEqual([1, 2, 3]);
    expect(freed).toBe(1);
    expect(inlineData(url)).toBeUndefined();
  });

  it('a client cannot reach another request\'s bytes with a stand-in it makes up', async () => {
    const release = holdInlineData([{ ref: 'a'.repeat(32), bytes: new Uint8Array([1, 2, 3]), size: 3, sha256: sha(new Uint8Array([1, 2, 3])), contentType: 'image/png' }]);
    await expect(http.fetch(`data:image/png;base64,FRinlineRef${'b'.repeat(32)}`)).rejects.toMatchObject({ reason: 'invalid_url' });
    release();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeShoeGlb } from '../../support/shoes.ts';
import { parseViewerParams } from '../../../plugins/ar-host/viewer-params.ts';
import { glbForm, startArService, waitForAutofit } from './support.ts';
import type { ArTestService } from './support.ts';

let svc: ArTestService;
let owner: { key: string; id: string };
let objectId: string;

beforeAll(async () => {
  svc = await startArService();
  owner = await svc.createKey({ accountId: 'page-owner' });
  const up = await svc.arCall('POST', '/tryon/api/upload_shoe', { bearer: owner.key, form: glbForm(await makeShoeGlb({ side: 'right', rootMatrix: [0, 0, 10, 0, 0, 10, 0, 0, -10, 0, 0, 0, 0, 0, 0, 1] }), { name: 'Page shoe' }) });
  objectId = up.body.id;
  expect((await waitForAutofit(svc, objectId)).status).toBe('finished');
});
afterAll(async () => {
  await svc?.close();
});

describe('viewer URL parameters', () => {
  it.each([
    [{}, {}],
    [{ pose_quality: '3', native_ml_size: '256', mm: '4', turbo: '1', no_logs: '1', settings: '1', async_mode: '1', debug: '1' }, { poseQuality: 3, nativeMlSize: 256, mirrorMode: 4, turbo: true, noLogs: true, settings: true, asyncMode: true, debug: true }],
    [{ mirror_mode: '5' }, { mirrorMode: 5 }],
    [{ mirror_mode: '2', mm: '2' }, { mirrorMode: 2 }],
  ])('accepts %j', (query, expected) => {
    const r = parseViewerParams(query as Record<string, string>);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.params).toMatchObject(expected);
  });

  it.each([
    [{ pose_quality: '4' }, 'pose_quality', /must be one of 1, 2, 3 \(got "4"\)/],
    [{ pose_quality: 'high' }, 'pose_quality', /got "high"/],
    [{ native_ml_size: '200' }, 'native_ml_size', /160, 192, 256/],
    [{ mm: '0' }, 'mm', /1, 2, 3, 4, 5/],
    [{ mirror_mode: '6' }, 'mirror_mode', /got "6"/],
    [{ mirror_mode: '1', mm: '2' }, 'mirror_mode/mm', /disagree/],
    [{ turbo: 'yes' }, 'turbo', /must be 0 or 1/],
    [{ debug: '2' }, 'debug', /must be 0 or 1/],
    [{ no_logs: 'true' }, 'no_logs', /must be 0 or 1/],
    [{ settings: '' }, 'settings', /must be 0 or 1/],
    [{ async_mode: '01' }, 'async_mode', /must be 0 or 1/],
  ])('refuses %j', (query, field, message) => {
    const r = parseViewerParams(query as Record<string, string>);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors[0].field).toBe(field);
      expect(r.errors[0].message).toMatch(message);
    }
  });
});

describe('pages over HTTP', () => {
  it('serves the four pages with a strict CSP, AR modes and the USDZ route as ios-src', async () => {
    for (const p of ['/tryon', '/tryon/app', '/tryon/editor', '/tryon/accessory-editor']) {
      const r = await svc.arCall('GET', `${p}?id=${objectId}&color_id=default&debug=1`);
      expect(r.status, p).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = r.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
      expect(r.text).toContain('ar-modes="webxr scene-viewer quick-look"');
      expect(r.text).toContain('/tryon/assets/model-viewer.min.js');
      expect(r.text).not.toMatch(/https?:\/\//); // nothing from other hosts
      const config = JSON.parse(/<script type="application\/json" id="fitroom-config">(.*?)<\/script>/s.exec(r.text)![1]);
      expect(config.urls.usdz).toBe(`/api/get_usdz/${objectId}?color_id=default`);
      expect(config.params.debug).toBe(true);
    }
  });

  it('answers invalid parameters with a 400 page naming each problem', async () => {
    const r = await svc.arCall('GET', `/tryon?id=${objectId}&pose_quality=9&mm=7&turbo=maybe`);
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.text).toContain('pose_quality must be one of 1, 2, 3 (got &quot;9&quot;)');
    expect(r.text).toContain('mm must be one of 1, 2, 3, 4, 5 (got &quot;7&quot;)');
    expect(r.text).toContain('turbo must be 0 or 1 (got &quot;maybe&quot;)');
    const noId = await svc.arCall('GET', '/tryon/app');
    expect(noId.status).toBe(400);
    expect(noId.text).toContain('id is required');
    const unknown = await svc.arCall('GET', '/tryon/editor?id=%3Cscript%3E');
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('&lt;script&gt;');
    expect(unknown.text).not.toContain('<script>');
  });

  it('shows a GLB by URL in the viewer, allowing only that origin besides its own', async () => {
    const src = 'https://models.example.com/api/v1/files/abc?expires=1&token=t';
    const r = await svc.arCall('GET', `/tryon?src=${encodeURIComponent(src)}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-security-policy')).toContain("connect-src 'self' https://models.example.com ");
    const config = JSON.parse(/<script type="application\/json" id="fitroom-config">(.*?)<\/script>/s.exec(r.text)![1]);
    expect(config.urls.glb).toBe(src);
    expect(config.urls.usdz).toBe('');
    for (const bad of ['javascript:alert(1)', 'not a url', 'file:///etc/passwd']) {
      const b = await svc.arCall('GET', `/tryon?src=${encodeURIComponent(bad)}`);
      expect(b.status).toBe(400);
      expect(b.text).toContain('src must be an absolute http(s) URL');
    }
    const none = await svc.arCall('GET', '/tryon');
    expect(none.status).toBe(400);
    expect(none.text).toContain('id (the object id or name) or src (a GLB URL) is required');
  });

  it('serves model-viewer and the page scripts from this host', async () => {
    const mv = await svc.arCall('GET', '/tryon/assets/model-viewer.min.js');
    expect(mv.status).toBe(200);
    expect(mv.headers.get('content-type')).toMatch(/javascript/);
    expect(mv.bytes.length).toBeGreaterThan(500_000);
    expect((await svc.arCall('GET', '/tryon/assets/meshopt_decoder.js')).text).toContain('MeshoptDecoder');
    expect((await svc.arCall('GET', '/tryon/assets/..%2F..%2Fpackage.json')).status).toBe(400);
    expect((await svc.arCall('GET', '/tryon/assets/secret.js')).status).toBe(404);
  });
});


describe('OpenAPI', () => {
  it('publishes the AR host operations with their schemas', async () => {
    const r = await svc.call('GET', '/api/v1/openapi.json');
    expect(r.status).toBe(200);
    for (const p of ['/tryon/api/upload_shoe', '/tryon/api/autofit_status', '/api/get_models', '/api/set_materials', '/tryonapi/get_materials/{name}', '/admin/v1/ar/sessions']) expect(r.body.paths).toHaveProperty([p]);
    expect(r.body.paths['/tryon'].get.description).toContain('native_ml_size');
    expect(r.body.paths['/tryon/assets/{name}']).toBeUndefined(); // static files are not API
    expect(r.body.components.schemas.ArMaterialsData.additionalProperties.required).toEqual(['parts']);
  });
});

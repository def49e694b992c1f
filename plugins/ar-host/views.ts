import type { ArObject, MaterialsData } from '../../core/ports/ar-object-store.ts';

/** Links to an object's files and pages on the AR host. */
export const arUrls = {
  glb: (base: string, id: string, colorId = 'default', mirror = false) => `${base}/api/get_gltf/${id}?color_id=${encodeURIComponent(colorId)}${mirror ? '&mirror=1' : ''}`,
  usdz: (base: string, id: string, colorId = 'default', mirror = false) => `${base}/api/get_usdz/${id}?color_id=${encodeURIComponent(colorId)}${mirror ? '&mirror=1' : ''}`,
  viewer: (base: string, id: string, colorId = 'default') => `${base}/tryon?id=${id}&color_id=${encodeURIComponent(colorId)}`,
  source: (base: string, id: string) => `${base}/api/get_gltf/${id}?variant=source`,
};

/** Colour ids of an object: those with an autofit state or a preset (mirror presets fold into their colour). */
export function colorIds(o: ArObject): string[] {
  const ids = new Set<string>(['default', ...Object.keys(o.autofit)]);
  for (const k of Object.keys(o.materialsData)) ids.add(k.endsWith('_mirror') ? k.slice(0, -'_mirror'.length) : k);
  return [...ids].sort((a, b) => (a === 'default' ? -1 : b === 'default' ? 1 : a.localeCompare(b)));
}

function autofitSummary(o: ArObject): Record<string, { status: string; progress: number }> {
  return Object.fromEntries(Object.entries(o.autofit).map(([c, s]) => [c, { status: s.status, progress: s.progress }]));
}

/** The five fields only owners, group members and admins see. */
function privateFields(o: ArObject) {
  return { created: o.created, createdBy: o.createdBy, modified: o.modified, modifiedBy: o.modifiedBy, owner: { ...o.owner } };
}

/**
 * Object metadata. Public: no `created`, `createdBy`, `modifiedBy`, `owner`, `modified`,
 * `model_url`, `custom` or `materialsData`. Private (owner, group, admin): adds the five fields,
 * `group`, `custom` and `model_url` (the uploaded file).
 */
export function objectView(o: ArObject, base: string, privileged: boolean): Record<string, unknown> {
  const ready = o.autofit.default?.status === 'finished' || !!o.files.aligned;
  const view: Record<string, unknown> = {
    id: o.id,
    name: o.name,
    color_ids: colorIds(o),
    properties: o.properties,
    autofit: autofitSummary(o),
    viewer_url: arUrls.viewer(base, o.id),
    ...(ready ? { glb_url: arUrls.glb(base, o.id), mirror_glb_url: arUrls.glb(base, o.id, 'default', true), usdz_url: arUrls.usdz(base, o.id) } : {}),
  };
  if (privileged) {
    Object.assign(view, privateFields(o), { group: o.group, custom: o.custom, ...(o.files.source ? { model_url: arUrls.source(base, o.id) } : {}) });
  }
  return view;
}

/** get_materials: every preset; the five private fields for admins only. */
export function materialsView(o: ArObject, admin: boolean): Record<string, unknown> {
  return {
    id: o.id,
    name: o.name,
    parts: Array.isArray(o.properties.parts) ? o.properties.parts : [],
    materialsData: o.materialsData,
    ...(admin ? privateFields(o) : {}),
  };
}

/** The public materials fallback: one preset and its mirror preset when it exists. */
export function fallbackMaterialsView(o: ArObject, colorId: string): Record<string, unknown> {
  const materials: MaterialsData = {};
  if (o.materialsData[colorId]) materials[colorId] = o.materialsData[colorId];
  if (o.materialsData[`${colorId}_mirror`]) materials[`${colorId}_mirror`] = o.materialsData[`${colorId}_mirror`];
  return { id: o.id, name: o.name, color_id: colorId, parts: Array.isArray(o.properties.parts) ? o.properties.parts : [], materials };
}

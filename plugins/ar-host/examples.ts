/** Examples and answer schemas of the AR host's operations, as published in OpenAPI (validated by a test). */
import { EX } from '../../core/examples.ts';
import { ref } from '../../core/schemas.ts';

const AR = 'https://ar.fitroom.example';
const PRESET = { name: 'Red', parts: { upper: { material: { baseColor: '#c0392b', roughness: 0.6 } }, laces: { visible: true, material: { baseColor: '#ffffff' } } } };

export const AR_EXAMPLES = {
  upload: { id: EX.arId, color_id: 'default', viewer_url: EX.viewerUrl },
  autofit: {
    status: 'finished',
    progress: 100,
    glb_url: `${AR}/api/get_gltf/${EX.arId}?color_id=default`,
    object_properties: { side: 'left', parts: ['shoe'], dimensions: { width: 0.1069, height: 0.0919, length: 0.2804 }, mirrorSide: 'right', unitsGuess: 'm', scaleFactor: 1 },
  },
  object: {
    id: EX.arId,
    name: 'shoe',
    color_ids: ['default', 'red'],
    properties: { side: 'left', parts: ['upper', 'laces', 'sole'], dimensions: { width: 0.1069, height: 0.0919, length: 0.2804 } },
    autofit: { default: { status: 'finished', progress: 100 } },
    viewer_url: EX.viewerUrl,
    glb_url: `${AR}/api/get_gltf/${EX.arId}?color_id=default`,
    mirror_glb_url: `${AR}/api/get_gltf/${EX.arId}?color_id=default&mirror=true`,
    usdz_url: `${AR}/api/get_usdz/${EX.arId}?color_id=default`,
  },
  preset: PRESET,
  materials: { id: EX.arId, name: 'shoe', parts: ['upper', 'laces', 'sole'], materialsData: { red: PRESET } },
  fallbackMaterials: { id: EX.arId, name: 'shoe', color_id: 'red', parts: ['upper', 'laces', 'sole'], materials: { red: PRESET } },
  bake: { id: EX.arId, colors: { red: { glb: 812345, usdz: 901234, mirrorGlb: 812001, glb_url: `${AR}/api/get_gltf/${EX.arId}?color_id=red`, usdz_url: `${AR}/api/get_usdz/${EX.arId}?color_id=red`, mirror_glb_url: `${AR}/api/get_gltf/${EX.arId}?color_id=red&mirror=true` } } },
  textures: { id: EX.arId, textures: ['leather.png'] },
  bugReport: { id: '5b3c1e0a-8d1f-4e53-9a53-0f1d2c3b4a59', created: EX.time },
  session: { token: 'ars1.eyJ1c2VySWQiOiJlZGl0b3ItMSIsImFkbWluIjpmYWxzZX0.Zx1', expiresAt: EX.later, cookieName: 'fitroom_session', loginUrl: `${AR}/tryon/login?token=ars1.eyJ1c2VySWQiOiJlZGl0b3ItMSIsImFkbWluIjpmYWxzZX0.Zx1` },
};

const PARTS = { type: 'array', items: { type: 'string' } };
/** Answer schemas that are not components. */
export const AR_ANSWERS = {
  materials: { type: 'object', required: ['id', 'name', 'parts', 'materialsData'], properties: { id: { type: 'string' }, name: { type: 'string' }, parts: PARTS, materialsData: ref('ArMaterialsData') } },
  fallbackMaterials: { type: 'object', required: ['id', 'name', 'color_id', 'parts', 'materials'], properties: { id: { type: 'string' }, name: { type: 'string' }, color_id: { type: 'string' }, parts: PARTS, materials: ref('ArMaterialsData') } },
  materialsAfterChange: { type: 'object', required: ['id', 'materialsData'], properties: { id: { type: 'string' }, materialsData: ref('ArMaterialsData') } },
  bake: {
    type: 'object',
    required: ['id', 'colors'],
    properties: { id: { type: 'string' }, colors: { type: 'object', description: 'Per colour: file sizes in bytes and the URLs', additionalProperties: { type: 'object', required: ['glb_url', 'usdz_url'], properties: { glb: { type: 'integer' }, usdz: { type: 'integer' }, mirrorGlb: { type: ['integer', 'null'] }, glb_url: { type: 'string' }, usdz_url: { type: 'string' }, mirror_glb_url: { type: 'string' } } } } },
  },
  textures: { type: 'object', required: ['id', 'textures'], properties: { id: { type: 'string' }, textures: { type: 'array', items: { type: 'string' }, description: 'Every texture name the object has' } } },
  bugReport: { type: 'object', required: ['id', 'created'], properties: { id: { type: 'string' }, created: { type: 'string', format: 'date-time' } } },
  bugReports: {
    type: 'object',
    required: ['reports'],
    properties: { reports: { type: 'array', items: { type: 'object', required: ['id', 'message', 'created'], properties: { id: { type: 'string' }, objectId: { type: ['string', 'null'] }, message: { type: 'string' }, context: { type: 'object' }, reporter: { type: ['string', 'null'] }, created: { type: 'string', format: 'date-time' } } } } },
  },
};

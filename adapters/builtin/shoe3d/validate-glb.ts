import { createRequire } from 'node:module';

/** What the Khronos glTF validator found (errors make a GLB unusable; see `messages`). */
export interface GlbValidation {
  errors: number;
  warnings: number;
  infos: number;
  /** First few error and warning messages (`code: message`). */
  messages: string[];
  vertices?: number;
  triangles?: number;
}

interface ValidatorReport {
  issues: { numErrors: number; numWarnings: number; numInfos: number; messages: { code: string; message: string; severity: number; pointer?: string }[] };
  info?: { totalVertexCount?: number; totalTriangleCount?: number };
}

const validator = createRequire(import.meta.url)('gltf-validator') as {
  validateBytes(data: Uint8Array, options?: Record<string, unknown>): Promise<ValidatorReport>;
};

/**
 * Runs the Khronos glTF validator on GLB bytes. Run it before meshopt compression: the validator
 * does not decode EXT_meshopt_compression and only reports it as unsupported.
 */
export async function validateGlb(glb: Uint8Array): Promise<GlbValidation> {
  const report = await validator.validateBytes(new Uint8Array(glb), {
    maxIssues: 50,
    externalResourceFunction: () => Promise.reject(new Error('external resources are not allowed')),
  });
  return {
    errors: report.issues.numErrors,
    warnings: report.issues.numWarnings,
    infos: report.issues.numInfos,
    messages: report.issues.messages.filter((m) => m.severity <= 1).slice(0, 10).map((m) => `${m.code}: ${m.message}${m.pointer ? ` (${m.pointer})` : ''}`),
    vertices: report.info?.totalVertexCount,
    triangles: report.info?.totalTriangleCount,
  };
}

/**
 * Naming conventions for shoe parts in AR objects. Overlay parts (decals, perforations, ghost
 * reflections) and floor meshes are optional extras: they never drive alignment and appear in a
 * colour preset only when the preset gives them a visible, non-empty material.
 */
export const OVERLAY_PREFIXES = ['perforado_', 'grabado_', 'bordado_', 'picado_', 'ghost_', 'reflejo_ghost_'] as const;
export const FLOOR_PREFIX = 'suelo';

export function isOverlayPart(name: string): boolean {
  return OVERLAY_PREFIXES.some((p) => name.startsWith(p));
}

export function isFloorPart(name: string): boolean {
  return name.startsWith(FLOOR_PREFIX);
}

/** Structural parts carry the shoe's shape: everything that is neither overlay nor floor. */
export function isStructuralPart(name: string): boolean {
  return !isOverlayPart(name) && !isFloorPart(name);
}

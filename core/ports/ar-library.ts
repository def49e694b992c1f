import type { Caller } from '../credentials.ts';
import type { Links } from '../links.ts';
import { token } from '../plugin.ts';
import type { ArOwner } from './ar-object-store.ts';

/** A model another capability adds to the AR library. */
export interface ArLibraryEntry {
  name: string;
  owner: ArOwner;
  /** Who added it, as the object's `createdBy` (`shoe-3d:<credential id>`). */
  createdBy: string;
  /** The object's properties (`kind`: `shoe` or `accessory`; where it came from). */
  properties: Record<string, unknown>;
  /** The caller the autofit job runs for (no secrets), and the links its answers use. */
  caller: Caller;
  links: Links;
}

/**
 * ArLibrary: the AR host's library as a service for other plugins. `addObject` stores the GLB,
 * creates the object and queues its autofit; on failure nothing is left behind, so a caller may
 * retry. `autofit` says whether the autofit job was queued (`queued`) or why not. Provided by the
 * AR host plugin (`plugins/ar-host`); absent when the AR host is not installed.
 */
export interface ArLibrary {
  addObject(glb: Uint8Array, entry: ArLibraryEntry): Promise<{ id: string; autofit: string }>;
}

export const AR_LIBRARY = token<ArLibrary>('ArLibrary');

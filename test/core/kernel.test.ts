/**
 * The kernel's check of the services plugins declare they use (`uses`): a required one that no
 * plugin or adapter bound stops the start with the plugin and the service named; one provided by a
 * plugin set up later counts; an optional one may be missing.
 */
import { describe, expect, it } from 'vitest';
import type { FitroomConfig } from '../../core/config.ts';
import { Kernel, type ServiceContainer } from '../../core/kernel.ts';
import { definePlugin, token, type Token } from '../../core/plugin.ts';

function container(): ServiceContainer {
  const bound = new Map<symbol, unknown>();
  return {
    get: <T>(t: Token<T>) => bound.get(t.key) as T,
    has: (t) => bound.has(t.key),
    provide: (t, v) => void bound.set(t.key, v),
  };
}

const LIBRARY = token<{ add(): string }>('TestLibrary');
const EXTRA = token<number>('TestExtra');

const user = definePlugin({ name: 'user', uses: [LIBRARY, { token: EXTRA, optional: true }], setup: () => undefined });
const provider = definePlugin({ name: 'provider', setup: (api) => api.provide(LIBRARY, { add: () => 'added' }) });

describe('plugins that use services', () => {
  it('start when a plugin set up after them provides the service; optional ones may be missing', async () => {
    const services = container();
    const kernel = new Kernel({} as FitroomConfig, services);
    await kernel.setup([user, provider]);
    expect(kernel.plugins).toEqual(['user', 'provider']);
    expect(services.get(LIBRARY).add()).toBe('added');
  });

  it('stop the start naming the plugin and the service when nothing provides a required one', async () => {
    const kernel = new Kernel({} as FitroomConfig, container());
    await expect(kernel.setup([user])).rejects.toThrow('Services that no plugin or adapter provides: TestLibrary (used by plugin user)');
  });
});

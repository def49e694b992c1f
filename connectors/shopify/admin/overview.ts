import { PLATFORM, type ShopifyConnector } from '../shopify.ts';
import { PLATFORM_USAGE, type PlatformUsage } from '../../../core/ports/platform-usage.ts';

/** The theme app extension's blocks, by file name under extensions/fitroom-theme/blocks/. */
export const EMBED_HANDLE = 'fitroom-embed';
export const PRODUCT_BLOCK_HANDLE = 'product-fitroom';

/**
 * The live theme's settings (app embeds live in `current.blocks`) and product templates (app blocks
 * sit in a section's `blocks`). Needs `read_themes`; without it the checks are reported as unknown.
 */
export const THEME_FILES_QUERY = `query FitroomThemeFiles {
  themes(first: 1, roles: [MAIN]) {
    nodes {
      id name
      files(filenames: ["config/settings_data.json", "templates/product*.json"], first: 20) {
        nodes { filename body { ... on OnlineStoreThemeFileBodyText { content } } }
      }
    }
  }
}`;

export interface ThemeFiles {
  themes: { nodes: { id: string; name: string; files: { nodes: { filename: string; body: { content?: string } }[] } | null }[] };
}

export type StepId = 'appEmbed' | 'productBlock' | 'sizeChart' | 'firstModel';

export interface Overview {
  shop: string;
  /** Each onboarding step: done (true/false), or null when the server cannot tell (no theme access). */
  checklist: { id: StepId; done: boolean | null; url?: string }[];
  month: { start: string; tryOns: number; sizeRecommendations: number; models3d: number };
}

type Gql = <T>(shop: string, query: string, variables: Record<string, unknown>) => Promise<T>;

/** Theme-editor deep links: activate the app embed, add the product block to the product template. */
export function deepLinks(shop: string, apiKey: string) {
  const editor = `https://${shop}/admin/themes/current/editor`;
  return {
    appEmbed: `${editor}?context=apps&template=index&activateAppId=${encodeURIComponent(apiKey)}/${EMBED_HANDLE}`,
    productBlock: `${editor}?template=product&addAppBlockId=${encodeURIComponent(apiKey)}/${PRODUCT_BLOCK_HANDLE}&target=mainSection`,
  };
}

/** The checklist's state and this month's figures, computed from Shopify's theme and Fitroom's own records. */
export async function overview(c: ShopifyConnector, gql: Gql, shop: string, now = new Date()): Promise<Overview> {
  const usage: PlatformUsage = c.api.get(PLATFORM_USAGE);
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const [theme, media, month, charts] = await Promise.all([
    gql<ThemeFiles>(shop, THEME_FILES_QUERY, {}).then(themeState, () => ({ appEmbed: null, productBlock: null })),
    c.store.media({ platform: PLATFORM, shop }),
    usage.month(PLATFORM, shop, now),
    usage.total(PLATFORM, shop, 'size_chart'),
  ]);
  const links = deepLinks(shop, c.settings.apiKey);
  return {
    shop,
    checklist: [
      { id: 'appEmbed', done: theme.appEmbed, url: links.appEmbed },
      { id: 'productBlock', done: theme.productBlock, url: links.productBlock },
      { id: 'sizeChart', done: charts > 0 },
      { id: 'firstModel', done: media.some((m) => m.status === 'ready') },
    ],
    month: {
      start: start.toISOString().slice(0, 10),
      tryOns: month.tryon,
      sizeRecommendations: month.size_recommendation,
      models3d: media.filter((m) => m.status === 'ready' && m.createdAt >= start).length,
    },
  };
}

/**
 * Whether the live theme has the app embed turned on and the product block placed. Theme JSON files
 * may start with a comment header that Shopify writes; a block whose `disabled` is true does not count.
 */
export function themeState(data: ThemeFiles): { appEmbed: boolean | null; productBlock: boolean | null } {
  const theme = data.themes.nodes[0];
  if (!theme?.files) return { appEmbed: null, productBlock: null };
  const files = theme.files.nodes.map((f) => ({ name: f.filename, json: parseThemeJson(f.body?.content) }));
  const settings = files.find((f) => f.name === 'config/settings_data.json')?.json as { current?: unknown } | undefined;
  const current = settings && typeof settings.current === 'object' ? settings.current : null;
  return {
    appEmbed: hasBlock(current, EMBED_HANDLE),
    productBlock: files.some((f) => f.name.startsWith('templates/product') && hasBlock(f.json, PRODUCT_BLOCK_HANDLE)),
  };
}

function parseThemeJson(text: string | undefined): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text.replace(/^\s*\/\*[\s\S]*?\*\//, ''));
  } catch {
    return null;
  }
}

/** Any enabled block, at any depth, of type `shopify://apps/<app>/blocks/<handle>/<uuid>`. */
function hasBlock(node: unknown, handle: string): boolean {
  if (!node || typeof node !== 'object') return false;
  const o = node as Record<string, unknown>;
  if (typeof o.type === 'string' && new RegExp(`^shopify://apps/[^/]+/blocks/${handle}/`).test(o.type) && o.disabled !== true) return true;
  return Object.values(o).some((v) => hasBlock(v, handle));
}

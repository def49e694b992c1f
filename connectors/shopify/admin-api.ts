import { GraphqlQueryError, HttpResponseError, type Session, type Shopify } from '@shopify/shopify-api';
import { FitroomError } from '../../core/errors.ts';

/** Cost-based throttling: how often a THROTTLED query is retried, waiting for the bucket to refill. */
const MAX_THROTTLE_RETRIES = 5;

export interface AdminCallOptions {
  /** Called when Shopify no longer accepts the shop's token (401/403): the shop must reopen the app. */
  onReauth?: () => Promise<void>;
  /** Called once when Shopify answers 401: a renewed session to retry with (expiring tokens), or null. */
  onUnauthorized?: (refused: Session) => Promise<Session | null>;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * One Admin GraphQL call with the failure paths a merchant can act on: THROTTLED is retried after
 * the time the cost bucket needs to refill; a rejected token marks the shop for re-authorization
 * (PLATFORM_REAUTH_REQUIRED); other GraphQL and HTTP errors become PLATFORM_ERROR with Shopify's words.
 */
export async function adminGraphql<T = any>(shopify: Shopify, session: Session, query: string, variables: Record<string, unknown> = {}, opts: AdminCallOptions = {}): Promise<T> {
  let client = new shopify.clients.Graphql({ session });
  let renewed = false;
  const sleep = opts.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await client.request(query, { variables, retries: 2 });
      return res.data as T;
    } catch (e) {
      const wait = throttleWaitMs(e);
      if (wait !== null && attempt < MAX_THROTTLE_RETRIES) {
        await sleep(wait);
        continue;
      }
      if (e instanceof HttpResponseError && e.response.code === 401 && !renewed && opts.onUnauthorized) {
        renewed = true;
        const next = await opts.onUnauthorized(session);
        if (next) {
          client = new shopify.clients.Graphql({ session: next });
          continue;
        }
      }
      if (e instanceof HttpResponseError && (e.response.code === 401 || e.response.code === 403)) {
        await opts.onReauth?.();
        throw new FitroomError('PLATFORM_REAUTH_REQUIRED', `Shopify no longer accepts this shop's access token (${e.response.code}): open the Fitroom app from the Shopify admin again to re-authorize it`);
      }
      if (wait !== null) throw new FitroomError('PLATFORM_ERROR', 'Shopify kept throttling the Admin API; the work was kept and can be retried later', { retryable: true });
      if (e instanceof GraphqlQueryError) throw new FitroomError('PLATFORM_ERROR', `Shopify answered: ${graphqlMessage(e)}`);
      if (e instanceof HttpResponseError) throw new FitroomError('PLATFORM_ERROR', `Shopify answered HTTP ${e.response.code}`, { retryable: e.response.code >= 500 });
      throw e;
    }
  }
}

/** Throws PLATFORM_ERROR when a mutation reports userErrors (validation problems Shopify found). */
export function assertNoUserErrors(what: string, payload: { userErrors?: { field?: string[] | null; message: string }[] } | null | undefined): void {
  const errors = payload?.userErrors ?? [];
  if (errors.length) throw new FitroomError('PLATFORM_ERROR', `${what}: ${errors.map((u) => (u.field?.length ? `${u.field.join('.')}: ${u.message}` : u.message)).join('; ')}`);
}

function throttleWaitMs(e: unknown): number | null {
  if (!(e instanceof GraphqlQueryError)) return null;
  const body = e.body as { errors?: { extensions?: { code?: string } }[] | { message?: string; graphQLErrors?: { extensions?: { code?: string } }[] }; extensions?: { cost?: { requestedQueryCost?: number; throttleStatus?: { currentlyAvailable?: number; restoreRate?: number } } } } | undefined;
  const list = Array.isArray(body?.errors) ? body.errors : (body?.errors?.graphQLErrors ?? []);
  if (!list.some((x) => x.extensions?.code === 'THROTTLED') && !/THROTTLED/.test(e.message)) return null;
  const cost = body?.extensions?.cost;
  const missing = Math.max(0, (cost?.requestedQueryCost ?? 50) - (cost?.throttleStatus?.currentlyAvailable ?? 0));
  const rate = cost?.throttleStatus?.restoreRate ?? 50;
  return Math.min(10_000, Math.max(250, Math.ceil((missing / rate) * 1000)));
}

function graphqlMessage(e: GraphqlQueryError): string {
  const body = e.body as { errors?: { message?: string }[] | { message?: string } } | undefined;
  const list = Array.isArray(body?.errors) ? body.errors : body?.errors ? [body.errors] : [];
  return list.map((x) => x.message).filter(Boolean).join('; ') || e.message;
}

export const PRODUCTS_QUERY = `query FitroomProducts($first: Int!, $query: String) {
  products(first: $first, query: $query) {
    nodes {
      id title handle
      images(first: 4) { nodes { url altText } }
      media(first: 10) { nodes { mediaContentType status ... on Model3d { id } } }
      sizeChart: metafield(namespace: "$app:fitroom", key: "size_chart") { value }
    }
  }
}`;

export const PRODUCT_IMAGES_QUERY = `query FitroomProductImages($id: ID!) {
  product(id: $id) { id title images(first: 4) { nodes { url } } }
}`;

export const COLLECTION_PRODUCTS_QUERY = `query FitroomCollection($id: ID!) {
  collection(id: $id) { id title products(first: 100) { nodes { id title images(first: 4) { nodes { url } } } } }
}`;

export const STAGED_UPLOADS_CREATE = `mutation FitroomStagedUpload($input: [StagedUploadInput!]!) {
  stagedUploadsCreate(input: $input) {
    stagedTargets { url resourceUrl parameters { name value } }
    userErrors { field message }
  }
}`;

export const PRODUCT_UPDATE_MEDIA = `mutation FitroomAttachModel($product: ProductUpdateInput!, $media: [CreateMediaInput!]) {
  productUpdate(product: $product, media: $media) {
    product { id media(first: 50) { nodes { id mediaContentType status alt } } }
    userErrors { field message }
  }
}`;

export const MEDIA_STATUS_QUERY = `query FitroomMediaStatus($id: ID!) {
  node(id: $id) { ... on Model3d { id status mediaErrors { code message } sources { format url mimeType filesize } } }
}`;

export const METAFIELDS_SET = `mutation FitroomSizeChart($metafields: [MetafieldsSetInput!]!) {
  metafieldsSet(metafields: $metafields) {
    metafields { id namespace key }
    userErrors { field message }
  }
}`;

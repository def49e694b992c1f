import Koa from 'koa';
import Router, { type RouterContext } from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import busboy from 'busboy';
import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import type { Kernel } from '../../core/kernel.ts';
import type { AuthRequest, AuthResolver, Operation, OperationContext, RateLimitCategory, UploadedFile } from '../../core/plugin.ts';
import type { Caller } from '../../core/credentials.ts';
import type { RateLimiter } from '../../core/ports/rate-limiter.ts';
import { BlobTooLargeError, type BlobStore } from '../../core/ports/blob-store.ts';
import { FitroomError, envelope, isFitroomError, validationError } from '../../core/errors.ts';

/** Requests per minute per credential (or client address for anonymous calls), from the spec's limits. */
export const RATE_LIMITS: Record<RateLimitCategory, number> = { submission: 50, status: 500, download: 300, health: 5000 };

export interface HttpDeps {
  kernel: Kernel;
  rateLimiter: RateLimiter;
  blobs: BlobStore;
  host: 'api' | 'ar';
  /** Extra routes mounted before the operations (docs pages, static assets). */
  extraRoutes?: (router: Router) => void;
}

interface State {
  requestId: string;
}

function isLoopback(ip: string): boolean {
  const v = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  return v === '::1' || (isIP(v) === 4 && v.startsWith('127.'));
}

/** Builds the Koa app of one host from the operation table. */
export function createHttpApp(deps: HttpDeps): Koa {
  const { kernel } = deps;
  const config = kernel.config;
  const app = new Koa<State>({ proxy: false });
  app.silent = true;

  // Every failure leaves in the spec's envelope; unexpected errors never expose internals.
  app.use(async (ctx, next) => {
    ctx.state.requestId = randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new FitroomError('NOT_FOUND', `No route for ${ctx.method} ${ctx.path}`);
    } catch (raw) {
      const err = toFitroomError(raw, ctx.state.requestId);
      ctx.status = err.status;
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Cache-Control', 'no-store');
      ctx.body = envelope(err);
    }
  });

  const router = new Router();
  deps.extraRoutes?.(router);
  for (const op of kernel.operations.filter((o) => (o.host ?? 'api') === deps.host)) {
    const path = op.path.replace(/\{(\w+)\}/g, ':$1');
    router.register(path, [op.method], operationMiddleware(op, deps, config.maxJsonBytes, config.devRateMultiplier), { name: op.id });
  }
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true, methodNotAllowed: () => new FitroomError('METHOD_NOT_ALLOWED', 'Method not allowed on this route'), notImplemented: () => new FitroomError('METHOD_NOT_ALLOWED', 'Method not implemented') }));
  return app as unknown as Koa;
}

function toFitroomError(raw: unknown, requestId: string): FitroomError {
  if (isFitroomError(raw)) return raw;
  const e = raw as { status?: number; type?: string; message?: string; expose?: boolean };
  if (e?.status === 413 || e?.type === 'entity.too.large') return new FitroomError('PAYLOAD_TOO_LARGE', 'The request body is too large');
  if (e?.type === 'entity.parse.failed' || (e?.status === 400 && /json/i.test(e.message ?? ''))) return validationError([{ field: '(body)', message: 'is not valid JSON' }], 'Malformed JSON body');
  if (e?.status === 415) return new FitroomError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type');
  if (e?.status === 400 && e.expose) return validationError([{ field: '(body)', message: e.message ?? 'is invalid' }]);
  console.error(`[http] ${requestId} unexpected error:`, raw);
  return new FitroomError('INTERNAL_ERROR', `Internal server error (request ${requestId})`);
}

function operationMiddleware(op: Operation, deps: HttpDeps, defaultMaxJson: number, devMultiplier: number) {
  const { kernel } = deps;
  const jsonParser = bodyParser({ enableTypes: ['json'], jsonLimit: op.maxBodyBytes ?? defaultMaxJson, encoding: 'utf-8', jsonStrict: true });
  return async (ctx: RouterContext<State>) => {
    const headers = ctx.headers as Record<string, string | undefined>;
    const query: Record<string, string> = {};
    for (const [k, v] of Object.entries(ctx.query)) if (typeof v === 'string') query[k] = v;
    else if (Array.isArray(v) && v.length) query[k] = v[v.length - 1];

    // 1. Authenticate in the operation's declared order.
    const authReq: AuthRequest = { headers, query, cookie: (n) => ctx.cookies.get(n), ip: ctx.ip, operationId: op.id };
    let caller: Caller | null = null;
    let scheme = op.auth[0];
    let resolver: AuthResolver | undefined;
    let resolved = false;
    for (const s of op.auth) {
      if (s === 'none') continue;
      const r = kernel.authResolvers.get(s);
      if (!r) continue;
      const out = await r.resolve(authReq);
      if (out) {
        caller = out.caller;
        scheme = s;
        resolver = r;
        resolved = true;
        break;
      }
    }
    if (!resolved) {
      if (op.auth.includes('none')) scheme = 'none';
      else throw kernel.authResolvers.get(op.auth[0])?.missing() ?? new FitroomError('HTTP_ERROR', 'Missing credentials');
    }

    // 2. Rate limit per credential, or per client address for anonymous calls.
    if (op.rateLimit) {
      const dev = caller?.development || isLoopback(ctx.ip);
      const limit = RATE_LIMITS[op.rateLimit] * (dev ? devMultiplier : 1);
      const key = `${op.rateLimit}:${caller ? caller.ownerHash : `ip:${ctx.ip}`}`;
      const d = await deps.rateLimiter.consume(key, limit, 60);
      ctx.set('X-RateLimit-Limit', String(d.limit));
      ctx.set('X-RateLimit-Remaining', String(d.remaining));
      ctx.set('X-RateLimit-Reset', String(d.resetAt));
      if (!d.allowed) {
        ctx.set('Retry-After', String(Math.max(1, d.resetAt - Math.floor(Date.now() / 1000))));
        throw new FitroomError('RATE_LIMITED', `Rate limit of ${d.limit} requests per minute exceeded`);
      }
    }

    // 3. Parameters, body or upload, validated with the published schemas.
    const details = [];
    for (const [name, schema] of Object.entries(op.params ?? {})) details.push(...kernel.validator.errors(schema, ctx.params[name], name));
    for (const [name, q] of Object.entries(op.query ?? {})) {
      if (query[name] === undefined) {
        if (q.required) details.push({ field: name, message: 'is required' });
      } else details.push(...kernel.validator.errors(q.schema, query[name], name));
    }
    if (details.length) throw validationError(details);

    let body: unknown = undefined;
    let upload: UploadedFile | undefined;
    if (op.upload) {
      upload = await receiveUpload(ctx, op, deps.blobs);
      body = upload.fields;
    } else if (op.body) {
      if (ctx.request.length === 0 || !ctx.request.type) body = undefined;
      else if (!ctx.is('application/json', '+json')) throw new FitroomError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json');
      else {
        await jsonParser(ctx as never, async () => undefined);
        body = (ctx.request as unknown as { body: unknown }).body;
      }
      kernel.validator.assert(op.body, body ?? null);
    }

    const context: OperationContext = {
      params: { ...ctx.params },
      query,
      body,
      caller,
      authScheme: scheme,
      headers,
      upload,
      ip: ctx.ip,
      baseUrl: (deps.host === 'ar' ? kernel.config.arPublicUrl : kernel.config.publicUrl) ?? `${ctx.protocol}://${ctx.host}`,
      requestId: ctx.state.requestId,
    };
    const result = await op.handler(context);
    if (caller && resolver?.onSuccess) await resolver.onSuccess(caller, op);

    ctx.set('X-Content-Type-Options', 'nosniff');
    for (const [k, v] of Object.entries(result.headers ?? {})) ctx.set(k, v);
    ctx.status = result.status ?? 200;
    if (result.file) {
      ctx.type = result.file.contentType;
      if (result.file.size !== undefined) ctx.length = result.file.size;
      if (result.file.filename) ctx.attachment(result.file.filename, { type: 'inline' });
      ctx.body = result.file.stream ?? Buffer.from(result.file.bytes ?? new Uint8Array());
    } else if (result.text) {
      ctx.type = result.text.contentType;
      ctx.body = result.text.body;
    } else if (result.body !== undefined) {
      ctx.body = result.body;
    } else if (ctx.status === 200) {
      ctx.status = 204;
    }
  };
}

/** Streams a multipart upload's file part into the blob store, enforcing the size limit while reading. */
async function receiveUpload(ctx: Koa.Context, op: Operation, blobs: BlobStore): Promise<UploadedFile> {
  const spec = op.upload!;
  const missing = () => new FitroomError(spec.missing?.code ?? 'VALIDATION_ERROR', spec.missing?.code === 'no_file' ? 'No file was uploaded' : `${spec.field} is required`, { status: spec.missing?.status, details: spec.missing?.code === 'no_file' ? undefined : [{ field: spec.field, message: 'is required' }] });
  const tooLarge = () => new FitroomError(spec.tooLarge?.code ?? 'PAYLOAD_TOO_LARGE', `The file is larger than ${spec.maxBytes} bytes`, { status: spec.tooLarge?.status });
  if (!ctx.is('multipart/form-data')) {
    if (ctx.request.length) throw new FitroomError('UNSUPPORTED_MEDIA_TYPE', 'Send the file as multipart/form-data');
    throw missing();
  }
  const declared = Number(ctx.get('content-length'));
  if (Number.isFinite(declared) && declared > spec.maxBytes + 1024 * 1024) {
    ctx.req.resume();
    throw tooLarge();
  }
  return await new Promise<UploadedFile>((resolve, reject) => {
    const fields: Record<string, string> = {};
    let file: Promise<UploadedFile> | null = null;
    let failed: Error | null = null;
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: ctx.req.headers, limits: { files: 1, fields: 20, fieldSize: 64 * 1024, parts: 30 } });
    } catch {
      reject(new FitroomError('VALIDATION_ERROR', 'Malformed multipart body', { details: [{ field: '(body)', message: 'is not valid multipart/form-data' }] }));
      return;
    }
    bb.on('field', (name, value) => {
      fields[name] = value;
    });
    bb.on('file', (name, stream, info) => {
      if (name !== spec.field || file) {
        stream.resume();
        return;
      }
      const key = `uploads/${randomUUID()}`;
      file = blobs
        .putStream(key, stream, info.mimeType, spec.maxBytes)
        .then((size) => ({ blobKey: key, size, filename: info.filename ?? 'upload', contentType: info.mimeType, fields }))
        .catch((e) => {
          failed = e instanceof BlobTooLargeError ? tooLarge() : e;
          stream.resume();
          throw failed;
        });
      file.catch(() => undefined);
    });
    bb.on('error', () => reject(new FitroomError('VALIDATION_ERROR', 'Malformed multipart body', { details: [{ field: '(body)', message: 'is not valid multipart/form-data' }] })));
    bb.on('close', () => {
      if (!file) return reject(failed ?? missing());
      file.then(async (f) => {
        if (f.size === 0) {
          await blobs.delete(f.blobKey);
          return reject(missing());
        }
        resolve(f);
      }, reject);
    });
    ctx.req.pipe(bb);
  });
}

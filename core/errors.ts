import { BlobStoreUnavailableError } from './ports/blob-store.ts';

/**
 * The one error type of the domain. `code` is a closed set: the spec's error codes plus the few the
 * spec leaves to us. Connectors map codes to transport status codes with `statusFor`.
 */
export const ERROR_CODES = {
  VALIDATION_ERROR: 400,
  HTTP_ERROR: 401,
  ACCOUNT_TOKEN_INVALID: 401,
  FORBIDDEN: 403,
  /** A browser-protected request with neither a valid X-Challenge-Token nor a pass cookie. */
  BOT_VERIFICATION_REQUIRED: 403,
  /** A valid credential sent where its kind is not accepted (a storefront token on another route). */
  CREDENTIAL_NOT_ALLOWED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  JOB_NOT_CANCELLABLE: 409,
  BATCH_NOT_CANCELLABLE: 409,
  PAYLOAD_TOO_LARGE: 413,
  /** A Range header that starts past the end of the file. */
  RANGE_NOT_SATISFIABLE: 416,
  /** Product discovery: nothing matching on the shop's site (within the budgets). */
  PRODUCT_NOT_FOUND: 404,
  /** Product discovery: the product was found, but none of its images is a packshot. */
  NO_PACKSHOTS: 422,
  /** Product discovery: the shop cannot be fetched (private address, DNS, refused, redirect loop, too large). */
  SITE_UNREACHABLE: 422,
  /** Product discovery: the shop's robots.txt disallows the page. */
  ROBOTS_DISALLOWED: 422,
  /** Product discovery: the time budget ran out first. */
  DISCOVERY_TIMEOUT: 422,
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** The input needs more CPU time than one request may use (its worker thread was stopped): send a smaller one. */
  PROCESSING_TIMEOUT: 422,
  INPUT_REFERENCE_LIMIT: 422,
  QUOTA_EXCEEDED: 429,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  ADMIN_NOT_CONFIGURED: 503,
  SERVICE_UNAVAILABLE: 503,
  /** The database cannot be reached right now; retry shortly (Retry-After). */
  DATABASE_UNAVAILABLE: 503,
  /** The blob store (files, images, models) cannot be reached or did not answer in time; retry shortly. */
  STORAGE_UNAVAILABLE: 503,
  /** A commerce platform (Shopify) refused or failed a call; the message says what it answered. */
  PLATFORM_ERROR: 502,
  /** The platform no longer accepts the shop's access token: the merchant reinstalls or reopens the app. */
  PLATFORM_REAUTH_REQUIRED: 401,
  // AR host codes (spec: AR upload errors)
  no_file: 400,
  file_too_large: 400,
  unauthorized: 401,
  invalid_api_key: 401,
  // Job failure codes (reported in a failed job's error, not as HTTP statuses)
  IMAGE_FETCH_FAILED: 422,
  IMAGE_INVALID: 422,
  /** A person photo with nobody in it (a product photo in a person slot, an empty scene). */
  PERSON_NOT_FOUND: 422,
  /** A person photo with more than one person. */
  MULTIPLE_PEOPLE: 422,
  /** The person is cut off where the garment goes (only a head, no hips for trousers, no feet for shoes). */
  PERSON_INCOMPLETE: 422,
  /** A garment slot holding a photo of a person rather than the garment's packshot. */
  PERSON_IN_GARMENT_SLOT: 422,
  /** The engine's quality gate refused its own result (a fold-over, the old garment left, too little covered); the message names the check. */
  RESULT_UNRELIABLE: 422,
  attribution_unavailable: 503,
  invalid_user_id: 400,
  attribution_conflict: 409,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * The codes a failed job carries in `errorCode`, with what each means: the Job schema's `errorCode`
 * enum and its documentation are built from this table, and the job runner reports no other code
 * (`jobErrorCode`). test/core/job-error-codes.test.ts derives the codes the code run by jobs raises
 * and checks that this table holds each of them and nothing else. Vendor failures add
 * `PROVIDER_ACCOUNT` and `MODEL_UNAVAILABLE`.
 */
export const JOB_ERROR_CODES = {
  IMAGE_FETCH_FAILED: 'an input URL could not be fetched',
  IMAGE_INVALID: 'an input is not a usable image, or no product could be found in it',
  PERSON_NOT_FOUND: 'a person photo with nobody in it (for example a product photo in a person field)',
  MULTIPLE_PEOPLE: 'a person photo with more than one person',
  PERSON_INCOMPLETE: 'the person is cut off where the garment goes (no hips for a top, no knees for trousers or a dress, no feet for shoes)',
  PERSON_IN_GARMENT_SLOT: 'a garment field holding a photo of a person rather than the garment',
  VALIDATION_ERROR: 'an input rule checked while running',
  INPUT_REFERENCE_LIMIT: 'a pinned model takes fewer reference images than the call sends',
  QUOTA_EXCEEDED: 'the account\'s AI quota is used up',
  SERVICE_UNAVAILABLE: 'no backend can do this task',
  RESULT_UNRELIABLE: 'the builtin try-on engine checked its own result and refused it, and no later model in the chain succeeded; `error` names the check (the warp folds over or is stretched beyond its bound, the new garment covers too little of the torso, the old garment still shows, or too much skin or background had to be synthesised) with its value and bound',
  PROVIDER_ACCOUNT: 'an AI vendor refused the deployment\'s key or credits (the operator acts)',
  MODEL_UNAVAILABLE: 'the configured AI model does not exist or was retired',
  PLATFORM_ERROR: 'a commerce platform refused a call',
  PLATFORM_REAUTH_REQUIRED: 'the platform no longer accepts the shop\'s token',
  attribution_unavailable: 'shoe-3d upload: ownership could not be checked (temporary; retry)',
  invalid_user_id: 'shoe-3d upload: fix the owner id and resubmit',
  attribution_conflict: 'shoe-3d upload: use one ownership method',
  file_too_large: 'shoe-3d upload: the GLB is above 20 MB after compression',
  STORAGE_UNAVAILABLE: 'the file store could not be reached (temporary; retrying may help)',
  PROCESSING_TIMEOUT: 'an input needed more CPU time than one task may use (CPU_BUDGET_MS); send a smaller one',
  NOT_FOUND: 'something the job needs is gone: the digital twin expired or was deleted, the generated model expired, or the Shopify model no longer waits to be attached',
  CONFLICT: 'the shop uninstalled Fitroom before its 3D model was attached',
  CANCELLED: 'the submitter cancelled the job (its status is then `failed` with `cancelled: true`)',
  INTERNAL_ERROR: 'unexpected; retrying may help',
} as const satisfies Record<string, string>;

export type JobErrorCode = keyof typeof JOB_ERROR_CODES;

/**
 * The `errorCode` a job that failed with `err` reports: the error's own code when the table above
 * lists it; STORAGE_UNAVAILABLE for a file store that could not be reached (as a request is told);
 * else INTERNAL_ERROR (a library's or the system's code, say ECONNRESET, means nothing to a client;
 * the log keeps it).
 */
export function jobErrorCode(err: unknown): JobErrorCode {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && Object.hasOwn(JOB_ERROR_CODES, code)) return code as JobErrorCode;
  for (let c = err, depth = 0; c && depth < 5; c = (c as { cause?: unknown }).cause, depth++) if (c instanceof BlobStoreUnavailableError) return 'STORAGE_UNAVAILABLE';
  return 'INTERNAL_ERROR';
}

export interface ErrorDetail {
  field: string;
  message: string;
}

export class FitroomError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  /** Overrides the code's default status where the spec asks for another (e.g. 413 on AR uploads is 400). */
  readonly status: number;
  /** Whether a job failing with this error may succeed when retried. */
  readonly retryable: boolean;
  /** Seconds after which a retry may succeed (the Retry-After header of 429 and 503 answers). */
  readonly retryAfterSeconds: number | undefined;
  constructor(code: ErrorCode, message: string, opts: { details?: ErrorDetail[]; status?: number; retryable?: boolean; retryAfterSeconds?: number; cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.name = 'FitroomError';
    this.code = code;
    this.details = opts.details;
    this.status = opts.status ?? ERROR_CODES[code];
    this.retryable = opts.retryable ?? false;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

export function validationError(details: ErrorDetail[], message = 'The request is invalid'): FitroomError {
  return new FitroomError('VALIDATION_ERROR', message, { details });
}

export function notFound(message = 'Not found'): FitroomError {
  return new FitroomError('NOT_FOUND', message);
}

export function isFitroomError(e: unknown): e is FitroomError {
  return e instanceof FitroomError;
}

/** The spec's error envelope. */
export interface ErrorEnvelope {
  success: false;
  error: { code: string; message: string; details?: ErrorDetail[] };
}

export function envelope(e: FitroomError): ErrorEnvelope {
  return { success: false, error: { code: e.code, message: e.message, ...(e.details?.length ? { details: e.details } : {}) } };
}

/** One problem in a request body, as the spec's VALIDATION_ERROR details report it (the kernel's ErrorDetail). */
export type { ErrorDetail as ValidationDetail } from '../errors.ts';

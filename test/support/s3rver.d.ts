// The few parts of @20minutes/s3rver (which ships no types) that the tests use.
declare module '@20minutes/s3rver' {
  interface S3rverOptions {
    port?: number;
    address?: string;
    silent?: boolean;
    directory?: string;
    configureBuckets?: { name: string }[];
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<import('node:net').AddressInfo | string | null>;
    close(): Promise<void>;
  }
}

import { token } from './plugin.ts';
import type { VendorDiscoveryService } from './vendor-discovery.ts';
import type { VendorStatus } from './vendor-status.ts';
import type { FitroomConfig } from './config.ts';
import type { JobStore } from './ports/job-store.ts';
import type { CredentialStore } from './ports/credential-store.ts';
import type { FileStore } from './ports/file-store.ts';
import type { WebhookStore } from './ports/webhook-store.ts';
import type { BlobStore } from './ports/blob-store.ts';
import type { OutboundHttp } from './ports/outbound-http.ts';
import type { ImageCodec } from './ports/image-codec.ts';
import type { RateLimiter } from './ports/rate-limiter.ts';
import type { QueueProbe } from './ports/queue-probe.ts';
import type { ImageModelProvider } from './ports/image-model.ts';
import type { ProductReconstructor } from './ports/product-reconstructor.ts';
import type { JobService } from './jobs.ts';
import type { CredentialService } from './credentials.ts';
import type { FileService } from './files.ts';
import type { ImageLoader } from './image-loader.ts';
import type { Kernel } from './kernel.ts';
import type { BotVerification } from './bot-verification.ts';
import type { ChallengeReplayStore } from './ports/challenge-replay-store.ts';

/** Tokens of the ports and services the kernel binds. Plugins define tokens for their own ports. */
export const TOKENS = {
  config: token<FitroomConfig>('Config'),
  kernel: token<Kernel>('Kernel'),
  jobStore: token<JobStore>('JobStore'),
  credentialStore: token<CredentialStore>('CredentialStore'),
  fileStore: token<FileStore>('FileStore'),
  webhookStore: token<WebhookStore>('WebhookStore'),
  blobStore: token<BlobStore>('BlobStore'),
  outboundHttp: token<OutboundHttp>('OutboundHttp'),
  imageCodec: token<ImageCodec>('ImageCodec'),
  rateLimiter: token<RateLimiter>('RateLimiter'),
  queueProbe: token<QueueProbe>('QueueProbe'),
  /** Image model providers with credentials configured (builtin always present). */
  imageModels: token<ImageModelProvider[]>('ImageModelProviders'),
  /** The live check of the AI vendors (bound when the composition root registers the providers). */
  vendorStatus: token<VendorStatus>('VendorStatus'),
  vendorDiscovery: token<VendorDiscoveryService>('VendorDiscovery'),
  /** Product reconstructors, the configured one first. */
  reconstructors: token<ProductReconstructor[]>('ProductReconstructors'),
  jobs: token<JobService>('JobService'),
  credentials: token<CredentialService>('CredentialService'),
  files: token<FileService>('FileService'),
  images: token<ImageLoader>('ImageLoader'),
  /** Secret for signed URLs and session cookies, shared by all processes (stored in the database). */
  signingSecret: token<string>('SigningSecret'),
  /** Bot verification of browser-protected requests; unbound when BOT_VERIFIER=off. */
  botCheck: token<BotVerification>('BotVerification'),
  challengeReplay: token<ChallengeReplayStore>('ChallengeReplayStore'),
};

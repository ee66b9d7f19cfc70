# Verdict for a team: one image for the web server, the live-runner workers, the migration step, the CLI and the
# optional browser server; each is a different command (deploy/docker-compose.yml, README "Deploy for a team").
#
#   docker build -t verdict .
#   docker run --rm verdict npm run cli -- --help
#
# Debian bookworm for Node 20 and Debian's chromium, the browser the runner drives (CHROMIUM_PATH below is the
# configuration's default, /usr/bin/chromium). tests/unit/deploy-compose.test.ts reads this file.

# ---- build: npm packages (native ones compiled here when no prebuilt binary fits) and the Next.js build ----
FROM node:20-bookworm-slim AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# `npm install` (not `npm ci`): package-lock.json lists no entries for other platforms' optional packages (the
# Tailwind and Next native builds), which `npm ci` refuses; `npm install` still installs the locked versions.
# Development packages stay: the worker, the CLI and the migration step run TypeScript through tsx.
RUN npm install --no-audit --no-fund \
 && npm cache clean --force
COPY . .
ENV NEXT_TELEMETRY_DISABLED=1
# The build cache is only for rebuilding; it stays out of the image.
RUN npm run build \
 && rm -rf .next/cache

# ---- runtime ----
FROM node:20-bookworm-slim
# chromium for live runs and the demo recorder; fonts so pages render text (Latin, CJK, emoji) as agents see it.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      chromium fonts-dejavu-core fonts-liberation fonts-noto-cjk fonts-noto-color-emoji ca-certificates \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    CHROMIUM_PATH=/usr/bin/chromium \
    VERDICT_DATA_DIR=/data \
    PORT=3000
# A user of its own: Chromium keeps its sandbox only when it does not run as root.
RUN groupadd --system --gid 10001 verdict \
 && useradd --system --uid 10001 --gid verdict --home-dir /home/verdict --create-home --shell /usr/sbin/nologin verdict \
 && mkdir -p /data && chown verdict:verdict /data
WORKDIR /app
# The code belongs to root, so the processes cannot change it; only Next's runtime cache is theirs to write.
COPY --from=build /app /app
RUN mkdir /app/.next/cache && chown verdict:verdict /app/.next/cache
USER verdict
EXPOSE 3000
# The web server; workers run `node --import tsx scripts/run-worker.ts` (`npm run worker`), the migration step
# `npm run cli -- migrate`.
CMD ["node_modules/.bin/next", "start", "-H", "0.0.0.0"]

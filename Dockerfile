# Platen from this repository: docker build -t platen .
# Embedded:  docker run -p 3000:3000 -v platen-data:/var/lib/platen platen
# Cluster:   docker run --env-file platen.env -e PLATEN_ROLE=api|worker -p 3000:3000 platen
# (docs/deploy.md). Plain on purpose: two stages, no build arguments.

FROM node:20-bookworm-slim AS build
# Compilers for better-sqlite3 when no prebuilt binary fits the platform.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/platen
COPY . .
# npm ci runs `prepare`, which bundles the template studio (studio/dist) with the dev tools;
# then the dev tools go.
RUN npm ci && npm prune --omit=dev && npm cache clean --force

FROM node:20-bookworm-slim
# glibc's allocator with two arenas, trimmed sooner: less memory kept per thread (docs/deploy.md, Memory).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    PLATEN_DATA_DIR=/var/lib/platen \
    MALLOC_ARENA_MAX=2 \
    MALLOC_TRIM_THRESHOLD_=131072 \
    MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /opt/platen
COPY --from=build /opt/platen /opt/platen
RUN mkdir -p /var/lib/platen && chown node:node /var/lib/platen
USER node
VOLUME ["/var/lib/platen"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# The role comes from PLATEN_ROLE (all by default); SIGTERM drains the process.
CMD ["node", "--import", "tsx", "src/cli.ts", "serve"]

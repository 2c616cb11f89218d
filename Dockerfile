# syntax=docker/dockerfile:1
# Lectern's HTTP server. The build and start steps live in scripts/docker-steps.sh, which a test
# also runs outside Docker (packages/server/test/docker-steps.test.ts).
#
#   docker build -t lectern .
#   docker run -p 3000:3000 -v lectern-data:/data -v "$PWD/docs:/docs:ro" -e LECTERN_DOCS_DIR=/docs lectern
ARG NODE_VERSION=20

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /src
# npm 11.19+ reads the project's allowScripts (only esbuild's install script runs); the project
# .npmrc stops an older npm (engine-strict with package.json's engines).
RUN npm install --global npm@11 --no-audit --no-fund
# Dependencies first, so that a change to the sources does not install them again.
COPY package.json package-lock.json .npmrc ./
COPY packages/protocol/package.json packages/protocol/
COPY packages/engine/package.json packages/engine/
COPY packages/server/package.json packages/server/
COPY packages/widget/package.json packages/widget/
COPY packages/docusaurus-plugin/package.json packages/docusaurus-plugin/
COPY scripts/docker-steps.sh scripts/
RUN scripts/docker-steps.sh install
COPY . .
RUN scripts/docker-steps.sh build /app

FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    LECTERN_DATA_DIR=/data
COPY --from=build /app /app
COPY --from=build /src/scripts/docker-steps.sh /app/docker-steps.sh
# The image's own user (uid 1000, "node") owns the data directory; nothing else is writable.
RUN mkdir -p /data && chown node:node /data
USER node
WORKDIR /app
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --retries=3 \
  CMD ["/app/docker-steps.sh", "health"]
ENTRYPOINT ["/app/docker-steps.sh", "start", "/app"]

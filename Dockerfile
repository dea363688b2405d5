# meshdoctor as an image built from this checkout: the CronJob in deploy/cronjob.yaml runs only the
# code you built (no package is fetched at run time). Build, push to your registry, pin by digest:
#
#   docker build -t REGISTRY/meshdoctor:0.1.0 .
#   docker push REGISTRY/meshdoctor:0.1.0        # prints the digest: sha256:...
#   # then set image: REGISTRY/meshdoctor@sha256:... in deploy/cronjob.yaml
#
# The base image is pinned by digest (a tag can move; a digest names one image): node:20-bookworm-slim
# (Node 20.19.6, Debian bookworm; the multi-platform index digest as docker-library/repo-info
# repos/node/remote/20-bookworm-slim.md recorded it on 2025-12-30; node:20-slim named the same
# image until the official images moved to Debian trixie). To move to a newer one:
# `docker buildx imagetools inspect node:20-bookworm-slim` prints its digest; test/pinned.test.ts
# fails on a reference without one.
ARG NODE_IMAGE=node:20-bookworm-slim@sha256:580bf06e6702f536cc9fc4c9e7c8a58154e192c0f8d5913adef53fe8b8ece902

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# Exactly the lockfile's dependencies (checked against their integrity hashes), no install scripts.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
# Without @kubernetes/client-node (an optional peer of the package, a dev dependency here: 72 of
# 76 MB): in a cluster meshdoctor reads with its ServiceAccount's token; only auth providers such
# as oidc and socks proxies need the client (docs/install.md).
RUN npm run build && npm prune --omit=dev --omit=optional --ignore-scripts

FROM ${NODE_IMAGE}
WORKDIR /app
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY schema ./schema
COPY docs ./docs
ENV NODE_ENV=production NO_COLOR=1
# The node images' unprivileged user (uid 1000), as deploy/cronjob.yaml's securityContext expects.
USER 1000:1000
ENTRYPOINT ["node", "/app/bin/meshdoctor.js"]
CMD ["check", "-A", "-o", "json", "--fail-on", "none", "--no-secrets"]

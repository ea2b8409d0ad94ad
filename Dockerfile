# The service on the official Node.js 24 LTS image, compiled (npm run build) and run with the
# image's own Node. Build: docker build -t credential-service .  Run: see README, "Docker".
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The workspaces (npm ci needs them); prepare builds the web console into packages/console/dist
# (and would build the service, whose sources come next).
COPY packages ./packages
COPY scripts/build-console.ts scripts/build-server.ts ./scripts/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# tsc into dist/, with the JSON-LD contexts and the template a new /data's database starts from.
RUN npm run build

FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
COPY --from=build /app/packages ./packages
COPY scripts/build-console.ts scripts/build-server.ts ./scripts/
# The node-<platform> package is how npm ci brings Node 24 to machines without it; the image has it.
RUN npm ci --omit=dev --no-audit --no-fund && rm -rf node_modules/node-linux-* node_modules/.bin/node
COPY --from=build /app/dist ./dist
COPY contracts ./contracts
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
VOLUME ["/data"]
# main.js checks the Node.js version, then starts the server.
CMD ["node", "dist/main.js"]

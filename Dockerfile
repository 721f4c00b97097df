# Switchyard in one image: console (3000) and xDS (18000). Uses DATABASE_URL (see docker-compose.yml).
# It listens on all interfaces, so it refuses to start unless proxies authenticate on the xDS port
# (SWITCHYARD_XDS_AUTH=token with SWITCHYARD_XDS_CREDENTIALS, or mtls; README, "Security"), or it
# is told the network is trusted (SWITCHYARD_INSECURE=true). Secrets are never served to
# proxies that do not authenticate.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
COPY . .
RUN npm ci --no-audit --no-fund && npm run build
ENV SWITCHYARD_HOST=0.0.0.0
EXPOSE 3000 18000
CMD ["node", "packages/cli/bin/switchyard.js", "serve"]

# Switchyard in one image: console (3000) and xDS (18000). Uses DATABASE_URL (see docker-compose.yml).
FROM node:20-bookworm-slim
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
COPY . .
RUN npm ci --no-audit --no-fund && npm run build
ENV SWITCHYARD_HOST=0.0.0.0
EXPOSE 3000 18000
CMD ["node", "packages/server/bin/switchyard.js", "serve"]

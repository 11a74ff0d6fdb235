# The service on the official Bun image: TypeScript runs directly, no build step.
FROM oven/bun:1.4.5-slim

WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data

COPY package.json package-lock.json ./
# The runtime is the image's own Bun; dev dependencies (bun, drizzle-kit, typescript) stay out.
RUN bun install --production --ignore-scripts && rm -rf /root/.bun/install/cache

COPY src ./src
COPY db ./db

RUN mkdir -p /data && chown bun:bun /data
USER bun
EXPOSE 8080
CMD ["bun", "src/main.ts"]

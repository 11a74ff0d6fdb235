/**
 * The server runs as it is deployed (the Dockerfile sets NODE_ENV=production)
 * however it is started: libraries read NODE_ENV as they load, and outside
 * production Elysia builds an example of the whole body schema and a
 * pretty-printed message for every refused body (we answer with our own
 * FastAPI-style detail and never show it): more than half the CPU of a 422.
 * main.ts imports this first, so it runs before any of them loads; an
 * operator's own NODE_ENV wins.
 */
process.env.NODE_ENV ??= "production";

/**
 * The test run's own settings. CI sets TEST_DATABASE_URL and TEST_REDIS_URL
 * for the real-services pass; without them those tests skip by name.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined;
export const backendName = `${TEST_DATABASE_URL ? "postgres" : "pglite"} + ${TEST_REDIS_URL ? "redis" : "memory"}`;

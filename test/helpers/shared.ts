/**
 * The team's shared folder (SPEC.md, test data): beside the checkout by
 * default; SHARED_DIR names it when the checkout is elsewhere (.ci/run sets
 * it for a clone made away from the original).
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const SHARED_DIR = process.env.SHARED_DIR || fileURLToPath(new URL("../../../shared/", import.meta.url));

export const sharedPath = (...parts: string[]) => join(SHARED_DIR, ...parts);

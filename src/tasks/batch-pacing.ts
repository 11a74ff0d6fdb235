/**
 * A batch is paced by its plan's limit rather than refused: each of its
 * tasks takes a token from the account's research bucket (the one its
 * calls spend, limits/admission.ts) when it is about to run. A task refused
 * waits in the queue until the limiter says a token is back, unclaimed and
 * with no attempt counted, and comes back at about its turn: a Free
 * account's batch of 100 runs at its 10 calls a minute. A single task does not take one here: its create call
 * already did.
 */
import { accountCaller } from "../accounts/account-caller.ts";
import { getAccount } from "../accounts/queries.ts";
import type { Database } from "../../db/client.ts";
import { researchAllowance } from "../limits/admission.ts";
import type { RateLimiter } from "../limits/limiter.ts";
import { queuedAhead } from "./batch-queries.ts";
import type { TaskRow } from "./queries.ts";

/** When the limiter itself cannot answer (closed during its store's outage): look again after this. */
const UNAVAILABLE_WAIT_SECONDS = 1;

/** Seconds the batch's task must wait before it may run; 0 when it may run now (its token taken). */
export type BatchPacer = (task: TaskRow) => Promise<number>;

export function batchPacer(deps: { db: Database; limiter: RateLimiter }): BatchPacer {
  return async (task) => {
    const account = await getAccount(deps.db, task.accountId);
    // A task whose account is gone runs (and fails as its call would): there is no bucket to wait on.
    if (!account) return 0;
    const { bucket, plan } = researchAllowance(accountCaller(account, task.keyId === null ? null : { id: task.keyId, prefix: null }));
    let retryAfterMs: number;
    try {
      const outcome = await deps.limiter.check(bucket, plan);
      if (outcome.allowed) return 0;
      retryAfterMs = outcome.retryAfterMs;
    } catch {
      return UNAVAILABLE_WAIT_SECONDS;
    }
    // Each waiting task comes back at about its own turn (the tasks before it take the tokens before it), not all at
    // the next token: a Free batch of 1,000 would otherwise ask the limiter, and the queue, hundreds of times a token.
    const ahead = await queuedAhead(deps.db, task.batchId!, task.batchIndex ?? 0);
    return Math.max(1, Math.ceil(retryAfterMs / 1000 + (ahead * 60) / plan.perMinute));
  };
}

/**
 * Owners who sign in: sign-up creates an account with an email and an
 * argon2id password hash (Bun.password); sign-in checks them, doing the same
 * work for an unknown email as for a wrong password so timing tells nothing;
 * either starts a session. Attempts are limited like calls, in buckets of
 * their own per client address (and per email for sign-in). The CLI sets a
 * password on an account made with `accounts create`.
 */
import type { Database } from "../../db/client.ts";
import { isUniqueViolation } from "../../db/client.ts";
import { conflict, invalid, InvalidInput, notFound, ServiceError, type ValidationIssue } from "../errors.ts";
import { waitWords } from "../wait-words.ts";
import { newId } from "../ids.ts";
import type { RateLimiter } from "../limits/limiter.ts";
import type { Plan } from "../limits/plans.ts";
import { sameHash } from "./keys.ts";
import * as q from "./queries.ts";
import type { AccountsContext } from "./context.ts";
import { endSession, findSession, startSession, type NewSession } from "./sessions.ts";
import { assertInGoodStanding } from "./standing.ts";

export interface SignInContext extends AccountsContext {
  limiter: RateLimiter;
  signupsPerMinute: number;
  signinsPerMinute: number;
  sessionLifetimeMs: number;
}

/** A signed-in owner: the account, and the session (its cookie token and CSRF token) when one was just started. */
export interface SignedIn {
  account: q.AccountRow;
  csrfToken: string;
  session?: NewSession;
}

export const MIN_PASSWORD = 10;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
// A real hash of a random password: verifying against it costs what a real check costs.
const DECOY = Bun.password.hash(crypto.randomUUID(), { algorithm: "argon2id" });

export function normalEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function checkCredentials(email: string, password: string): void {
  const issues: ValidationIssue[] = [];
  if (email.length > 254 || !EMAIL.test(email))
    issues.push({ loc: ["body", "email"], msg: "enter a valid email address", type: "value_error" });
  if ([...password].length < MIN_PASSWORD)
    issues.push({ loc: ["body", "password"], msg: `String should have at least ${MIN_PASSWORD} characters`, type: "string_too_short" });
  if (issues.length) throw new InvalidInput(issues);
}

async function createOwner(ctx: AccountsContext, input: { email: string; password: string; name?: string | null }): Promise<q.AccountRow> {
  const email = normalEmail(input.email);
  checkCredentials(email, input.password);
  const name = input.name?.trim() || email.split("@")[0]!;
  if (name.length > 200) throw invalid(["body", "name"], "String should have at most 200 characters", "string_too_long");
  const passwordHash = await Bun.password.hash(input.password, { algorithm: "argon2id" });
  try {
    return await q.insertAccount(ctx.db, { id: newId("acct"), name, email, passwordHash });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict("an account with this email already exists");
    throw error;
  }
}

/** The account when the email and password match; null otherwise (never which one was wrong). */
async function checkPassword(ctx: AccountsContext, input: { email: string; password: string }): Promise<q.AccountRow | null> {
  const account = await q.findAccountByEmail(ctx.db, normalEmail(input.email));
  const hash = account?.passwordHash ?? (await DECOY);
  const matches = await Bun.password.verify(input.password, hash).catch(() => false);
  return account?.passwordHash && matches ? account : null;
}

export async function setPassword(db: Database, accountId: string, email: string, password: string): Promise<q.AccountRow> {
  const normal = normalEmail(email);
  checkCredentials(normal, password);
  try {
    const account = await q.setCredentials(db, accountId, normal, await Bun.password.hash(password, { algorithm: "argon2id" }), new Date());
    if (!account) throw notFound("account");
    return account;
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict("another account already uses this email");
    throw error;
  }
}

// Sign-in attempts are limited like calls, in buckets of their own (never slowed by peak load).
const attempts = (perMinute: number): Plan => ({ name: "pro", label: "sign-in attempts", perMinute });

/** Spends one attempt from `bucket`, or throws the 429 with the wait. `meter` names the attempts in the limiter's metrics. */
export async function spendAttempt(
  ctx: SignInContext,
  bucket: string,
  perMinute: number,
  meter: "signin" | "signup" = "signin",
): Promise<void> {
  const outcome = await ctx.limiter.check(bucket, attempts(perMinute), meter);
  if (outcome.allowed) return;
  const seconds = Math.max(1, Math.ceil(outcome.retryAfterMs / 1000));
  throw new ServiceError("rate_limited", `too many sign-in attempts, try again in ${waitWords(seconds)}`, { retryAfterSeconds: seconds });
}

/** Starts a session, for an active account only: a suspended owner who proved who they are is told why (403), not let in. */
export async function begin(ctx: SignInContext, account: q.AccountRow): Promise<SignedIn> {
  assertInGoodStanding(account);
  const session = await startSession(ctx.db, ctx.clock, account.id, ctx.sessionLifetimeMs);
  return { account, csrfToken: session.csrfToken, session };
}

/** A new owner account, signed in. `clientAddress` keys the sign-up limit. */
export async function signUp(
  ctx: SignInContext,
  input: { email: string; password: string; name?: string | null },
  clientAddress: string,
): Promise<SignedIn> {
  await spendAttempt(ctx, `signup:${clientAddress}`, ctx.signupsPerMinute, "signup");
  return begin(ctx, await createOwner(ctx, input));
}

/** Signs in, or the 401; the attempt counts against the client's address and against the email. */
export async function signIn(ctx: SignInContext, input: { email: string; password: string }, clientAddress: string): Promise<SignedIn> {
  await spendAttempt(ctx, `signin:ip:${clientAddress}`, ctx.signinsPerMinute);
  await spendAttempt(ctx, `signin:email:${normalEmail(input.email)}`, Math.max(5, Math.floor(ctx.signinsPerMinute / 4)));
  const account = await checkPassword(ctx, input);
  if (!account) throw new ServiceError("unauthorized", "wrong email or password");
  return begin(ctx, account);
}

/** The owner behind a session cookie's token, or the 401; the 403 with its reason when the account is suspended or banned. */
export async function currentSession(ctx: AccountsContext, token: string | null): Promise<SignedIn> {
  const found = token ? await findSession(ctx, token) : null;
  if (!found) throw new ServiceError("unauthorized", "not signed in");
  assertInGoodStanding(found.account);
  return { account: found.account, csrfToken: found.session.csrfToken };
}

/** Ends the session. It needs the CSRF token too: another site must not be able to sign a user out. An unknown session is already out. */
export async function signOut(ctx: AccountsContext, token: string | null, csrf: string | null): Promise<void> {
  const found = token ? await findSession(ctx, token) : null;
  if (!found) return;
  if (!sameHash(csrf ?? "", found.session.csrfToken)) throw new ServiceError("unauthorized", "missing or invalid CSRF token");
  await endSession(ctx.db, token!);
}

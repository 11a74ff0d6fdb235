/**
 * One-time sign-in links: how the first start's `local` account (made
 * without an email or password) gets a dashboard sign-in without a CLI step.
 * A link is a random token valid for 15 minutes and for one use; only its
 * SHA-256 is stored. The token travels in the URL's fragment, which browsers
 * never send: it reaches no server log, proxy or Referer. The dashboard's
 * claim page reads it and posts it with the email and password to set.
 */
import { hash } from "node:crypto";
import { and, eq, gt, isNull } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { isUniqueViolation } from "../../db/client.ts";
import { signInLinks } from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import { conflict, notFound, ServiceError } from "../errors.ts";
import { newId } from "../ids.ts";
import * as q from "./queries.ts";
import type { AccountsContext } from "./context.ts";
import { assertInGoodStanding } from "./standing.ts";
import { begin, checkCredentials, normalEmail, spendAttempt, type SignedIn, type SignInContext } from "./sign-in.ts";

export const SIGN_IN_LINK_LIFETIME_MS = 15 * 60_000;
/** 32 random bytes in base64url. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface NewSignInLink {
  /** Shown once, in the link; never stored. */
  token: string;
  expiresAt: Date;
}

const tokenHash = (token: string) => hash("sha256", token, "hex");

/** The dashboard address that claims a link: the token after `#`, so the browser keeps it to itself. */
export function signInLinkUrl(baseUrl: string, token: string): string {
  return `${baseUrl}/dashboard/claim#${token}`;
}

/** A new link for an account known to exist (`db` may be the transaction that made it). */
export async function insertSignInLink(db: Database, clock: Clock, accountId: string): Promise<NewSignInLink> {
  const token = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  const now = clock.now();
  const expiresAt = new Date(now + SIGN_IN_LINK_LIFETIME_MS);
  await db.insert(signInLinks).values({ id: newId("link"), accountId, tokenHash: tokenHash(token), createdAt: new Date(now), expiresAt });
  return { token, expiresAt };
}

/** A fresh link for an account (the CLI's, for when the first start's link expired); earlier links stay as they were. */
export async function mintSignInLink(ctx: AccountsContext, accountId: string): Promise<NewSignInLink> {
  if (!(await q.getAccount(ctx.db, accountId))) throw notFound("account");
  return insertSignInLink(ctx.db, ctx.clock, accountId);
}

/** The operator's command for a new link to an account (`accountId` unknown: how to find it). */
export const newLinkCommand = (accountId: string) => `npm run cli -- accounts sign-in-link --account ${accountId}`;

/**
 * One answer for a used and an expired link: the caller learns nothing about
 * which. A link that was real names its account (`account_id`), so the page
 * can show the operator's command with the id filled in: only someone who had
 * the link (an unguessable token) learns it. A malformed or unknown token
 * names none.
 */
const refused = (accountId?: string) =>
  new ServiceError(
    "unauthorized",
    `this sign-in link is not valid: it was already used, has expired or is incomplete. If you already set your email and password with it, sign in with them; otherwise ask the operator for a new link, which they make with: ${
      accountId ? newLinkCommand(accountId) : `${newLinkCommand("<account id>")} (npm run cli -- accounts list shows the id)`
    }`,
    accountId ? { body: { account_id: accountId } } : {},
  );

/** The account of a link that exists, used or expired (for the refusal's words). */
async function linkAccount(db: Database, token: string): Promise<string | undefined> {
  const [link] = await db
    .select({ accountId: signInLinks.accountId })
    .from(signInLinks)
    .where(eq(signInLinks.tokenHash, tokenHash(token)))
    .limit(1);
  return link?.accountId;
}

/**
 * Spends the link, sets the account's email and password, and signs in. The
 * email and password are checked first, so a typo does not spend the link;
 * the link is marked used in one conditional statement (only if unused and
 * unexpired), and in the same transaction as the new credentials, so an
 * email another account uses (409), or an account that is not in good
 * standing (403), leaves it unspent too. Attempts count per
 * client address, like sign-in attempts.
 */
export async function claimSignInLink(
  ctx: SignInContext,
  input: { token: string; email: string; password: string },
  clientAddress: string,
): Promise<SignedIn> {
  await spendAttempt(ctx, `claim:ip:${clientAddress}`, ctx.signinsPerMinute);
  const email = normalEmail(input.email);
  checkCredentials(email, input.password);
  if (!TOKEN_SHAPE.test(input.token)) throw refused();
  const passwordHash = await Bun.password.hash(input.password, { algorithm: "argon2id" });
  const now = new Date(ctx.clock.now());
  const account = await ctx.db.transaction(async (tx) => {
    const db = tx as unknown as Database;
    const [link] = await db
      .update(signInLinks)
      .set({ usedAt: now })
      .where(and(eq(signInLinks.tokenHash, tokenHash(input.token)), isNull(signInLinks.usedAt), gt(signInLinks.expiresAt, now)))
      .returning({ accountId: signInLinks.accountId });
    if (!link) throw refused(await linkAccount(db, input.token));
    try {
      const updated = await q.setCredentials(db, link.accountId, email, passwordHash, now);
      if (!updated) throw refused(link.accountId);
      // A suspended or banned account is told why (403), and the rollback leaves its link and sign-in as they were.
      assertInGoodStanding(updated);
      return updated;
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict("another account already uses this email");
      throw error;
    }
  });
  return begin(ctx, account);
}

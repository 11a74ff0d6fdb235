/**
 * Owners who sign in: sign-up creates an account with an email and an
 * argon2id password hash (Bun.password); sign-in checks them, doing the same
 * work for an unknown email as for a wrong password so timing tells nothing;
 * the CLI sets a password on an account made with `accounts create`.
 */
import type { Database } from "../../db/client.ts";
import { isUniqueViolation } from "../../db/client.ts";
import * as q from "../accounts/queries.ts";
import type { AccountsContext } from "../accounts/service.ts";
import { conflict, invalid, InvalidInput, notFound, type ValidationIssue } from "../errors.ts";
import { newId } from "../ids.ts";

export const MIN_PASSWORD = 10;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
// A real hash of a random password: verifying against it costs what a real check costs.
const DECOY = Bun.password.hash(crypto.randomUUID(), { algorithm: "argon2id" });

export function normalEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function checkCredentials(email: string, password: string): void {
  const issues: ValidationIssue[] = [];
  if (email.length > 254 || !EMAIL.test(email)) issues.push({ loc: ["body", "email"], msg: "enter a valid email address", type: "value_error" });
  if ([...password].length < MIN_PASSWORD) issues.push({ loc: ["body", "password"], msg: `String should have at least ${MIN_PASSWORD} characters`, type: "string_too_short" });
  if (issues.length) throw new InvalidInput(issues);
}

export async function signUp(ctx: AccountsContext, input: { email: string; password: string; name?: string | null }): Promise<q.AccountRow> {
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
export async function signIn(ctx: AccountsContext, input: { email: string; password: string }): Promise<q.AccountRow | null> {
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

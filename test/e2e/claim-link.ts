/**
 * The e2e server starts like a first start: a `local` account with a
 * one-time sign-in link. The link goes through a file the browser tests
 * read (the server's output is Playwright's, not theirs); so does the
 * address of its webhook receiver.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";

export const claimLinkFile = (port: number) => join(tmpdir(), `e2e-claim-link-${port}.txt`);

/** The URL of the e2e server's loopback webhook receiver (it answers 200, and 500 at /refuse). */
export const webhookReceiverFile = (port: number) => join(tmpdir(), `e2e-webhook-receiver-${port}.txt`);

/** Prompts with this word take the search providers a few seconds: a task held running while the tests look. */
export const SLOW_WORD = "tortoise";

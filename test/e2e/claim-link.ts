/**
 * The e2e server starts like a first start: a `local` account with a
 * one-time sign-in link. The link goes through a file the browser tests
 * read (the server's output is Playwright's, not theirs).
 */
import { tmpdir } from "node:os";
import { join } from "node:path";

export const claimLinkFile = (port: number) => join(tmpdir(), `e2e-claim-link-${port}.txt`);

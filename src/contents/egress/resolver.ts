/**
 * Name resolution is a port so tests can inject answers (no real DNS in
 * tests) and so the fetch connects to exactly the addresses that were checked.
 */
import { lookup } from "node:dns/promises";

export interface Resolver {
  /** Every A and AAAA answer for the name. */
  resolve(hostname: string, signal: AbortSignal): Promise<string[]>;
}

export const systemResolver: Resolver = {
  async resolve(hostname, signal) {
    signal.throwIfAborted();
    const answers = lookup(hostname, { all: true, verbatim: true });
    const aborted = new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
    return (await Promise.race([answers, aborted])).map((a) => a.address);
  },
};

/** Fixed answers: for tests, and for operators who pin names. */
export class StaticResolver implements Resolver {
  constructor(private readonly answers: Record<string, string[]>) {}
  async resolve(hostname: string): Promise<string[]> {
    const found = this.answers[hostname.toLowerCase().replace(/\.$/, "")];
    if (!found) throw Object.assign(new Error(`no answer for ${hostname}`), { code: "ENOTFOUND" });
    return found;
  }
}

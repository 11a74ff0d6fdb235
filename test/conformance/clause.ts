/**
 * `clause(id, rule, fn)`: a conformance test named after the SPEC clause it
 * checks (`"4 · POST /v1/design-api/{api_id}/versions · 409 when another
 * draft exists"`). An id that is not a clause of the spec fails at once, so a
 * typo cannot inflate the count. When the run ends, the preload prints
 * `SPEC clauses covered: N/M` and the clauses no test names.
 */
import { test } from "bun:test";
import { specClauses, type Clause } from "./spec-clauses.ts";

let clauses: Clause[] | undefined;
const spec = () => (clauses ??= specClauses());

interface Coverage {
  covered: Set<string>;
}
const registry = ((globalThis as { __specCoverage?: Coverage }).__specCoverage ??= { covered: new Set() });

/** Called once after the whole run by the test preload (test/preload.ts); silent when no conformance test ran. */
export function reportCoverage(): void {
  if (registry.covered.size === 0) return;
  const all = spec();
  const missing = all.filter((c) => !registry.covered.has(c.id));
  console.log(`\nSPEC clauses covered: ${all.length - missing.length}/${all.length}`);
  for (const c of missing) console.log(`  not covered: ${c.id} (${c.text.slice(0, 80)})`);
}

export function clause(id: string, rule: string, fn: () => unknown | Promise<unknown>, timeoutMs?: number): void {
  if (!spec().some((c) => c.id === id)) throw new Error(`"${id}" is not a clause of SPEC.md (see test/conformance/spec-clauses.ts)`);
  registry.covered.add(id);
  test(`${id} · ${rule}`, fn as () => Promise<void>, timeoutMs);
}

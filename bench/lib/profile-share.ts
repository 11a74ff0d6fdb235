/**
 * Where a server's CPU went, from the profile Bun writes at exit (`--cpu-prof`, Chrome's .cpuprofile): the share of
 * its samples with a frame of a given part of the code on the stack (inclusive: what that code called counts too).
 * Read in one process, such a share moved by under a point from one run to the next, where a ratio of two servers
 * moves by several: it says what observability's own code costs, while the ratio says what the whole server pays. It
 * sees the JavaScript thread only: not the collector's garbage threads, nor the kernel's work for a write.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The parts of Chrome's profile format read here. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { url: string }; children?: number[] }[];
  /** The node on top of the stack at each sample. */
  samples: number[];
}

export interface ProfileShare {
  samples: number;
  /** By part's name: the fraction of samples (0 to 1) with one of its frames on the stack. */
  shares: Record<string, number>;
}

/** `parts`: a name for each, and the text its files' URLs hold (a folder, `/src/observe/`, or a file, `/src/log.ts`). */
export function profileShare(profile: CpuProfile, parts: Record<string, string>): ProfileShare {
  const parent = new Map<number, number>();
  const url = new Map<number, string>();
  for (const node of profile.nodes) {
    url.set(node.id, node.callFrame.url);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const names = Object.keys(parts);
  // Which parts each node's stack holds, worked out once per node: samples repeat a few thousand nodes.
  const within = new Map<number, boolean[]>();
  const partsOf = (id: number): boolean[] => {
    let found = within.get(id);
    if (found) return found;
    const above = parent.get(id);
    const inherited = above === undefined ? names.map(() => false) : partsOf(above);
    const here = url.get(id) ?? "";
    found = names.map((name, i) => inherited[i]! || here.includes(parts[name]!));
    within.set(id, found);
    return found;
  };
  const counts = names.map(() => 0);
  for (const id of profile.samples) partsOf(id).forEach((hit, i) => hit && counts[i]!++);
  const samples = profile.samples.length;
  return { samples, shares: Object.fromEntries(names.map((name, i) => [name, samples ? counts[i]! / samples : 0])) };
}

/** The profile a process wrote into `dir` (one process, one file), or undefined when there is none. */
export function readProfile(dir: string): CpuProfile | undefined {
  if (!existsSync(dir)) return undefined;
  const file = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"));
  return file === undefined ? undefined : (JSON.parse(readFileSync(join(dir, file), "utf8")) as CpuProfile);
}

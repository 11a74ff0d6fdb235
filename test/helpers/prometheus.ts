/** Reads Prometheus's text format as the metrics port writes it: its samples, and its metrics' declared types. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function samples(text: string): Sample[] {
  const found: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const match = LINE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? "").matchAll(LABEL)) labels[name!] = JSON.parse(`"${value}"`);
    found.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return found;
}

/** Every metric's name and type, from its `# TYPE` line (a metric with no sample yet has one too). */
export function types(text: string): Map<string, string> {
  return new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => [name!, type!]));
}

/** The sample of `name` with exactly these labels, or undefined. */
export function sample(all: Sample[], name: string, labels: Record<string, string> = {}): Sample | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  return all.find((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === wanted);
}

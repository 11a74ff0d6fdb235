import { expect } from "bun:test";

/** Every [n] names a context entry, and that entry's passages contain the cited sentence's words. */
export function expectGroundedCitations(body: { response: string; context: { id: number; metadata: { content: string } }[] }) {
  const ids = body.context.map((c) => c.id);
  expect(ids).toEqual(ids.map((_, i) => i + 1));
  const sentences = body.response.split(/(?<=\])\s+/).filter((s) => /\[\d+\]/.test(s));
  expect(sentences.length).toBeGreaterThan(0);
  for (const sentence of sentences) {
    const cited = [...sentence.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    const words =
      sentence
        .replace(/\[\d+\]/g, "")
        .toLowerCase()
        .match(/[\p{L}\p{N}]{4,}/gu) ?? [];
    for (const id of cited) {
      const entry = body.context.find((c) => c.id === id);
      expect(entry).toBeDefined();
      const content = entry!.metadata.content.toLowerCase();
      const supported = words.filter((w) => content.includes(w)).length;
      expect({ sentence, id, supported: supported >= Math.ceil(words.length * 0.8) }).toEqual({ sentence, id, supported: true });
    }
  }
}

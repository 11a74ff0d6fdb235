/**
 * Worker side of evaluation-runner.ts: extracts the pages it is sent and
 * posts back, per page, the segment counts of the text and markdown outputs
 * and the extraction time. Texts are posted only when asked (diagnostics),
 * to keep messages small.
 */
import { extractDocument } from "../../src/contents/extract/index.ts";
import { readEvalPage, scoreSegments, type EvalPage } from "./evaluation.ts";
import type { PageRequest, PageResult } from "./evaluation-runner.ts";

declare const self: Worker;

self.onmessage = async (event: MessageEvent<PageRequest>) => {
  const { dir, page, index, keepText } = event.data;
  const result = await extractEvalPage(dir, page, index, keepText);
  self.postMessage(result);
};

export async function extractEvalPage(dir: string, page: EvalPage, index: number, keepText: boolean): Promise<PageResult> {
  const body = readEvalPage(dir, page);
  const started = Bun.nanoseconds();
  let text = "";
  let markdown = "";
  let error: string | null = null;
  try {
    const document = await extractDocument({ body, contentType: "text/html", url: page.url });
    text = document.text;
    markdown = document.markdown;
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  const ms = (Bun.nanoseconds() - started) / 1e6;
  return {
    index,
    ms,
    error,
    text: scoreSegments(text, page),
    markdown: scoreSegments(markdown, page),
    output: keepText ? text : undefined,
  };
}

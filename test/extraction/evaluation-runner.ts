/**
 * Runs the extractor over the eval set, spread over Bun Workers (each page
 * is independent, and 990 pages on one thread take longer than a test
 * should). Used by the quality test and the benchmark.
 */
import { availableParallelism } from "node:os";
import { aggregateSegments, loadEvalSet, type EvalPage, type SegmentCounts, type SegmentScore } from "./evaluation.ts";

export interface PageRequest {
  dir: string;
  page: EvalPage;
  index: number;
  keepText: boolean;
}

export interface PageResult {
  index: number;
  /** Wall time of extractDocument for this page, in milliseconds. */
  ms: number;
  error: string | null;
  text: SegmentCounts;
  markdown: SegmentCounts;
  output?: string;
}

export interface EvalRun {
  pages: EvalPage[];
  results: PageResult[];
  text: SegmentScore;
  markdown: SegmentScore;
  wallMs: number;
}

export interface EvalRunOptions {
  workers?: number;
  /** Only the first N pages. */
  limit?: number;
  keepText?: boolean;
}

export async function runEvalSet(dataDir: string, options: EvalRunOptions = {}): Promise<EvalRun> {
  const { dir, pages: all } = loadEvalSet(dataDir);
  const pages = options.limit ? all.slice(0, options.limit) : all;
  const workerCount = Math.max(1, Math.min(options.workers ?? availableParallelism(), pages.length));
  const results: PageResult[] = new Array(pages.length);
  const started = performance.now();
  let next = 0;
  const workers = Array.from({ length: workerCount }, () => new Worker(new URL("./evaluation-worker.ts", import.meta.url).href));
  try {
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            const feed = () => {
              if (next >= pages.length) return resolve();
              const index = next++;
              worker.postMessage({ dir, page: pages[index]!, index, keepText: options.keepText ?? false } satisfies PageRequest);
            };
            worker.onmessage = (event: MessageEvent<PageResult>) => {
              results[event.data.index] = event.data;
              feed();
            };
            worker.onerror = (event) => reject(new Error(`evaluation worker failed: ${event.message}`));
            feed();
          }),
      ),
    );
  } finally {
    for (const worker of workers) worker.terminate();
  }
  return {
    pages,
    results,
    text: aggregateSegments(results.map((r) => r.text)),
    markdown: aggregateSegments(results.map((r) => r.markdown)),
    wallMs: performance.now() - started,
  };
}

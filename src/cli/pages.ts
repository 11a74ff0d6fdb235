/** Bulk reading: pages into the page cache and the local index, from a list or a sitemap. */
import { indexUrls, progressBar, sitemapUrls } from "../contents/bulk-index.ts";
import { systemResolver } from "../contents/egress/resolver.ts";
import { SafeFetch } from "../contents/egress/safe-fetch.ts";
import { ExtractionPool } from "../contents/extraction-pool.ts";
import { PageReads } from "../contents/page-reads.ts";
import { systemClock } from "../clock.ts";
import { createLogger } from "../log.ts";
import type { CliCommand } from "./command.ts";
import { number, UsageError } from "./flags.ts";

export const indexCommand: CliCommand = {
  name: "index",
  section: "Pages",
  usage: "index URL... [--sitemap URL] [--concurrency N] [--max-age SECONDS] [--limit N]",
  summary: ["read pages into the page cache and the local index"],
  operands: true,
  details: [
    "Reads every URL given, and up to `--limit` (default 1000) from the sitemap, through the same SSRF guard, extractor",
    "and page cache as `POST /v1/contents`, `--concurrency` (1 to 64, default 8) at a time. A page stored within the last",
    "`--max-age` seconds (default `CONTENTS_MAX_AGE_SECONDS`) counts as already cached; an older one is revalidated, and",
    "`--max-age 0` fetches every page again. Progress goes to standard error, with",
    "each failure named; the last line says `indexed N, already cached N, failed N of N` (`--json`: one JSON object",
    "`{total, indexed, cached, failed}`). The exit code is 1 when every page failed.",
  ].join("\n"),
  async run(cli) {
    const config = cli.config();
    const { db } = await cli.database();
    const urls = cli.args.filter(Boolean);
    const log = createLogger({ level: "warn", sink: (line) => process.stderr.write(`${line}\n`) });
    const fetcher = new SafeFetch(config.fetch, { resolver: systemResolver, log });
    const extractor = new ExtractionPool(config.extraction, log);
    const ctx = {
      db,
      fetcher,
      clock: systemClock,
      log,
      defaultMaxAgeSeconds: config.contentsMaxAgeSeconds,
      reads: new PageReads(),
      extractor,
    };
    const limit = number(cli.flags.limit, "--limit") ?? 1_000;
    if (cli.flags.sitemap) urls.push(...(await sitemapUrls(fetcher, cli.flags.sitemap, { limit })));
    if (urls.length === 0) throw new UsageError("give at least one URL or --sitemap URL");
    const concurrency = number(cli.flags.concurrency, "--concurrency") ?? 8;
    if (concurrency < 1 || concurrency > 64) throw new UsageError("--concurrency must be from 1 to 64");
    const tty = process.stderr.isTTY;
    const summary = await indexUrls(ctx, urls, {
      concurrency,
      maxAgeSeconds: number(cli.flags["max-age"], "--max-age"),
      onProgress: (p) => {
        if (tty) process.stderr.write(`\r${progressBar(p)}`);
        else if (p.done === p.total || p.done % 25 === 0) process.stderr.write(`${progressBar(p)}\n`);
      },
    });
    await extractor.close();
    if (tty) process.stderr.write("\n");
    for (const failure of summary.failures) process.stderr.write(`failed: ${failure.url} (${failure.error}: ${failure.detail})\n`);
    const line = { total: summary.total, indexed: summary.indexed, cached: summary.cached, failed: summary.failed };
    cli.out(
      cli.flags.json
        ? JSON.stringify(line)
        : `indexed ${line.indexed}, already cached ${line.cached}, failed ${line.failed} of ${line.total}`,
    );
    return summary.failed === summary.total ? 1 : 0;
  },
};

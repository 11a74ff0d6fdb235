/** One extraction worker: runs extractDocument off the server's event loop. */
import { ServiceError } from "../errors.ts";
import { extractDocument, type ExtractInput } from "./extract/index.ts";

declare const self: Worker;

// Imports are done by now: the pool starts a task's clock only once this arrives.
self.postMessage({ ready: true });

self.onmessage = async (event: MessageEvent<{ id: number; input: ExtractInput }>) => {
  const { id, input } = event.data;
  try {
    const document = await extractDocument(input);
    self.postMessage({ id, ok: true, document });
  } catch (error) {
    const ours = error instanceof ServiceError;
    const code = ours ? error.code : "extraction_failed";
    const message = ours ? error.message : "the page could not be extracted";
    // An extractor bug is the caller's 502 but our log line; a library's words behind one of our errors (pdf.js on a broken PDF) go to the log too.
    const origin = ours ? error.cause : error;
    const cause =
      origin === undefined
        ? undefined
        : { name: (origin as Error)?.name ?? "Error", message: String((origin as Error)?.message ?? origin).slice(0, 500) };
    self.postMessage({ id, ok: false, code, message, cause, bug: !ours });
  }
};

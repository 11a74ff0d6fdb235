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
    const code = error instanceof ServiceError ? error.code : "extraction_failed";
    const message = error instanceof ServiceError ? error.message : "the page could not be extracted";
    self.postMessage({ id, ok: false, code, message });
  }
};

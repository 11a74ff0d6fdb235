/**
 * Extraction is synchronous CPU work (tens of milliseconds for a page,
 * seconds for a huge one): done on the server's event loop it would stall
 * every other request. The pool runs it in worker threads, queues what
 * exceeds them, and replaces a worker that takes longer than the time limit
 * (the only way to stop synchronous work) so one pathological page cannot
 * hold a thread.
 *
 * Each worker is a whole JavaScript heap with the extractor's libraries in it
 * (linkedom, Readability, turndown, pdf.js): the first adds some 30 MB to
 * the process, each further one 12. So workers start when pages arrive, up
 * to `workers`, and one left without work for `idleMs` stops (giving back
 * some 10 MB): a server that reads no pages holds none.
 */
import { isErrorCode, ServiceError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { ExtractedDocument, ExtractInput } from "./extract/index.ts";

export interface Extractor {
  extract(input: ExtractInput): Promise<ExtractedDocument>;
  close(): Promise<void>;
}

/** In the calling thread: for the CLI's small jobs and for pure unit tests. */
interface Task {
  id: number;
  input: ExtractInput;
  resolve(document: ExtractedDocument): void;
  reject(error: unknown): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  task: Task | null;
  timer: ReturnType<typeof setTimeout> | undefined;
  idle: ReturnType<typeof setTimeout> | undefined;
}

type Reply =
  | { ready: true }
  | { id: number; ok: true; document: ExtractedDocument }
  | { id: number; ok: false; code: string; message: string; cause?: { name: string; message: string }; bug: boolean };

const WORKER_URL = new URL("./extraction-worker.ts", import.meta.url).href;

export class ExtractionPool implements Extractor {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly settings: { workers: number; timeoutMs: number; idleMs: number },
    private readonly log: Logger,
  ) {}

  /** Workers running or starting. */
  get workers(): number {
    return this.slots.length;
  }

  private spawn(): Slot {
    const slot: Slot = { worker: new Worker(WORKER_URL), ready: false, task: null, timer: undefined, idle: undefined };
    this.slots.push(slot);
    slot.worker.onmessage = (event: MessageEvent<Reply>) => this.finish(slot, event.data);
    slot.worker.onerror = (event) => {
      this.log.error("extraction worker failed", { error: event.message });
      this.replace(slot, new ServiceError("extraction_failed", "the page could not be extracted"));
    };
    return slot;
  }

  extract(input: ExtractInput): Promise<ExtractedDocument> {
    if (this.closed) return Promise.reject(new ServiceError("service_unavailable", "the service is shutting down"));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, input, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (!slot.ready || slot.task) continue;
      if (this.queue.length === 0) {
        slot.idle ??= setTimeout(() => this.retire(slot), this.settings.idleMs).unref();
        continue;
      }
      clearTimeout(slot.idle);
      slot.idle = undefined;
      const task = this.queue.shift()!;
      slot.task = task;
      slot.timer = setTimeout(() => {
        this.log.warn("extraction took too long; worker replaced", { timeout_ms: this.settings.timeoutMs });
        this.replace(slot, new ServiceError("extraction_failed", `the page could not be extracted within ${this.settings.timeoutMs} ms`));
      }, this.settings.timeoutMs);
      // The body is handed over, not copied: it is not used again on this side.
      const body = task.input.body.slice();
      slot.worker.postMessage({ id: task.id, input: { ...task.input, body } }, [body.buffer]);
    }
    // What is still waiting gets a worker each, up to `workers`; one that is starting takes a task when ready.
    const starting = this.slots.filter((slot) => !slot.ready).length;
    for (let waiting = this.queue.length - starting; waiting > 0 && this.slots.length < this.settings.workers; waiting--) this.spawn();
  }

  private retire(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (slot.task || index < 0) return;
    slot.worker.terminate();
    this.slots.splice(index, 1);
  }

  private finish(slot: Slot, reply: Reply): void {
    if ("ready" in reply) {
      slot.ready = true;
      this.dispatch();
      return;
    }
    const task = slot.task;
    if (!task || task.id !== reply.id) return;
    clearTimeout(slot.timer);
    slot.task = null;
    if (reply.ok) task.resolve(reply.document);
    else if (reply.bug) {
      this.log.error("extraction failed unexpectedly", { error: reply.cause, url: task.input.url });
      task.reject(new ServiceError("extraction_failed", reply.message));
    } else
      task.reject(
        new ServiceError(
          isErrorCode(reply.code) ? reply.code : "extraction_failed",
          reply.message,
          reply.cause ? { cause: reply.cause } : {},
        ),
      );
    this.dispatch();
  }

  /** Stops a worker stuck in (or broken by) a task and fails that task; the queue gets a fresh worker if it needs one. */
  private replace(slot: Slot, error: ServiceError): void {
    clearTimeout(slot.timer);
    clearTimeout(slot.idle);
    slot.worker.terminate();
    slot.task?.reject(error);
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    if (!this.closed) this.dispatch();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new ServiceError("service_unavailable", "the service is shutting down"));
    for (const slot of this.slots.splice(0)) {
      clearTimeout(slot.timer);
      clearTimeout(slot.idle);
      slot.worker.terminate();
    }
  }
}

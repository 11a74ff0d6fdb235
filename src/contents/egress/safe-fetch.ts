/**
 * SafeFetch: the one way the service fetches a URL a caller gave it. It
 * resolves the name once, refuses the host if any answer is not public,
 * and connects to the checked address (the Host header and TLS server name
 * carry the name, so certificates are still verified against it): a DNS
 * answer that changes between check and connect cannot slip through. Every
 * redirect is checked the same way. One deadline covers DNS, connect,
 * redirects and body; the body streams against a byte cap (decoded bytes:
 * fetch decompresses itself). Whatever is given up is cancelled.
 */
import { readAtMost } from "../../byte-stream.ts";
import { ServiceError } from "../../errors.ts";
import type { Logger } from "../../log.ts";
import { shownMediaType } from "../extract/media-type.ts";
import { Gate } from "./gate.ts";
import { addressRefusal, isIpLiteral } from "./ip-address.ts";
import { blocked, checkUrlPolicy, hostKey, isExempt, type EgressPolicy } from "./policy.ts";
import type { Resolver } from "./resolver.ts";

export interface EgressSettings extends EgressPolicy {
  timeoutMs: number;
  firstByteMs: number;
  maxBytes: number;
  maxRedirects: number;
  maxConcurrency: number;
  maxPerHost: number;
  userAgent: string;
}

export interface FetchOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** A POST's body (webhooks/deliver.ts): sent instead of a GET. */
  body?: string;
  maxBytes?: number;
  timeoutMs?: number;
  /** Media types worth reading; others fail as unsupported_content_type before the body is read. */
  acceptType?: (mediaType: string) => boolean;
}

export interface FetchedResource {
  url: string;
  finalUrl: string;
  status: number;
  /** The Content-Type header as sent, or null. */
  contentType: string | null;
  etag: string | null;
  lastModified: string | null;
  contentLanguage: string | null;
  /** Empty for a 304. */
  body: Uint8Array;
  redirects: number;
  notModified: boolean;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export class SafeFetch {
  private readonly global: Gate;
  private readonly perHost = new Map<string, Gate>();

  constructor(
    private readonly settings: EgressSettings,
    private readonly deps: { resolver: Resolver; log: Logger },
  ) {
    this.global = new Gate(settings.maxConcurrency);
  }

  async fetch(url: URL, options: FetchOptions = {}): Promise<FetchedResource> {
    const deadline = AbortSignal.timeout(options.timeoutMs ?? this.settings.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    try {
      return await this.follow(url, options, signal);
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (deadline.aborted) throw new ServiceError("fetch_timeout", "the page did not answer in time");
      if (error instanceof ServiceError) throw error;
      this.deps.log.debug("fetch failed", { host: url.hostname, error });
      throw new ServiceError("fetch_failed", "the page could not be fetched");
    }
  }

  /**
   * One POST to a URL an owner gave (a webhook): the same checks and pinned address as a page read, no redirect
   * followed (a 3xx is the receiver's answer), the answer's body never read. Resolves to the receiver's status.
   */
  async post(
    url: URL,
    body: string,
    options: { headers: Record<string, string>; timeoutMs: number; signal?: AbortSignal },
  ): Promise<number> {
    const deadline = AbortSignal.timeout(options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    try {
      const { response, release } = await this.once(url, { headers: options.headers, body }, signal);
      try {
        await response.body?.cancel().catch(() => {});
        return response.status;
      } finally {
        release();
      }
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (deadline.aborted) throw new ServiceError("fetch_timeout", "the receiver did not answer in time");
      if (error instanceof ServiceError) throw error;
      this.deps.log.debug("post failed", { host: url.hostname, error });
      throw new ServiceError("fetch_failed", "the receiver could not be reached");
    }
  }

  private async follow(start: URL, options: FetchOptions, signal: AbortSignal): Promise<FetchedResource> {
    let current = new URL(start);
    for (let redirects = 0; ; redirects++) {
      const { response, release } = await this.once(current, options, signal);
      try {
        const outcome = await this.handle(start, current, response, redirects, options);
        if (outcome instanceof URL) {
          current = outcome;
          continue;
        }
        return outcome;
      } finally {
        release();
      }
    }
  }

  /** A response to the fetched resource, or the URL a redirect points to. */
  private async handle(
    start: URL,
    current: URL,
    response: Response,
    redirects: number,
    options: FetchOptions,
  ): Promise<FetchedResource | URL> {
    const drop = () => response.body?.cancel().catch(() => {});
    if (REDIRECTS.has(response.status)) {
      await drop();
      const location = response.headers.get("location");
      if (!location)
        throw new ServiceError("fetch_status", `the page answered ${response.status} without a location`, {
          body: { upstream_status: response.status },
        });
      if (redirects >= this.settings.maxRedirects)
        throw new ServiceError("fetch_redirects", `more than ${this.settings.maxRedirects} redirects`);
      const next = new URL(location, current);
      next.hash = "";
      if (current.protocol === "https:" && next.protocol === "http:") throw blocked(); // no downgrade
      return next;
    }
    const common = {
      url: start.toString(),
      finalUrl: current.toString(),
      status: response.status,
      contentType: response.headers.get("content-type"),
      etag: response.headers.get("etag"),
      lastModified: response.headers.get("last-modified"),
      contentLanguage: response.headers.get("content-language"),
      redirects,
    };
    if (response.status === 304) {
      await drop();
      return { ...common, body: new Uint8Array(0), notModified: true };
    }
    if (response.status < 200 || response.status >= 300) {
      await drop();
      throw new ServiceError("fetch_status", `the page answered with status ${response.status}`, {
        body: { upstream_status: response.status },
      });
    }
    const mediaType = (common.contentType ?? "").split(";")[0]!.trim().toLowerCase();
    if (options.acceptType && !options.acceptType(mediaType)) {
      await drop();
      throw new ServiceError("unsupported_content_type", `content type ${shownMediaType(mediaType)} is not supported`);
    }
    const maxBytes = options.maxBytes ?? this.settings.maxBytes;
    const declared = Number(response.headers.get("content-length") ?? "-1");
    if (declared > maxBytes && !response.headers.get("content-encoding")) {
      await drop();
      throw tooLarge(maxBytes);
    }
    return { ...common, body: await readAtMost(response.body, maxBytes, () => tooLarge(maxBytes)), notModified: false };
  }

  /** One request to the checked address. Its global and per-host slots are held until `release`. */
  private async once(url: URL, options: FetchOptions, signal: AbortSignal): Promise<{ response: Response; release: () => void }> {
    checkUrlPolicy(this.settings, url);
    const address = await this.pin(url, signal);
    const key = hostKey(url);
    let hostGate = this.perHost.get(key);
    if (!hostGate) this.perHost.set(key, (hostGate = new Gate(this.settings.maxPerHost)));
    const releaseGlobal = await this.global.acquire(signal);
    let releaseHost: (() => void) | undefined;
    const release = () => {
      releaseHost?.();
      releaseGlobal();
      if (!hostGate.busy) this.perHost.delete(key);
    };
    const firstByte = new AbortController();
    const timer = setTimeout(() => firstByte.abort(new DOMException("no first byte in time", "TimeoutError")), this.settings.firstByteMs);
    try {
      releaseHost = await hostGate.acquire(signal);
      const target = new URL(url);
      target.hostname = address.includes(":") ? `[${address}]` : address;
      const response = await fetch(target, {
        method: options.body === undefined ? "GET" : "POST",
        ...(options.body === undefined ? {} : { body: options.body }),
        redirect: "manual",
        signal: AbortSignal.any([signal, firstByte.signal]),
        headers: {
          Accept: "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,application/json;q=0.8,*/*;q=0.5",
          "Accept-Encoding": "gzip, deflate, br",
          "Accept-Language": "en;q=0.9, *;q=0.5",
          ...options.headers,
          "User-Agent": this.settings.userAgent,
          Host: url.host,
        },
        ...(url.protocol === "https:" ? { tls: { serverName: url.hostname } } : {}),
      });
      return { response, release };
    } catch (error) {
      release();
      if (firstByte.signal.aborted && !signal.aborted) throw new ServiceError("fetch_timeout", "the page did not start answering in time");
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The address to connect to: every answer checked, the first IPv4 preferred. */
  private async pin(url: URL, signal: AbortSignal): Promise<string> {
    const host = url.hostname.replace(/^\[|\]$/g, "");
    let answers: string[];
    if (isIpLiteral(host)) answers = [host];
    else {
      try {
        answers = await this.deps.resolver.resolve(host, signal);
      } catch (error) {
        if (signal.aborted) throw error;
        this.deps.log.debug("name did not resolve", { host, error });
        throw new ServiceError("fetch_failed", "the page's host name could not be resolved");
      }
    }
    if (answers.length === 0) throw new ServiceError("fetch_failed", "the page's host name could not be resolved");
    if (!isExempt(this.settings, url)) {
      for (const answer of answers) {
        const refusal = addressRefusal(answer);
        if (refusal) {
          // The details stay in the log; the caller gets one opaque answer.
          this.deps.log.info("fetch refused", { host, address: answer, reason: refusal });
          throw blocked();
        }
      }
    }
    return answers.find((a) => !a.includes(":")) ?? answers[0]!;
  }
}

export function tooLarge(maxBytes: number): ServiceError {
  return new ServiceError("fetch_too_large", `the page is larger than ${maxBytes} bytes`);
}

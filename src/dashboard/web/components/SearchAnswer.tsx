/**
 * A research answer: text whose [n] markers link to source n below, or the
 * structured object asked for with output_format; how the run went (its
 * info); then the numbered sources, the cited ones first and the ones read
 * but not cited set apart after them.
 */
import { Fragment, type ComponentChildren } from "preact";
import type { SearchResult, Source } from "../model.ts";
import { splitSources } from "../run-info.ts";
import { RunDetails } from "./RunDetails.tsx";

const CITATION = /\[(\d+(?:\s*,\s*\d+)*)\]/g;

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}

/** Splits text at its citation markers; a marker naming a source we have becomes a link to it. */
export function CitedText({ text, sources, idPrefix }: { text: string; sources: Source[]; idPrefix: string }) {
  const known = new Set(sources.map((s) => s.id));
  const parts: ComponentChildren[] = [];
  let last = 0;
  for (const found of text.matchAll(CITATION)) {
    const at = found.index ?? 0;
    parts.push(text.slice(last, at));
    const ids = found[1]!.split(",").map((n) => Number(n.trim()));
    parts.push(
      <span class="cites" key={at}>
        [
        {ids.map((id, i) => (
          <Fragment key={id}>
            {i > 0 ? ", " : null}
            {known.has(id) ? (
              <a href={`#${idPrefix}source-${id}`} class="cite" aria-label={`Source ${id}`}>
                {id}
              </a>
            ) : (
              String(id)
            )}
          </Fragment>
        ))}
        ]
      </span>,
    );
    last = at + found[0].length;
  }
  parts.push(text.slice(last));
  return <p class="answer-text">{parts}</p>;
}

export function SourceList({ sources, idPrefix, label }: { sources: Source[]; idPrefix: string; label?: string }) {
  if (sources.length === 0) return null;
  return (
    <ol class="sources" aria-label={label}>
      {sources.map((source) => (
        <li key={source.id} value={source.id} id={`${idPrefix}source-${source.id}`} tabIndex={-1}>
          <a href={source.metadata.url} target="_blank" rel="noopener noreferrer">
            {source.metadata.title || source.metadata.url}
          </a>{" "}
          <span class="muted">{hostOf(source.metadata.url)}</span>
          {source.metadata.content ? (
            <details>
              <summary>Passages used</summary>
              <p class="passages">{source.metadata.content}</p>
            </details>
          ) : null}
        </li>
      ))}
    </ol>
  );
}

interface AnswerProps {
  result: SearchResult;
  idPrefix: string;
  /** True while the answer still streams: assistive tech waits for the end to read it. */
  streaming?: boolean;
  headingLevel?: 2 | 3;
  /** The call's request id, when the page knows it (the run's info may carry it): the details look its cost up by it. */
  requestId?: string | null;
  /** How long the call took as the page measured it (an endpoint's info does not tell it). */
  elapsedMs?: number | null;
}

/** Cited sources, then (once the answer is whole, so its markers are known) the ones read but not cited. */
function Sources({ result, idPrefix, streaming, H }: { result: SearchResult; idPrefix: string; streaming: boolean; H: "h2" | "h3" }) {
  if (result.context.length === 0) return null;
  if (streaming) {
    return (
      <>
        <H>Sources</H>
        <SourceList sources={result.context} idPrefix={idPrefix} />
      </>
    );
  }
  const { cited, uncited, known } = splitSources(result);
  const Sub = H === "h2" ? "h3" : "h4";
  return (
    <>
      <H id={`${idPrefix}sources-heading`}>Sources</H>
      {known && cited.length === 0 ? <p class="muted">The answer cites none of the sources it read.</p> : null}
      <SourceList sources={cited} idPrefix={idPrefix} label={known ? "Cited sources" : "Sources used"} />
      {uncited.length > 0 ? (
        <section class="uncited" aria-labelledby={`${idPrefix}uncited-heading`}>
          <Sub id={`${idPrefix}uncited-heading`}>Read but not cited</Sub>
          <p class="hint">The run read these pages; the answer does not cite them.</p>
          <SourceList sources={uncited} idPrefix={idPrefix} label="Read but not cited" />
        </section>
      ) : null}
    </>
  );
}

export function SearchAnswer({ result, idPrefix, streaming = false, headingLevel = 2, requestId, elapsedMs }: AnswerProps) {
  const H = headingLevel === 2 ? "h2" : "h3";
  return (
    <div class="answer">
      <H id={`${idPrefix}answer-heading`}>Answer</H>
      <div class="answer-body" aria-live="polite" aria-busy={streaming} aria-labelledby={`${idPrefix}answer-heading`} role="region">
        {typeof result.response === "string" ? (
          result.response ? (
            <CitedText text={result.response} sources={result.context} idPrefix={idPrefix} />
          ) : streaming ? (
            <p class="muted">Waiting for the answer…</p>
          ) : null
        ) : (
          <pre class="json" tabIndex={0} aria-label="Structured answer (JSON)">
            {JSON.stringify(result.response, null, 2)}
          </pre>
        )}
      </div>
      {result.info && !streaming ? (
        <RunDetails info={result.info} requestId={requestId ?? result.info.request_id} elapsedMs={elapsedMs} />
      ) : null}
      <Sources result={result} idPrefix={idPrefix} streaming={streaming} H={H} />
    </div>
  );
}

/**
 * Where a form's or a page's failure is announced. The live region is always
 * in the document (a region inserted together with its text is often not
 * read out); only its content changes.
 */
import { describeError, ApiError } from "../api.ts";
import { limitWords, rateLimitOf, retryWords } from "../rate-limit.ts";
import { useRetryCountdown } from "./useRetryCountdown.ts";

/**
 * A 429 names the limit reached and counts down to when to try again. The count is not announced each second
 * (aria-live off inside the alert): the alert is read once, with the wait as it was then.
 */
function RateLimited({ error }: { error: unknown }) {
  const refusal = rateLimitOf(error)!;
  const left = useRetryCountdown(error);
  return (
    <p class="rate-limited">
      {limitWords(refusal)}{" "}
      <span aria-live="off" class="retry-wait">
        {retryWords(left)}
      </span>
    </p>
  );
}

export function ErrorMessage({ error, id }: { error: unknown; id?: string }) {
  const issues = error instanceof ApiError ? error.issues : [];
  return (
    <div role="alert" id={id} class="alert-slot">
      {error ? (
        <div class="error-box">
          {rateLimitOf(error) ? <RateLimited error={error} /> : <p>{describeError(error)}</p>}
          {issues.length > 0 && (
            <ul>
              {issues.map((issue) => (
                <li key={issue.path + issue.msg}>
                  {issue.path ? <code>{issue.path}</code> : null}
                  {issue.path ? ": " : null}
                  {issue.msg}
                </li>
              ))}
            </ul>
          )}
        </div>
      ) : null}
    </div>
  );
}

/**
 * How a status line reads: done well (the success colour), a plain fact or
 * progress ("0 endpoints match.", "Searching…"), or an outcome that went
 * wrong ("The search failed.") in the error colour, never in green.
 */
export type StatusTone = "success" | "neutral" | "failure";

/** A polite live region for progress and outcomes ("Saved", "Copied", "The search failed"). */
export function StatusMessage({ text, tone = "success" }: { text: string; tone?: StatusTone }) {
  return (
    <p role="status" class={`status-slot ${tone}`}>
      {text}
    </p>
  );
}

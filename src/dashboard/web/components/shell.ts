/** Quoting for the copy-paste commands the dashboard shows. */

/** One POSIX shell word: single quotes, with each ' written as '\''. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/** A curl call with the key read from the environment, never a real key on the page. */
export function curlCommand(url: string, body: unknown): string {
  return [
    `curl -sS -X POST ${shellQuote(url)}`,
    `  -H "X-API-Key: $CRITIQUE_API_KEY"`,
    `  -H 'Content-Type: application/json'`,
    `  -d ${shellQuote(JSON.stringify(body))}`,
  ].join(" \\\n");
}

/** The messages of a server-sent-events body as the search stream writes them: `event: <type>` / `data: {"type", "content"}` blocks. */
export function sseMessages(text: string): { type: string; content: unknown }[] {
  return text
    .split("\n\n")
    .map((block) => block.split("\n").find((line) => line.startsWith("data: ")))
    .filter((line): line is string => Boolean(line))
    .map((line) => JSON.parse(line.slice("data: ".length)));
}

/** The help text, laid out from the command table: a section per group, the summary beside the usage when it fits. */
import type { CliCommand, CliSection } from "./command.ts";

/** The column the summaries start at. */
const SUMMARY_COLUMN = 37;

/** A command's lines of the help: its usage, and its summary beside it or below. */
export function helpLines(command: CliCommand): string[] {
  const usage = `  ${command.usage}`;
  const indent = " ".repeat(SUMMARY_COLUMN);
  const [first, ...more] = command.summary;
  const head = usage.length < SUMMARY_COLUMN ? [usage.padEnd(SUMMARY_COLUMN) + first] : [usage, indent + first];
  return [...head, ...more.map((line) => indent + line)];
}

export function helpText(sections: CliSection[], commands: CliCommand[]): string {
  const blocks = sections.map((section) => [section, ...commands.filter((c) => c.section === section).flatMap(helpLines)].join("\n"));
  return `Usage: npm run cli -- <command> [options]\n\n${blocks.join("\n\n")}\n`;
}

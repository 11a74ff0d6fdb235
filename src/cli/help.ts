/** The CLI about itself and the environment: what needs no database and no valid environment. */
import { describeEnvironment } from "../config.ts";
import type { CliCommand } from "./command.ts";

export const configCommand: CliCommand = {
  name: "config",
  section: "Help",
  usage: "config",
  summary: ["list the environment variables with defaults"],
  details:
    "Each variable with its default and description, as in [Configuration](configuration.md); it runs on any environment, valid or not.",
  run(cli) {
    for (const v of describeEnvironment())
      cli.out(`${v.name}${v.default !== undefined ? ` (default ${JSON.stringify(v.default)})` : ""}\n    ${v.description}`);
  },
};

export const helpCommand: CliCommand = {
  name: "help",
  section: "Help",
  usage: "help",
  summary: ["this text"],
  details: "Also `--help` or `-h` after any command, and no command at all.",
  run(cli) {
    cli.out(cli.help());
  },
};

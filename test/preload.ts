/** Loaded before every `bun test` run (bunfig.toml): hooks over the whole run. */
import { afterAll } from "bun:test";
import { reportCoverage } from "./conformance/clause.ts";

afterAll(() => reportCoverage());

import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CpuProfile, profileShare, readProfile } from "./profile-share.ts";

const frame = (id: number, url: string, children: number[] = []) => ({ id, callFrame: { url }, children });

/** root → handle (app) → span (observe) → encode (observe); handle → log; handle → native (no url). */
const PROFILE: CpuProfile = {
  nodes: [
    frame(1, "", [2]),
    frame(2, "file:///app/src/http/handle.ts", [3, 5, 6]),
    frame(3, "file:///app/src/observe/spans.ts", [4]),
    frame(4, "file:///app/src/observe/otlp-encode.ts"),
    frame(5, "file:///app/src/log.ts"),
    frame(6, ""),
  ],
  samples: [2, 3, 4, 4, 5, 6, 6, 1, 2, 5],
};

const PARTS = { observe: "/src/observe/", log: "/src/log.ts", app: "/src/" };

describe("a profile's share by part of the code", () => {
  test("a sample counts for every part on its stack, what the part called included", () => {
    const { samples, shares } = profileShare(PROFILE, PARTS);
    expect(samples).toBe(10);
    // 3, 4 and 4 have observe's frames on the stack; 5 twice has the log's; all but the root's sample have the app's.
    expect(shares).toEqual({ observe: 0.3, log: 0.2, app: 0.9 });
  });

  test("a part that never appears is none; a profile without samples is none of anything", () => {
    expect(profileShare(PROFILE, { elsewhere: "/src/limits/" }).shares).toEqual({ elsewhere: 0 });
    expect(profileShare({ ...PROFILE, samples: [] }, PARTS)).toEqual({ samples: 0, shares: { observe: 0, log: 0, app: 0 } });
  });
});

describe("the profile a process wrote", () => {
  const dir = mkdtempSync(join(tmpdir(), "profile-share-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("is read from its folder, and is undefined when the folder holds none", () => {
    expect(readProfile(dir)).toBeUndefined();
    writeFileSync(join(dir, "CPU.1.md"), "# not the profile");
    writeFileSync(join(dir, "CPU.1.cpuprofile"), JSON.stringify(PROFILE));
    expect(readProfile(dir)?.samples).toEqual(PROFILE.samples);
  });
});

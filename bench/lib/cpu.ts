/** CPU time a process has used so far (user + system, from /proc, Linux), in seconds: its threads' included, its children's not. */
import { readFileSync } from "node:fs";

export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
}

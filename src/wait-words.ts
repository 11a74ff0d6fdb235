/**
 * A wait said the way SPEC 7 says it ("try again in a minute"): whole
 * seconds below a minute, "a minute" for one, whole minutes above.
 */
export function waitWords(seconds: number): string {
  if (seconds <= 1) return "1 second";
  if (seconds < 60) return `${seconds} seconds`;
  const minutes = Math.round(seconds / 60);
  return minutes === 1 ? "a minute" : `${minutes} minutes`;
}

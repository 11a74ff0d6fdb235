/** A run's work that holds its slot until the test says `finish`: what the queue's and its metrics' tests wait behind. */
export function heldOpen() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    finish,
    work: async () => {
      await done;
      return { info: { token_usage: 1, tokens: { prompt: 1, completion: 0, total: 1 } } };
    },
  };
}

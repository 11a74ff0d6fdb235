/**
 * Reads a byte stream to its end, refusing to hold more than `maxBytes`:
 * past the cap it cancels the stream (so the peer stops sending) and throws
 * the caller's error. Used for request bodies and for fetched pages.
 */
export async function readAtMost(stream: ReadableStream<Uint8Array> | null, maxBytes: number, tooLarge: () => Error): Promise<Uint8Array> {
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw tooLarge();
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  } finally {
    reader.releaseLock();
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/**
 * A web `ReadableStream` body written to a Node `res` (today an answer's event stream, from
 * http/answer.ts): each chunk as the stream gives it, with back-pressure both ways. The stream is read one chunk at a time, the next only once
 * `res.write` took the last (it returned true, or `drain` fired), and none while `res` waits for its
 * socket (pipelined behind another), so the methods that stream wait at their `yield` while the
 * client reads slowly. `res` closing before the end (the client went away)
 * cancels the stream, which aborts the handlers' signal and stops their generators.
 *
 * @module
 */
import type { ServerResponse } from "node:http";

/** Nothing to do: what a cancel or a write of a stream already gone rejects with is of no use. */
const ignore = (): void => undefined;

/**
 * Writes `body` to `res` (whose head is written), then ends it. Resolves `true` once all of it was
 * written, `false` if the client went away first or the stream failed (`res` is then destroyed).
 */
export const writeBody = async (res: ServerResponse, body: ReadableStream<Uint8Array>): Promise<boolean> => {
  const reader = body.getReader();
  let gone = false;
  let wake: (() => void) | undefined;
  const onClose = (): void => {
    gone = true;
    wake?.();
    reader.cancel().catch(ignore);
  };
  const onReady = (): void => wake?.();
  /** Waits for `res` to take more (its `drain`, or its socket at last) or to close: whether it is still there. */
  const ready = async (): Promise<boolean> => {
    await new Promise<void>((resume) => (wake = resume));
    wake = undefined;
    return !gone;
  };
  res.on("close", onClose);
  res.on("drain", onReady);
  res.on("socket", onReady);
  try {
    // A response pipelined behind another has no socket until that one ends: what it wrote would
    // wait in Node's buffer (16 KB of it, taken as written), its methods running ahead of a client
    // that has not read a byte of it. Its stream is read once it is on the wire, which it then stays
    // on to its end. Told apart by its request's socket: a response of a shim or a mock with no
    // socket at all is written as before.
    if (res.socket === null && res.req?.socket != null && !(await ready())) return false;
    for (;;) {
      const { done, value } = await reader.read();
      if (gone) return false;
      if (done) {
        res.end();
        return true;
      }
      if (!res.write(value) && !(await ready())) return false;
    }
  } catch {
    // The stream failed: the answer cannot be finished, and a client must not take it as whole.
    res.destroy();
    return false;
  } finally {
    res.off("close", onClose);
    res.off("drain", onReady);
    res.off("socket", onReady);
  }
};

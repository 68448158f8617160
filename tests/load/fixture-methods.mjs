/**
 * What tests/load/load.mjs serves with the `rpcserver` command: the methods of
 * examples/methods.mjs, plus two for the test itself.
 *
 * - `note(...)`: a quiet notification target that counts its calls and ignores its params
 *   (examples' `log` prints every call on stderr, which thousands of calls a second would turn
 *   into the test's bottleneck).
 * - `stats()`: the server's own figures, after garbage collection when the process was started
 *   with `--expose-gc`: heap, rss, the TCP sockets still open, the notes received so far.
 */
import { setImmediate as tick } from "node:timers/promises";
import { method, Success } from "rpcserver";
import "../../examples/methods.mjs";

let notes = 0;

method(function note() {
  notes += 1;
  return Success();
});

method(async function stats() {
  const gc = globalThis.gc;
  if (typeof gc === "function") {
    // Several full collections, each after a turn of the event loop, so that what the requests
    // before this one left behind (closed sockets, their buffers) can be freed.
    for (let i = 0; i < 4; i += 1) {
      await tick();
      gc();
    }
  }
  const { heapUsed, heapTotal, rss, external, arrayBuffers } = process.memoryUsage();
  const sockets = process.getActiveResourcesInfo().filter((name) => name === "TCPSocketWrap").length;
  return Success({ gc: typeof gc === "function", heapUsed, heapTotal, rss, external, arrayBuffers, sockets, notes });
});

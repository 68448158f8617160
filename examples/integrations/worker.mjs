/**
 * A `worker_threads` JSON-RPC server: dispatch runs off the main thread, so slow methods do not
 * hold up the main thread's event loop (an HTTP server, say). Start it from the main thread:
 *
 *     npm run build && node examples/integrations/worker-main.mjs
 *
 * Protocol, over `postMessage`:
 * - main to worker: `{ user, request }`, the request text (or bytes) and the user the main thread
 *   has authenticated; the user reaches the methods as the context, per message.
 * - worker to main: the answer text, only when there is one: nothing for a notification or a batch
 *   of notifications. The main thread matches answers to its calls by id.
 *
 * A Web Worker is the same with `self.onmessage` and `self.postMessage` (docs/integrations.md).
 */
import { parentPort } from "node:worker_threads";
import { asyncDispatch } from "rpcserver";
import { MAX_BATCH_SIZE, methods } from "./methods.mjs";

parentPort.on("message", async ({ user, request }) => {
  const text = await asyncDispatch(request, methods, { context: { user }, maxBatchSize: MAX_BATCH_SIZE });
  if (text !== "") parentPort.postMessage(text);
});

/**
 * The ids of calls: one counter for the whole process, kept on `globalThis`.
 *
 * @module
 */
/**
 * Where the last id given is kept: on `globalThis` under a registered symbol (as the logger is),
 * so that two copies of this module in one process (the CommonJS and the ES build, or two
 * versions) count on one counter too. Made at the first call, not at import (`sideEffects`).
 */
const IDS = Symbol.for("rpcserver.callIds");
type Slot = { [IDS]?: { last: number } };

/**
 * The id of the next call, from one counter for the whole process: every client, and `batch`,
 * takes its ids here unless its transport gives its own (`Transport.nextId`). Per client, two
 * clients over one channel (a connection's transport wrapped for headers or a log, which loses its
 * `nextId`) sent the same ids, and a connection matched an answer to the wrong call. Wraps to 1
 * before ids stop being exact integers.
 * @internal
 */
export const nextCallId = (): number => {
  const ids = ((globalThis as Slot)[IDS] ??= { last: 0 });
  return (ids.last = ids.last >= Number.MAX_SAFE_INTEGER ? 1 : ids.last + 1);
};

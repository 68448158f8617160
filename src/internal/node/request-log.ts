/**
 * The development server's log of the requests it answers: each at info level (silent by default)
 * with its status, and a browser guard's refusal at warn level, once for each header value it
 * refused, so that a misconfigured page is seen at once and one that keeps retrying does not
 * flood the log.
 *
 * @module
 */
import type { Refusal } from "../http/browser-guard";
import { say } from "../http/route";
import type { RequestLog } from "./node-exchange";

/** Past this many distinct refused values, refusals are logged at info level only. */
const MAX_WARNED_REFUSALS = 100;

/** A new log: its refusals are the ones this server has warned of. */
export const requestLog = (): RequestLog => {
  const warned = new Set<string>();
  const refused = (refusal: Refusal, line: string): void => {
    const key = `${refusal.header} ${refusal.value}`;
    const first = !warned.has(key) && warned.size < MAX_WARNED_REFUSALS;
    if (first) warned.add(key);
    say(first ? "warn" : "info", `rpcserver: ${line} 403: ${refusal.message.trimEnd()}`);
  };
  return {
    answered: (line, reply) =>
      reply.refusal === undefined ? say("info", `rpcserver: ${line} ${reply.said}`) : refused(reply.refusal, line),
    left: (line, what) => say("info", `rpcserver: ${line}: ${what}`),
  };
};

/**
 * MCP's Streamable HTTP as the tests on real sockets speak it (tests/mcp-sessions.test.ts,
 * tests/mcp-resume.test.ts): a POST's headers, and the server-sent events of a node:http answer.
 */
import type { IncomingMessage } from "node:http";

/** One server-sent event: its id, and its data (`""` for a primer). */
export interface SseEvent {
  readonly id: string | undefined;
  readonly data: string;
}

/** Hands `put` each whole event of `response`'s body as it comes (its body read as UTF-8). */
export const onEvents = (response: IncomingMessage, put: (event: SseEvent) => void): void => {
  let buffered = "";
  response.setEncoding("utf8");
  response.on("data", (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf("\n\n"); end !== -1; end = buffered.indexOf("\n\n")) {
      const lines = buffered.slice(0, end).split("\n");
      buffered = buffered.slice(end + 2);
      const field = (name: string): string | undefined =>
        lines
          .find((line) => line.startsWith(`${name}:`))
          ?.slice(name.length + 1)
          .trimStart();
      put({ id: field("id"), data: field("data") ?? "" });
    }
  });
};

/** The headers of a POST that accepts JSON or events, of the session `session` if one is named. */
export const postHeaders = (session?: string): Record<string, string> => ({
  "Content-Type": "application/json",
  Accept: "application/json, text/event-stream",
  ...(session === undefined ? {} : { "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25" }),
});

/** A POST of `body` (as JSON) to an in-process handler, as {@link postHeaders} makes its headers. */
export const postRequest = (session: string | undefined, body: unknown): Request =>
  new Request("http://localhost/mcp", { method: "POST", headers: postHeaders(session), body: JSON.stringify(body) });

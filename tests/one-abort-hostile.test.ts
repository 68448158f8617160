/**
 * Hostile tests of "one abort per request" (issue 33, item 1), on real sockets.
 *
 * A method that dispatches a body of its own handing on its context (a proxy, a batch of sub-calls)
 * passes its request's signal along: a `timeout` stage in that inner dispatch found the outer
 * request's abort through it and aborted it (the outer method's signal aborted when the inner call
 * timed out), and every request of the inner body shared that one signal. A stage now reaches the
 * abort of the request it handles only.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { answerHttp, asyncDispatch, Success, timeout, type Result } from "../src";

type Ctx = { readonly signal: AbortSignal };

const serve = async (
  methods: Record<string, (ctx: Ctx) => Promise<Result>>,
): Promise<{ url: string; server: http.Server }> => {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void answerHttp(Buffer.concat(chunks), methods, { context: {} }).then((answer) => {
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
};

const post = async (url: string, body: string): Promise<unknown> => {
  const response = await fetch(url, { method: "POST", body, headers: { "content-type": "application/json" } });
  return JSON.parse(await response.text()) as unknown;
};

describe("a method that dispatches with its own context", () => {
  test("an inner timeout aborts neither the outer request's signal nor the inner body's other requests", async () => {
    const seen: { outer?: boolean; sibling?: boolean | undefined; timedOut?: boolean } = {};
    let siblingSignal: AbortSignal | undefined;
    let release = (): void => undefined;
    const siblingMay = new Promise<void>((resolve) => (release = resolve));
    const inner = {
      slow: (ctx: Ctx): Promise<Result> =>
        new Promise((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            seen.timedOut = true;
            release();
            resolve(Success("stopped"));
          });
        }),
      sibling: async (ctx: Ctx): Promise<Result> => {
        siblingSignal = ctx.signal;
        await siblingMay;
        return Success("done");
      },
    };
    const { url, server } = await serve({
      proxy: async (ctx: Ctx): Promise<Result> => {
        const signal = ctx.signal;
        const answer = await asyncDispatch(
          '[{"jsonrpc":"2.0","method":"slow","id":1},{"jsonrpc":"2.0","method":"sibling","id":2}]',
          inner,
          { context: ctx, stages: [timeout(5)] },
        );
        seen.outer = signal.aborted;
        seen.sibling = siblingSignal?.aborted;
        return Success(JSON.parse(answer) as unknown);
      },
    });
    try {
      const answer = await post(url, '{"jsonrpc":"2.0","method":"proxy","id":1}');
      expect(answer).toMatchObject({
        id: 1,
        result: [
          { id: 1, error: { code: -32001 } },
          { id: 2, result: "done" },
        ],
      });
      expect(seen).toEqual({ outer: false, sibling: false, timedOut: true });
    } finally {
      server.close();
    }
  });
});

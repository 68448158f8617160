import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { PassThrough } from "node:stream";
import { contract, server } from "../src";
import { client, notify, withOptions } from "../src/client";
import { connect, contentLength, streams, newlineDelimited, type Channel } from "../src/connection";
import { pipe } from "fp-ts/function";

const api = contract({
  add: { params: t.tuple([t.number, t.number]), result: t.number },
  slow: { params: t.tuple([t.number]), result: t.string },
  log: { params: t.tuple([t.string]) },
});

const pair = (framing = newlineDelimited()): [Channel, Channel] => {
  const a = new PassThrough();
  const b = new PassThrough();
  return [streams(a, b, framing), streams(b, a, framing)];
};

test("both ways, cancellation, close", async () => {
  const [left, right] = pair(contentLength());
  const aborted: string[] = [];
  const app = server(api)
    .context<object>()
    .implement({
      add: (_c, a, b) => E.right(a + b),
      slow: (ctx, ms) => () =>
        new Promise((settle) => {
          const timer = setTimeout(() => settle(E.right("done")), ms);
          (ctx as { signal: AbortSignal }).signal.addEventListener("abort", () => {
            aborted.push("x");
            clearTimeout(timer);
            settle(E.right("aborted"));
          });
        }),
      log: () => E.right(null),
    });
  const a = connect(left, { methods: app.methods, context: {} });
  const b = connect(right, { methods: app.methods, context: {} });
  const fromB = client(api, b.transport);
  const fromA = client(api, a.transport);
  expect(await fromB.add(1, 2)()).toEqual(E.right(3));
  expect(await fromA.add(3, 4)()).toEqual(E.right(7));
  const controller = new AbortController();
  const slow = pipe(fromB.slow(10_000), withOptions({ signal: controller.signal }))();
  const fast = fromB.slow(1)();
  await new Promise((r) => setTimeout(r, 20));
  expect(await fast).toEqual(E.right("done"));
  controller.abort();
  const s = await slow;
  expect(E.isLeft(s) && s.left._tag === "TransportError" && s.left.reason).toBe("aborted");
  await new Promise((r) => setTimeout(r, 20));
  expect(aborted).toEqual(["x"]);
  expect(await notify(fromB.log("hi"))()).toEqual(E.right(undefined));
  const pending = fromB.slow(10_000)();
  await new Promise((r) => setTimeout(r, 5));
  a.close();
  const p = await pending;
  expect(E.isLeft(p) && p.left._tag === "TransportError" && p.left.reason).toBe("closed");
  await b.closed;
  expect(a.load()).toEqual({ incoming: 0, outgoing: 0, queued: 0 });
});

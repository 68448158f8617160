/**
 * A streamed call over `natsTransport` on a real nats-server, with a slow consumer (issue 33 item
 * 3: HeldValues holds what comes while it is busy): every value in order then the result; past
 * `maxAnswerBytes` of held values a Left, never a partial stream; a consumer that breaks out of
 * `for await` mid-stream ends the call and the transport goes on.
 */
import * as E from "fp-ts/Either";
import { client, open } from "../src/client";
import { natsTransport } from "../src/nats";
import { api, setUp, SUBJECT, tearDown, type Setup } from "./helpers/nats-service";

let setup: Setup;
beforeAll(async () => {
  setup = await setUp();
});
afterAll(async () => {
  await tearDown(setup);
});

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test("a slow consumer of 3000 values (open, for await): all of them in order, then the result", async () => {
  const rpc = client(api, natsTransport(setup.calling, SUBJECT));
  const run = open(rpc.count(3000));
  const values: number[] = [];
  for await (const value of run) {
    await turn();
    await turn();
    values.push(value);
  }
  expect(values).toEqual(Array.from({ length: 3000 }, (_, i) => i + 1));
  expect(await run.result).toEqual(E.right("counted to 3000"));
});

test("a consumer that takes nothing, past maxAnswerBytes of held values: a Left, never a part of the stream", async () => {
  const rpc = client(api, natsTransport(setup.calling, SUBJECT, { maxAnswerBytes: 2000 }));
  const run = open(rpc.count(50_000));
  expect(await run.result).toMatchObject(E.left({ _tag: "TransportError", reason: "tooLarge" }));
  // What was read before the Left is a prefix, in order.
  const values: number[] = [];
  for await (const value of run) values.push(value);
  expect(values).toEqual(Array.from({ length: values.length }, (_, i) => i + 1));
});

test("breaking out of for await mid-stream: the call ends aborted, and the transport serves the next call", async () => {
  const rpc = client(api, natsTransport(setup.calling, SUBJECT));
  const run = open(rpc.count(100_000));
  const values: number[] = [];
  for await (const value of run) {
    values.push(value);
    if (values.length === 50) break;
  }
  expect(values).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  expect(await run.result).toMatchObject(E.left({ _tag: "TransportError", reason: "aborted" }));
  expect(await rpc.count(3)()).toEqual(E.right("counted to 3"));
});

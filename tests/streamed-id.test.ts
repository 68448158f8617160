/**
 * A streamed call sent by hand: a body with `onValue` and no `ids` (a caller of a transport of their
 * own making, not the client). Every transport routes a call's values by its id; without `ids` it
 * takes the id of the request in the body, a string one too. Before, each skipped every value and
 * the call ended `Right` with none (found by the hostile review of issue 33).
 */
import * as E from "fp-ts/Either";
import { serve, Success, type DevServer } from "../src";
import { http, local, type Transport } from "../src/client";
import { natsTransport } from "../src/nats";
import { nodeHttp } from "../src/node-http";
import { gate, setUp, SUBJECT, tearDown, type Setup } from "./helpers/nats-service";
import { recordLogs } from "./support";

const methods = {
  count: async function* (to: number) {
    for (let i = 1; i <= to; i++) yield i;
    return Success(`counted to ${to}`);
  },
};

/** Sends `body` with `onValue` and no `ids`: the values seen and the answer's id. */
const byHand = async (transport: Transport, body: string) => {
  const values: unknown[] = [];
  const answer = await transport(body, {
    signal: new AbortController().signal,
    onValue: (value) => void values.push(value),
  })();
  const text = E.isRight(answer) ? answer.right : undefined;
  const json: unknown = typeof text === "string" ? JSON.parse(text) : text === undefined ? undefined : text.json;
  return { values, answer: json };
};

let dev: DevServer;
let nats: Setup;

beforeAll(async () => {
  const quiet = recordLogs();
  dev = await serve("127.0.0.1", 0, { methods }).finally(quiet.restore);
  nats = await setUp();
});

afterAll(async () => {
  await new Promise<void>((resolve) => dev.close(() => resolve()));
  gate.release();
  await tearDown(nats);
});

const transports: Array<[string, () => Transport]> = [
  ["local", () => local(methods)],
  ["http", () => http(dev.url)],
  ["nodeHttp", () => nodeHttp(dev.url)],
  ["natsTransport", () => natsTransport(nats.calling, SUBJECT)],
];

describe.each(transports)("%s, a streamed call with no ids", (_name, make) => {
  test("a number id: every value, then the answer", async () => {
    expect(await byHand(make(), '{"jsonrpc":"2.0","method":"count","params":[3],"id":7}')).toEqual({
      values: [1, 2, 3],
      answer: { jsonrpc: "2.0", result: "counted to 3", id: 7 },
    });
  });

  test("a string id: the same", async () => {
    expect(await byHand(make(), '{"jsonrpc":"2.0","method":"count","params":[2],"id":"seven"}')).toEqual({
      values: [1, 2],
      answer: { jsonrpc: "2.0", result: "counted to 2", id: "seven" },
    });
  });
});

/**
 * What the client writes and how it reads, through a transport that records each request body and
 * answers with a given text: the request text written around the params' JSON, and the answer read
 * by the fast path for a success written as rpcserver writes it, or parsed whole otherwise.
 */
import * as E from "fp-ts/Either";
import * as TE from "fp-ts/TaskEither";
import * as t from "io-ts";
import { contract } from "../src";
import { batch, client, notify, type Transport } from "../src/client";

const api = contract({
  add: { params: t.tuple([t.number, t.number]), result: t.number },
  greet: { params: t.type({ name: t.string }), result: t.string },
  ping: { result: t.string },
  anything: { params: t.unknown, result: t.unknown },
  /** Params whose encoded form is a function: no JSON form. */
  opaque: {
    params: new t.Type<unknown, unknown, unknown>(
      "Opaque",
      (_u): _u is unknown => true,
      t.success,
      () => () => 1,
    ),
  },
});

/** A transport that records the bodies it is given and answers each with `answer(body)`. */
const recording = (answer: (request: { id?: number }) => string) => {
  const bodies: string[] = [];
  const transport: Transport = (body) => {
    bodies.push(body);
    return TE.right(answer(JSON.parse(body) as { id?: number }));
  };
  return { bodies, transport };
};

/**
 * The bodies with each id replaced by its rank among the ids of `bodies` (1 for the first one
 * seen): ids come from one counter for the whole process, so their values depend on the calls made
 * before; their ranks show the order, and that no id is sent twice. The text is kept as written.
 */
const ranked = (bodies: string[]): string[] => {
  const ranks = new Map<string, number>();
  return bodies.map((body) =>
    body.replace(/"id":(\d+)\}/g, (_whole, id: string) => {
      if (!ranks.has(id)) ranks.set(id, ranks.size + 1);
      return `"id":${String(ranks.get(id))}}`;
    }),
  );
};

const success = (result: string) => (request: { id?: number }) =>
  `{"jsonrpc":"2.0","result":${result},"id":${String(request.id)}}`;

describe("the request text", () => {
  test("members in the order jsonrpc, method, params, id; no params member without params", async () => {
    const { bodies, transport } = recording(success('"ok"'));
    const c = client(api, transport);
    await c.add(1, 2)();
    await c.greet({ name: 'Zoë "z"' })();
    await c.ping()();
    await notify(c.add(3, 4))();
    expect(ranked(bodies)).toEqual([
      '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}',
      '{"jsonrpc":"2.0","method":"greet","params":{"name":"Zoë \\"z\\""},"id":2}',
      '{"jsonrpc":"2.0","method":"ping","id":3}',
      '{"jsonrpc":"2.0","method":"add","params":[3,4]}',
    ]);
    for (const body of bodies) expect(JSON.stringify(JSON.parse(body))).toBe(body);
  });

  test("a method name that needs escaping (table client), and a batch", async () => {
    const { bodies, transport } = recording(() => "[]");
    const c = client<{ 'say "hi"': (x: number) => unknown; add: (a: number, b: number) => unknown }>(transport);
    await batch([c['say "hi"'](1), notify(c.add(1, 2))])();
    expect(ranked(bodies)).toEqual([
      '[{"jsonrpc":"2.0","method":"say \\"hi\\"","params":[1],"id":1},{"jsonrpc":"2.0","method":"add","params":[1,2]}]',
    ]);
  });

  test("params with no JSON form are left out, as JSON.stringify of the request object leaves them", async () => {
    const { bodies, transport } = recording(success("null"));
    const c = client(api, transport);
    await c.opaque(1)();
    expect(ranked(bodies)).toEqual(['{"jsonrpc":"2.0","method":"opaque","id":1}']);
  });

  test("params JSON cannot hold: InvalidCall for that call, nothing sent", async () => {
    const { bodies, transport } = recording(success("null"));
    const c = client(api, transport);
    const answer = await c.anything(10n)();
    expect(E.isLeft(answer) && answer.left).toMatchObject({ _tag: "InvalidCall", method: "anything" });
    const [ok, bad] = await batch([c.add(1, 2), c.anything(10n)])();
    expect([ok, bad].map((a) => E.isLeft(a) && a.left._tag)).toEqual(["InvalidCall", "InvalidCall"]);
    expect(bodies).toEqual([]);
  });
});

describe("reading the answer", () => {
  test.each([
    ["as rpcserver writes it", (id: number) => `{"jsonrpc":"2.0","result":3,"id":${id}}`],
    ["members in another order", (id: number) => `{"id":${id},"jsonrpc":"2.0","result":3}`],
    ["with whitespace", (id: number) => `{ "jsonrpc": "2.0", "result": 3, "id": ${id} }\n`],
    ["with whitespace inside the result", (id: number) => `{"jsonrpc":"2.0","result": 3 ,"id":${id}}`],
  ])("a success %s: its result", async (_name, text) => {
    const c = client(api, recording((r) => text(r.id as number)).transport);
    expect(await c.add(1, 2)()).toEqual(E.right(3));
  });

  test("a text with the form of a success but two members in its result slot: parsed whole", async () => {
    // Not one JSON value in the result slot, so the whole text is read: with an error beside a
    // result, the error is the answer (as before the fast path).
    const c = client(
      api,
      recording((r) => `{"jsonrpc":"2.0","result":3,"error":{"code":1,"message":"m"},"id":${String(r.id)}}`).transport,
    );
    const answer = await c.add(1, 2)();
    expect(answer).toEqual(E.left({ _tag: "ServerError", code: 1, message: "m" }));
  });

  test("another id, a result its codec refuses, a text that is not JSON", async () => {
    const other = client(api, recording(() => '{"jsonrpc":"2.0","result":3,"id":99}').transport);
    expect(await other.add(1, 2)()).toEqual(E.left({ _tag: "InvalidAnswer", reason: "unknownId", id: 99 }));
    const refused = await client(api, recording(success('"three"')).transport).add(1, 2)();
    expect(E.isLeft(refused) && refused.left).toMatchObject({ _tag: "InvalidAnswer", reason: "resultRefused" });
    const broken = await client(
      api,
      recording((r) => `{"jsonrpc":"2.0","result":3,"id":${String(r.id)}`).transport,
    ).add(1, 2)();
    expect(E.isLeft(broken) && broken.left).toMatchObject({ _tag: "InvalidAnswer", reason: "notJson" });
  });
});

describe("a transport that breaks its contract", () => {
  test("one that throws or rejects: a network TransportError, never a rejected call", async () => {
    const thrown = new globalThis.Error("thrown");
    const throws: Transport = () => {
      throw thrown;
    };
    const rejects: Transport = () => () => Promise.reject(thrown);
    for (const transport of [throws, rejects]) {
      const c = client(api, transport);
      expect(await c.add(1, 2)()).toEqual(E.left({ _tag: "TransportError", reason: "network", cause: thrown }));
      expect(await notify(c.add(1, 2))()).toEqual(E.left({ _tag: "TransportError", reason: "network", cause: thrown }));
      expect(await batch([c.add(1, 2)])()).toEqual([
        E.left({ _tag: "TransportError", reason: "network", cause: thrown }),
      ]);
    }
  });
});

/**
 * Interop over real sockets on 127.0.0.1, with code no one here wrote: our client
 * (`rpcserver/client`, from the sources) against jayson's HTTP server and json-rpc-2.0's
 * `JSONRPCServer` behind a small `node:http` handler; then jayson's and json-rpc-2.0's clients
 * against our development server serving a contract's implementation.
 *
 * What differs between the libraries, and what our client does about it:
 * - Notifications: both servers answer 204 with no body, as our dev server does; so does a batch
 *   of notifications only. The client reads no body for a notification, and a batch member that
 *   is a notification is Right(undefined).
 * - Errors: both servers send JSON-RPC errors with status 200. jayson refuses a content type other
 *   than `application/json` with 415 and a text body, and a body it cannot parse with 400 and a
 *   text body: a `TransportError` of reason `status`. A handler that sends JSON-RPC errors with a
 *   5xx (as some do) still has its JSON body read as the answer. A header of the user's replaces
 *   the transport's default whatever its case: `Content-Type: text/plain` once went out joined to
 *   the default (`application/json, text/plain`), which jayson took for JSON.
 * - json-rpc-2.0 answers a batch with one response as that response alone, not in an array
 *   (`receiveMultiple`): the client takes it as the one-element array it should be.
 * - json-rpc-2.0 answers a method that throws with code 0 and the exception's message; jayson's
 *   HTTP server lets a callback method's exception end the process (not exercised here).
 * - Neither server sends `data` with -32601 (ours sends the method's name); jayson treats
 *   `"id": null` as a notification, json-rpc-2.0 answers it. Our client never sends a null id.
 * - jayson's client sends string ids (UUIDs) and a notification as a request with an id of null
 *   (which it then leaves out); json-rpc-2.0's client counts numeric ids from 1.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as E from "fp-ts/Either";
import { pipe } from "fp-ts/function";
import * as t from "io-ts";
import jayson from "jayson";
import {
  JSONRPCClient,
  JSONRPCErrorException,
  JSONRPCServer,
  type JSONRPCRequest,
  type JSONRPCResponse,
} from "json-rpc-2.0";
import { contract, Error as RpcError, implement, serve, setLogger, type Logger } from "../src";
import { batch, client, http as httpTransport, notify, withOptions, type ContractClient } from "../src/client";
import { bounded, HOST } from "./helpers/processes";

const DateFromISOString = new t.Type<Date, string, unknown>(
  "DateFromISOString",
  (u): u is Date => u instanceof Date,
  (u, c) => (typeof u === "string" && !Number.isNaN(new Date(u).getTime()) ? t.success(new Date(u)) : t.failure(u, c)),
  (a) => a.toISOString(),
);

/** One contract for every server here: positional and named params, an error with data, a Date, a notification target. */
const api = contract({
  add: { params: t.tuple([t.number, t.number]), result: t.number },
  greet: {
    params: t.type({ name: t.string }),
    result: t.string,
    errors: [{ code: 404, message: "No such person", data: t.type({ name: t.string }) }],
  },
  epoch: { result: DateFromISOString },
  log: { params: t.tuple([t.string]), result: t.null },
  /** Served by none of the foreign servers. */
  missing: { result: t.string },
  /** Answers only after the client has given up. */
  stall: { result: t.string },
});

const EPOCH = "1970-01-01T00:00:00.000Z";
const STALL_MS = 300;

const quiet: Logger = { error: () => undefined, warn: () => undefined, info: () => undefined };
let previousLogger: Logger;
beforeAll(() => {
  previousLogger = setLogger(quiet);
});
afterAll(() => {
  setLogger(previousLogger);
});

const listen = async (server: http.Server): Promise<string> => {
  await bounded(new Promise<void>((resolve) => server.listen(0, HOST, resolve)), "listen");
  return `http://${HOST}:${(server.address() as AddressInfo).port}/`;
};

const stop = (server: http.Server): Promise<void> =>
  bounded(
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
    "close",
  );

/** A foreign server running the contract's methods, and the lines its `log` received. */
interface Foreign {
  readonly url: string;
  readonly logged: string[];
  readonly close: () => Promise<void>;
}

/** jayson's HTTP server: callback methods; an error is `server.error(code, message, data)`. */
const startJayson = async (): Promise<Foreign> => {
  const logged: string[] = [];
  const server = new jayson.Server({
    add: (args: [number, number], callback: jayson.JSONRPCCallbackTypePlain) => callback(null, args[0] + args[1]),
    greet: function (this: jayson.Server, args: { name: string }, callback: jayson.JSONRPCCallbackTypePlain) {
      if (args.name === "") callback(this.error(404, "No such person", { name: args.name }));
      else callback(null, `Hello, ${args.name}!`);
    },
    epoch: (_args: unknown, callback: jayson.JSONRPCCallbackTypePlain) => callback(null, EPOCH),
    log: (args: [string], callback: jayson.JSONRPCCallbackTypePlain) => {
      logged.push(args[0]);
      callback(null, null);
    },
    stall: (_args: unknown, callback: jayson.JSONRPCCallbackTypePlain) => {
      setTimeout(() => callback(null, "late"), STALL_MS);
    },
  });
  const httpServer = server.http();
  const url = await listen(httpServer);
  return { url, logged, close: () => stop(httpServer) };
};

/**
 * json-rpc-2.0's `JSONRPCServer` behind the handler its README shows (there with Express): the
 * answer as JSON with 200, or 204 when `receiveJSON` answers `null`. `errorStatus` sends answers
 * that hold an error with another status, as some handlers do.
 */
const startJsonRpc2 = async (errorStatus = 200): Promise<Foreign> => {
  const logged: string[] = [];
  const server = new JSONRPCServer({ errorListener: () => undefined });
  server.addMethod("add", ([a, b]: [number, number]) => a + b);
  server.addMethod("greet", ({ name }: { name: string }) => {
    if (name === "") throw new JSONRPCErrorException("No such person", 404, { name });
    return `Hello, ${name}!`;
  });
  server.addMethod("epoch", () => EPOCH);
  server.addMethod("log", ([line]: [string]) => {
    logged.push(line);
    return null;
  });
  server.addMethod("stall", () => new Promise((resolve) => setTimeout(() => resolve("late"), STALL_MS)));
  server.addMethod("boom", () => {
    throw new globalThis.Error("secret");
  });
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      void server.receiveJSON(body).then((answer) => {
        if (answer === null) {
          res.writeHead(204).end();
          return;
        }
        const failed = (Array.isArray(answer) ? answer : [answer]).some((r) => r.error !== undefined);
        res.writeHead(failed ? errorStatus : 200, { "content-type": "application/json" }).end(JSON.stringify(answer));
      });
    });
  };
  const httpServer = http.createServer(handler);
  const url = await listen(httpServer);
  return { url, logged, close: () => stop(httpServer) };
};

describe.each([
  ["jayson's HTTP server", () => startJayson()],
  ["json-rpc-2.0's JSONRPCServer", () => startJsonRpc2()],
] as const)("our client against %s", (_name, start) => {
  let foreign: Foreign;
  let api$: ContractClient<typeof api.methods>;
  beforeAll(async () => {
    foreign = await start();
    api$ = client(api, httpTransport(foreign.url));
  });
  afterAll(() => foreign.close());

  test("single calls: positional and named params, a result its codec decodes", async () => {
    expect(await api$.add(2, 3)()).toEqual(E.right(5));
    expect(await api$.greet({ name: "Ann" })()).toEqual(E.right("Hello, Ann!"));
    expect(await api$.epoch()()).toEqual(E.right(new Date(0)));
  });

  test("a server error with data: a ServerError, its data decoded by the contract's codec", async () => {
    expect(await api$.greet({ name: "" })()).toEqual(
      E.left({ _tag: "ServerError", declared: true, code: 404, message: "No such person", data: { name: "" } }),
    );
  });

  test("method not found: -32601, as the server sends it (without data)", async () => {
    expect(await api$.missing()()).toEqual(E.left({ _tag: "ServerError", code: -32601, message: "Method not found" }));
  });

  test("a notification: answered 204 with no body, Right(undefined); the server ran it", async () => {
    expect(await notify(api$.log("one"))()).toEqual(E.right(undefined));
    expect(foreign.logged).toContain("one");
  });

  test("a batch as a tuple, with a notification and an error in it", async () => {
    const answers = await batch([
      api$.add(1, 2),
      api$.greet({ name: "Bo" }),
      notify(api$.log("in a batch")),
      api$.greet({ name: "" }),
      api$.missing(),
    ])();
    expect(answers).toEqual([
      E.right(3),
      E.right("Hello, Bo!"),
      E.right(undefined),
      E.left({ _tag: "ServerError", declared: true, code: 404, message: "No such person", data: { name: "" } }),
      E.left({ _tag: "ServerError", code: -32601, message: "Method not found" }),
    ]);
    expect(foreign.logged).toContain("in a batch");
  });

  test("a batch as a record", async () => {
    expect(await batch({ sum: api$.add(20, 22), when: api$.epoch(), hi: api$.greet({ name: "Cy" }) })()).toEqual({
      sum: E.right(42),
      when: E.right(new Date(0)),
      hi: E.right("Hello, Cy!"),
    });
  });

  test("a batch of notifications only: 204, every member Right(undefined)", async () => {
    expect(await batch([notify(api$.log("n1")), notify(api$.log("n2"))])()).toEqual([
      E.right(undefined),
      E.right(undefined),
    ]);
    expect(foreign.logged).toEqual(expect.arrayContaining(["n1", "n2"]));
  });

  test("a batch with one call and notifications (json-rpc-2.0 answers it with a bare object)", async () => {
    const [sum, logged] = await batch([api$.add(4, 5), notify(api$.log("beside"))])();
    expect(sum).toEqual(E.right(9));
    expect(logged).toEqual(E.right(undefined));
  });

  test("a call that outlives its timeout: a TransportError, and the next call is answered", async () => {
    expect(await pipe(api$.stall(), withOptions({ timeoutMs: 20 }))()).toEqual(
      E.left({ _tag: "TransportError", reason: "timeout", timeoutMs: 20 }),
    );
    expect(await api$.add(1, 1)()).toEqual(E.right(2));
  });

  test("a client typed from a table alone (no contract) against the same server", async () => {
    const table = client<{ add: (a: number, b: number) => unknown; greet: (p: { name: string }) => unknown }>(
      httpTransport(foreign.url),
    );
    expect(await table.add(6, 7)()).toEqual(E.right(13));
    expect(await table.greet({ name: "Di" })()).toEqual(E.right("Hello, Di!"));
  });
});

describe("what differs between the foreign servers", () => {
  test.each(["content-type", "Content-Type"])(
    "jayson refuses a content type other than application/json with 415 and a text body: TransportError status (the header given as %s)",
    async (header) => {
      const foreign = await startJayson();
      try {
        // The user's header replaces the transport's default whatever its case (fetch would join the two).
        const refused = client(api, httpTransport(foreign.url, { headers: { [header]: "text/plain" } }));
        expect(await refused.add(1, 2)()).toEqual(
          E.left({ _tag: "TransportError", reason: "status", status: 415, body: "Unsupported Media Type" }),
        );
      } finally {
        await foreign.close();
      }
    },
  );

  test("json-rpc-2.0 answers a method that throws with code 0 and the exception's message", async () => {
    const foreign = await startJsonRpc2();
    try {
      const c = client<{ boom: () => unknown }>(httpTransport(foreign.url));
      expect(await c.boom()()).toEqual(E.left({ _tag: "ServerError", code: 0, message: "secret" }));
    } finally {
      await foreign.close();
    }
  });

  test("a handler that sends JSON-RPC errors with status 500: the JSON body is still the answer", async () => {
    const foreign = await startJsonRpc2(500);
    try {
      const c = client(api, httpTransport(foreign.url));
      expect(await c.greet({ name: "" })()).toEqual(
        E.left({ _tag: "ServerError", declared: true, code: 404, message: "No such person", data: { name: "" } }),
      );
      expect(await c.add(1, 2)()).toEqual(E.right(3));
      const [ok, missing] = await batch([c.add(1, 2), c.missing()])();
      expect(ok).toEqual(E.right(3));
      expect(missing).toEqual(E.left({ _tag: "ServerError", code: -32601, message: "Method not found" }));
    } finally {
      await foreign.close();
    }
  });
});

describe("foreign clients against our dev server (serve, a contract implemented)", () => {
  const logged: string[] = [];
  const methods = implement(api, {
    add: (a, b) => E.right(a + b),
    greet: ({ name }) => (name === "" ? RpcError(404, "No such person", { name }) : E.right(`Hello, ${name}!`)),
    epoch: () => E.right(new Date(0)),
    log: (line) => {
      logged.push(line);
      return E.right(null);
    },
    missing: () => E.right("here"),
    stall: () => () => new Promise((resolve) => setTimeout(() => resolve(E.right("late")), STALL_MS)),
  });
  let server: Awaited<ReturnType<typeof serve>>;
  let url: string;
  let port: number;
  beforeAll(async () => {
    server = await serve(HOST, 0, { methods });
    port = (server.address() as AddressInfo).port;
    url = `http://${HOST}:${port}/`;
  });
  afterAll(() => stop(server as unknown as http.Server));

  describe("jayson.Client.http", () => {
    type Reply = jayson.JSONRPCVersionTwoResponse | undefined;
    const jaysonClient = (): jayson.HttpClient => jayson.Client.http({ host: HOST, port });
    const request = (c: jayson.HttpClient, method: string, params: jayson.RequestParamsLike, id?: string | null) =>
      new Promise<Reply>((resolve, reject) => {
        const callback: jayson.JSONRPCCallbackTypePlain = (error, response: Reply) =>
          error ? reject(error as Error) : resolve(response);
        if (id === undefined) c.request(method, params, callback);
        else c.request(method, params, id, callback);
      });

    test("positional and named params, a Date as its ISO text, an error with data, method not found", async () => {
      const c = jaysonClient();
      expect(await request(c, "add", [2, 3])).toMatchObject({ jsonrpc: "2.0", result: 5 });
      expect(await request(c, "greet", { name: "jayson" }, "g")).toEqual({
        jsonrpc: "2.0",
        result: "Hello, jayson!",
        id: "g",
      });
      expect(await request(c, "epoch", undefined, "e")).toEqual({ jsonrpc: "2.0", result: EPOCH, id: "e" });
      expect(await request(c, "greet", { name: "" }, "x")).toEqual({
        jsonrpc: "2.0",
        error: { code: 404, message: "No such person", data: { name: "" } },
        id: "x",
      });
      expect(await request(c, "nope", [], "n")).toEqual({
        jsonrpc: "2.0",
        error: { code: -32601, message: "Method not found", data: "nope" },
        id: "n",
      });
    });

    test("a notification (jayson's id of null): 204, nothing to read; the method ran", async () => {
      expect(await request(jaysonClient(), "log", ["from jayson"], null)).toBeUndefined();
      expect(logged).toContain("from jayson");
    });

    test("a batch with a notification and an error", async () => {
      const c = jaysonClient();
      const answers = await new Promise<unknown>((resolve, reject) =>
        c.request(
          [
            c.request("add", [1, 2], "a"),
            c.request("log", ["jayson batch"], null),
            c.request("greet", { name: "" }, "b"),
          ],
          (error: unknown, responses?: unknown[]) => (error ? reject(error as Error) : resolve(responses)),
        ),
      );
      expect(answers).toEqual([
        { jsonrpc: "2.0", result: 3, id: "a" },
        { jsonrpc: "2.0", error: { code: 404, message: "No such person", data: { name: "" } }, id: "b" },
      ]);
      expect(logged).toContain("jayson batch");
    });
  });

  describe("json-rpc-2.0's JSONRPCClient (a fetch-based send, as its README shows)", () => {
    const jsonRpc2Client = (): JSONRPCClient => {
      const c: JSONRPCClient = new JSONRPCClient(async (request: JSONRPCRequest | JSONRPCRequest[]) => {
        const response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(request),
        });
        if (response.status === 200) c.receive((await response.json()) as JSONRPCResponse | JSONRPCResponse[]);
        else if (response.status !== 204) throw new globalThis.Error(`HTTP ${response.status}`);
      });
      return c;
    };

    test("positional and named params, an error with data, method not found", async () => {
      const c = jsonRpc2Client();
      expect(await c.request("add", [20, 22])).toBe(42);
      expect(await c.request("greet", { name: "json-rpc-2.0" })).toBe("Hello, json-rpc-2.0!");
      expect(await c.request("epoch", undefined)).toBe(EPOCH);
      const failure = c.request("greet", { name: "" });
      await expect(failure).rejects.toBeInstanceOf(JSONRPCErrorException);
      await expect(failure).rejects.toMatchObject({ code: 404, message: "No such person", data: { name: "" } });
      await expect(c.request("nope", [])).rejects.toMatchObject({ code: -32601, message: "Method not found" });
    });

    test("a notification: 204, nothing to receive; the method ran", async () => {
      const c = jsonRpc2Client();
      c.notify("log", ["from json-rpc-2.0"]);
      // notify does not wait: a call after it on the same client is answered after the notification ran.
      await bounded(
        (async () => {
          while (!logged.includes("from json-rpc-2.0")) await new Promise((resolve) => setTimeout(resolve, 5));
        })(),
        "the notification to run",
      );
    });

    test("a batch (requestAdvanced) with a notification and an error", async () => {
      const c = jsonRpc2Client();
      const answers = await c.requestAdvanced([
        { jsonrpc: "2.0", method: "add", params: [1, 2], id: 1 },
        { jsonrpc: "2.0", method: "log", params: ["json-rpc-2.0 batch"] },
        { jsonrpc: "2.0", method: "greet", params: { name: "" }, id: 2 },
      ]);
      expect(answers).toEqual([
        { jsonrpc: "2.0", result: 3, id: 1 },
        { jsonrpc: "2.0", error: { code: 404, message: "No such person", data: { name: "" } }, id: 2 },
      ]);
      expect(logged).toContain("json-rpc-2.0 batch");
    });
  });
});

// The client's conformance cases, runnable on any JavaScript runtime: Node.js, Bun, Deno and a
// browser (bundled). `runClientConformance(rpc, rpcClient, url)` takes the built package's main and
// `rpcserver/client` exports and runs every case over `local` and, when `url` is given, over `http`
// against a development server serving `clientMethods(rpc)` (tests/runtime/devserver.mjs starts one).
// Eithers are written as the plain data they are, so that nothing here imports fp-ts.
import * as t from "io-ts";

const right = (right) => ({ _tag: "Right", right });
const left = (left) => ({ _tag: "Left", left });

const DateFromISOString = new t.Type(
  "DateFromISOString",
  (u) => u instanceof Date,
  (u, c) => (typeof u === "string" && !Number.isNaN(new Date(u).getTime()) ? t.success(new Date(u)) : t.failure(u, c)),
  (a) => a.toISOString(),
);

/** The contract both ends share. */
export const clientContract = (rpc) =>
  rpc.contract({
    add: { params: t.tuple([t.number, t.number]), result: t.number },
    greet: {
      params: t.type({ name: t.string }),
      result: t.string,
      errors: [{ code: 404, message: "No such person", data: t.type({ name: t.string }) }],
    },
    epoch: { result: DateFromISOString },
    log: { params: t.tuple([t.string]), result: t.null },
    seen: { params: t.tuple([t.string]), result: t.boolean },
    stall: { result: t.string },
  });

/** How long `stall` takes to answer: longer than any timeout the cases give it. */
const STALL_MS = 200;

/** The contract's implementation: what the dev server serves and `local` dispatches to. */
export const clientMethods = (rpc) => {
  const logged = new Set();
  return rpc.implement(clientContract(rpc), {
    add: (a, b) => right(a + b),
    greet: ({ name }) => (name === "" ? rpc.Error(404, "No such person", { name }) : right(`Hello, ${name}!`)),
    epoch: () => right(new Date(0)),
    log: (line) => {
      logged.add(line);
      return right(null);
    },
    seen: (line) => right(logged.has(line)),
    stall: () => () => new Promise((resolve) => setTimeout(() => resolve(right("late")), STALL_MS)),
  });
};

const ANY = Symbol("any");

const equal = (actual, expected) => {
  if (expected === ANY) return true;
  if (expected instanceof Date) return actual instanceof Date && actual.getTime() === expected.getTime();
  if (typeof expected !== "object" || expected === null) return Object.is(actual, expected);
  if (typeof actual !== "object" || actual === null || Array.isArray(actual) !== Array.isArray(expected)) return false;
  const keys = new Set([...Object.keys(actual), ...Object.keys(expected)]);
  for (const key of keys) if (!equal(actual[key], expected[key])) return false;
  return true;
};

const show = (value) =>
  JSON.stringify(value, (_key, v) =>
    v instanceof Date ? `Date(${v.toISOString()})` : v instanceof Error ? String(v) : v,
  );

/** The cases over one transport; `tag` keeps the lines this run logs apart from other runs'. */
const cases = async (rpc, rpcClient, transport, tag, check) => {
  const { batch, client, notify, withOptions } = rpcClient;
  const api = client(clientContract(rpc), transport);
  check("positional params", await api.add(1, 2)(), right(3));
  check("named params", await api.greet({ name: "Ann" })(), right("Hello, Ann!"));
  check("a result decoded by its codec (a Date)", await api.epoch()(), right(new Date(0)));
  check(
    "a server error, its data decoded",
    await api.greet({ name: "" })(),
    left({ _tag: "ServerError", declared: true, code: 404, message: "No such person", data: { name: "" } }),
  );
  const line = `${tag} ${Math.random()}`;
  check("a notification", await notify(api.log(line))(), right(undefined));
  check("the notification ran", await api.seen(line)(), right(true));
  check(
    "a batch as a tuple, with a notification and an error",
    await batch([api.add(2, 3), notify(api.log(`${line} batch`)), api.greet({ name: "" })])(),
    [
      right(5),
      right(undefined),
      left({ _tag: "ServerError", declared: true, code: 404, message: "No such person", data: { name: "" } }),
    ],
  );
  check("the batch's notification ran", await api.seen(`${line} batch`)(), right(true));
  check("a batch as a record", await batch({ sum: api.add(20, 22), when: api.epoch() })(), {
    sum: right(42),
    when: right(new Date(0)),
  });
  const table = client(transport);
  check("a table client (no contract)", await table.add(6, 7)(), right(13));
  check(
    "method not found",
    await table.nope()(),
    left({ _tag: "ServerError", code: -32601, message: "Method not found", data: "nope" }),
  );
  const strict = client(rpc.contract({ greet: { params: t.type({ name: t.string }), result: t.number } }), transport);
  check(
    "a result its codec refuses",
    await strict.greet({ name: "Ann" })(),
    left({ _tag: "InvalidAnswer", reason: "resultRefused", result: "Hello, Ann!", message: ANY }),
  );
  check(
    "a timeout",
    await withOptions({ timeoutMs: 20 })(api.stall())(),
    left({ _tag: "TransportError", reason: "timeout", timeoutMs: 20 }),
  );
  const controller = new globalThis.AbortController();
  const pending = withOptions({ signal: controller.signal })(api.stall())();
  controller.abort(new Error("stop"));
  check("aborted while in flight", await pending, left({ _tag: "TransportError", reason: "aborted", cause: ANY }));
  check(
    "aborted before it is sent",
    await withOptions({ signal: controller.signal })(api.add(1, 1))(),
    left({ _tag: "TransportError", reason: "aborted", cause: ANY }),
  );
  check("answered after a timeout and an abort", await api.add(1, 1)(), right(2));
};

/**
 * rpcserver/connection over a MessageChannel (every runtime has one): two peers that each serve
 * the contract call each other, a cancelled call is aborted at both ends, and closing settles.
 */
const connectionCases = async (rpc, rpcClient, rpcConnection, check) => {
  const { port1, port2 } = new MessageChannel();
  const methods = clientMethods(rpc);
  const one = rpcConnection.connect(rpcConnection.messagePort(port1), { methods });
  const two = rpcConnection.connect(rpcConnection.messagePort(port2), { methods });
  const fromLeft = rpcClient.client(clientContract(rpc), one.transport);
  const fromRight = rpcClient.client(clientContract(rpc), two.transport);
  check("a call from one peer", await fromLeft.add(1, 2)(), right(3));
  check("a call from the other", await fromRight.greet({ name: "ann" })(), right("Hello, ann!"));
  const controller = new AbortController();
  const stalled = rpcClient.withOptions({ signal: controller.signal })(fromLeft.stall())();
  controller.abort();
  check("an aborted call", await stalled, left({ _tag: "TransportError", reason: "aborted", cause: ANY }));
  check("nothing left in flight", one.load(), { incoming: 0, outgoing: 0, queued: 0 });
  const pending = fromLeft.stall()();
  one.close();
  check(
    "a call when its connection closes",
    await pending,
    left({ _tag: "TransportError", reason: "closed", cause: ANY }),
  );
  two.close();
  check("closed", await Promise.all([one.closed, two.closed]).then(() => "both"), "both");
};

/** The cases over `local` (a context typed through a stage included) and, with `url`, over `http`. */
export const runClientConformance = async (rpc, rpcClient, url, rpcConnection) => {
  const quiet = () => undefined;
  const previous = rpc.setLogger({ error: quiet, warn: quiet, info: quiet });
  const failures = [];
  let passed = 0;
  const checker = (transportName) => (name, actual, expected) => {
    if (equal(actual, expected)) passed += 1;
    else failures.push(`client over ${transportName}: ${name}: got ${show(actual)}`);
  };
  try {
    await cases(rpc, rpcClient, rpcClient.local(clientMethods(rpc)), "local", checker("local"));

    // A server with a context and a stage that turns it: local dispatches with its options.
    const whoami = rpc.contract({ whoami: { result: t.string } });
    const app = rpc
      .server(whoami)
      .context()
      .use((call) =>
        call.context.token === "t1" ? right({ ...call, context: { user: "ann" } }) : rpc.Error(401, "Unauthorized"),
      )
      .implement({ whoami: (context) => right(context.user) });
    const check = checker("local with a context");
    const as = (token) => rpcClient.client(whoami, rpcClient.local(app.methods, app.options({ token })));
    check("the stage's context", await as("t1").whoami()(), right("ann"));
    check(
      "the stage's refusal",
      await as("t2").whoami()(),
      left({ _tag: "ServerError", code: 401, message: "Unauthorized" }),
    );

    if (rpcConnection === undefined) failures.push("connection: the module was not given");
    else await connectionCases(rpc, rpcClient, rpcConnection, checker("a connection over a MessageChannel"));

    if (url === undefined) failures.push("client over http: no server to call (no url given)");
    else {
      await cases(rpc, rpcClient, rpcClient.http(url), "http", checker("http"));
      const nobody = rpcClient.client(clientContract(rpc), rpcClient.http("http://127.0.0.1:1/"));
      checker("http")(
        "no server listening",
        await nobody.add(1, 2)(),
        left({ _tag: "TransportError", reason: "network", cause: ANY }),
      );
    }
  } catch (thrown) {
    failures.push(`client: threw ${thrown?.stack ?? thrown}`);
  } finally {
    rpc.setLogger(previous);
  }
  return { passed, failed: failures.length, failures };
};

// What esm.mjs and cjs.cjs report of rpcserver/client and the main entry's contract names, each with
// the modules its own loader gave it (import or require): a contract implemented with `implement`,
// `server(...).context().use(stage)`, `fromResult` and `withContext`, called through `local` and over
// `http` against the dev server, batches and notifications included; the table client's Proxy is no
// thenable. The same report from both formats says that both builds work alike.
module.exports = async ({ root, rpcClient, t, E }) => {
  const { batch, client, http, local, matchClientError, notify } = rpcClient;
  const DateFromISOString = new t.Type(
    "DateFromISOString",
    (u) => u instanceof Date,
    (u, c) => (typeof u === "string" && !Number.isNaN(Date.parse(u)) ? t.success(new Date(u)) : t.failure(u, c)),
    (d) => d.toISOString(),
  );
  const api = root.contract({
    add: { params: t.tuple([t.number, t.number]), result: t.number },
    half: { params: t.tuple([t.number]), result: t.number },
    now: { result: DateFromISOString },
    log: { params: t.tuple([t.string]) },
  });
  const logged = [];
  const served = root.implement(api, {
    add: root.fromResult((a, b) => root.Success(a + b)),
    half: (n) => (n % 2 === 0 ? E.right(n / 2) : root.Error(1, "odd", { n })),
    now: () => E.right(new Date(0)),
    log: (line) => (logged.push(line), E.right(null)),
  });
  const kind = matchClientError({
    ServerError: (e) => `server ${e.code}`,
    TransportError: (e) => `transport ${e.reason}`,
    InvalidAnswer: (e) => `answer ${e.reason}`,
    InvalidCall: (e) => `call ${e.method}`,
  });
  const calc = client(api, local(served));
  const now = await calc.now()();
  const half = await calc.half(3)();

  const dev = await root.serve("127.0.0.1", 0, { methods: served });
  let overHttp;
  try {
    const remote = client(api, http(`http://127.0.0.1:${dev.address().port}/`));
    overHttp = {
      add: await remote.add(2, 3)(),
      batch: await batch([remote.add(1, 1), remote.half(5), notify(remote.log("over http"))])(),
    };
  } finally {
    dev.closeAllConnections();
    dev.close();
  }

  const whoami = root.contract({ whoami: { result: t.string } });
  const app = root
    .server(whoami)
    .context()
    .use((call) => E.right({ request: call.request, context: { user: call.context.token } }))
    .implement({ whoami: (ctx) => E.right(ctx.user) });
  const greet = root
    .withContext()
    .withParams(t.tuple([t.string]), (ctx, greeting) => root.Success(`${greeting}, ${ctx.user}`));
  const table = client(local({ greet }, { context: { user: "ann" } }));

  return {
    add: await calc.add(1, 2)(),
    now: E.isRight(now) && now.right instanceof Date ? now.right.toISOString() : now,
    half: E.isLeft(half) ? kind(half.left) : half,
    batch: await batch({ sum: calc.add(2, 2), note: notify(calc.log("batched")) })(),
    http: overHttp,
    logged,
    server: await app.dispatch('{"jsonrpc":"2.0","method":"whoami","id":9}', { token: "bob" }),
    overServer: await client(whoami, local(app.methods, app.options({ token: "cy" }))).whoami()(),
    table: { greet: await table.greet("hi")(), then: typeof table.then, awaited: (await table) === table },
  };
};

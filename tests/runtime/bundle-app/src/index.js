// A browser app that imports every browser entry of the package, bundled by esbuild, Vite and
// webpack with no configuration (tests/runtime/bundlers.mjs) and run in Chromium. It publishes what
// it saw as `globalThis.rpcserverApp`, a promise of plain data the harness compares. It imports
// fp-ts's ES modules, as a bundled app does (`fp-ts/Either` resolves to them in a bundler; here the
// file itself, which webpack requires of a `"type": "module"` package): the package's browser build
// imports the same files, so the bundle holds one fp-ts (bundlers.mjs checks esbuild's).
/* global Request */
import * as E from "fp-ts/es6/Either.js";
import { dispatch, implement, method, serve, Success } from "rpcserver";
import { client, local } from "rpcserver/client";
import { connect, messagePort } from "rpcserver/connection";
import { dispatchToJson } from "rpcserver/main";
import { dispatchToJson as asyncDispatchToJson } from "rpcserver/async_main";
import { SuccessResponse, toDict } from "rpcserver/response";
import { InvalidParams } from "rpcserver/result";
import { ERROR_METHOD_NOT_FOUND } from "rpcserver/codes";
import { globalMethods } from "rpcserver/methods";
import { NODATA } from "rpcserver/sentinels";
import { toHttp } from "rpcserver/http";
import { environment, pipeline, serialize, Sync } from "rpcserver/pipeline";
import { inspectorPage, INSPECTOR_HEADERS } from "rpcserver/inspector";
import { fetchHandler } from "rpcserver/fetch";
import { api } from "./contract.js";

const methods = implement(api, {
  add: (a, b) => E.right(a + b),
  greet: ({ name }) => E.right(`hi, ${name}`),
});

const run = async () => {
  // The contract's client in-process (local) and over a connection on a MessageChannel.
  const local5 = await client(api, local(methods)).add(2, 3)();
  const { port1, port2 } = new MessageChannel();
  const serving = connect(messagePort(port1), { methods });
  const calling = connect(messagePort(port2));
  const greeted = await client(api, calling.transport).greet({ name: "ann" })();
  calling.close();
  serving.close();

  // The dispatch core and every other browser entry.
  // Named explicitly: a minifier (Vite's, webpack's) renames the function, so its name is not one.
  const ping = method(() => Success("pong"), "ping");
  const request = '{"jsonrpc":"2.0","method":"ping","id":1}';
  const env = environment({ ping }, undefined, false);
  const served = await serve("localhost", 0).then(
    () => "served",
    (error) => String(error && error.message),
  );
  return {
    hasProcess: typeof process !== "undefined",
    local: local5,
    connection: greeted,
    dispatched: dispatch(request, { ping }),
    main: dispatchToJson(request, { ping }),
    asyncMain: await asyncDispatchToJson(request, { ping }),
    missing:
      JSON.parse(dispatch('{"jsonrpc":"2.0","method":"nope","id":2}', { ping })).error.code === ERROR_METHOD_NOT_FOUND,
    invalid: InvalidParams("no").left.code,
    dict: toDict(E.right(SuccessResponse(1, 3))),
    nodata: NODATA === Symbol.for("rpcserver.NODATA"),
    registry: typeof globalMethods,
    http: toHttp(dispatch(request, { ping })).status,
    piped: serialize(env)(pipeline(Sync)(env)(request)),
    served,
    // The inspector page, made in the bundle: a whole document for the URL, under its own policy.
    inspector: (() => {
      const page = inspectorPage({ url: "/rpc" });
      return {
        doctype: page.startsWith("<!doctype html>"),
        url: page.includes('content="/rpc"'),
        policy: INSPECTOR_HEADERS["Content-Security-Policy"].includes("connect-src 'self'"),
      };
    })(),
    // rpcserver/fetch's handler in the bundle: a POST, and a browser's GET of the inspector page,
    // which the handler loads with import() (a chunk of its own where the bundler splits).
    fetched: await (async () => {
      const handle = fetchHandler({ ping });
      const post = await handle(new Request("http://localhost/rpc", { method: "POST", body: request }));
      const page = await handle(new Request("http://localhost/rpc", { headers: { Accept: "text/html" } }));
      const html = await page.text();
      return {
        post: await post.text(),
        page: page.status,
        doctype: html.startsWith("<!doctype html>"),
        url: html.includes('content="/rpc"'),
      };
    })(),
  };
};

globalThis.rpcserverApp = run().catch((error) => ({ thrown: String(error && error.stack) }));

// stateOwner: a requestState replayed across users, with the owner tag stripped (re-encoded payload),
// made before stateOwner was configured (same stateKey), and owners that collide ("" vs none, a
// stateOwner that throws).
//   node repro/mcp-hostile2/state-owner.mjs
import * as E from "fp-ts/lib/Either.js";
import { tool } from "../../dist/esm/mcp.js";
import { makeMcp, modernHeaders, serve, META } from "./common.mjs";

const asker = tool({
  description: "asks",
  run: async (_a, ctx) => {
    const got = await ctx.elicit({ message: "ok?", requestedSchema: { type: "object", properties: {} } }, "q")();
    return E.isRight(got) ? E.right("answered " + JSON.stringify(got.right)) : E.right("no: " + got.left.message);
  },
});
const mk = (stateOwner) => makeMcp({ tools: { asker }, stateKey: "k", ...(stateOwner ? { stateOwner } : {}) });
const byAuth = ({ httpRequest }) => {
  const a = httpRequest?.headers.get("authorization");
  if (a === "Bearer throw") throw new Error("owner lookup failed");
  return a ?? undefined;
};
const call = async (port, params, auth) => {
  const r = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: "POST",
    headers: modernHeaders("tools/call", {
      "Mcp-Name": "asker",
      ...(auth !== undefined ? { Authorization: auth } : {}),
    }),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        _meta: { ...META, "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } },
        name: "asker",
        arguments: {},
        ...params,
      },
    }),
  });
  const t = await r.text();
  const json = JSON.parse(
    t.includes("data:")
      ? t
          .match(/data: (.*)/g)
          .at(-1)
          .slice(6)
      : t,
  );
  return json;
};
const short = (j) =>
  j.error
    ? `error ${j.error.code} ${j.error.message}`
    : j.result.resultType === "input_required"
      ? "input_required"
      : JSON.stringify(j.result.content?.[0]?.text);
const answer = { q: { action: "accept", content: {} } };

const owned = await serve(mk(byAuth));
const plain = await serve(mk(undefined));
const stateOf = async (srv, auth) => (await call(srv.port, {}, auth)).result.requestState;
const aliceState = await stateOf(owned, "Bearer alice");
const noUserState = await stateOf(owned, undefined);
const oldState = await stateOf(plain, undefined); // before stateOwner was configured (same key)
const [payload, sig] = aliceState.split(".");
const stripped =
  Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, "base64url")), owner: undefined })).toString(
    "base64url",
  ) +
  "." +
  sig;
const rows = {
  "alice's state, alice": short(
    await call(owned.port, { requestState: aliceState, inputResponses: answer }, "Bearer alice"),
  ),
  "alice's state, bob": short(await call(owned.port, { requestState: aliceState }, "Bearer bob")),
  "alice's state, no user": short(await call(owned.port, { requestState: aliceState })),
  "alice's state, owner stripped (re-encoded), no user": short(await call(owned.port, { requestState: stripped })),
  "no-user state, bob": short(await call(owned.port, { requestState: noUserState }, "Bearer bob")),
  "state made before stateOwner, bob": short(await call(owned.port, { requestState: oldState }, "Bearer bob")),
  "state made before stateOwner, no user": short(await call(owned.port, { requestState: oldState })),
  "alice's state on a server without stateOwner": short(await call(plain.port, { requestState: aliceState })),
  "stateOwner throws": short(await call(owned.port, { requestState: aliceState }, "Bearer throw")),
};
console.log(JSON.stringify(rows, null, 1));
owned.server.close();
plain.server.close();

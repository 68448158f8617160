/**
 * `serveNats` for a methods table with typed `stages` and a `context(message)` function whose
 * parameter is not annotated: it failed to compile (the stages were checked against the context's
 * default before the function was read; see tests/http-handler-context-types.test.ts), and compiles
 * now, `message` a NatsMessage; a context the stages refuse, or none where they need one, still
 * does not. Compiled by `tsc`, never run (no NATS server here: tests/nats*.test.ts run one).
 */
import * as E from "fp-ts/Either";
import * as t from "io-ts";
import { Success, withContext, type Call } from "../src";
import { serveNats, type NatsConnection } from "../src/nats";

const whoami = withContext<{ user: string }>().withCodecs({ result: t.string }, (ctx) => Success(ctx.user));
const authenticate = (call: Call<{ token: string }>) => E.right({ ...call, context: { user: call.context.token } });
const service = { name: "svc", version: "1.0.0", subject: "rpc.svc" };

test("the types of serveNats' context function with typed stages", () => {
  void ((nc: NatsConnection) => {
    void serveNats(
      nc,
      { whoami },
      { ...service, stages: [authenticate], context: (message) => ({ token: message.subject }) },
    );
    void serveNats(
      nc,
      { whoami },
      // @ts-expect-error the stage takes { token }, the function makes { tok }
      { ...service, stages: [authenticate], context: (message) => ({ tok: message.subject }) },
    );
    // @ts-expect-error a stage that takes { token }, and no context function
    void serveNats(nc, { ping: () => Success(1) }, { ...service, stages: [authenticate] });
  });
});

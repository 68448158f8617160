import * as t from "io-ts";
import * as E from "fp-ts/Either";
import {
  dispatch,
  asyncDispatch,
  withCodecs,
  withContext,
  withParams,
  Success,
  observe,
  timeout,
  type Call,
} from "../src";
import type { ContextOf } from "../src/context";

const noCtx = withCodecs({ params: t.type({ n: t.number }) }, ({ n }) => Success(n));
const withCtx = withContext<{ user: string }>().withCodecs({ params: t.type({ n: t.number }) }, (ctx, { n }) =>
  Success(`${ctx.user}${n}`),
);
const zero = withParams(t.type({}), () => Success(1));
const plain = { p: (a: number) => Success(a) };

dispatch("", { noCtx });
// @ts-expect-error a method without context under a context
dispatch("", { noCtx }, { context: 42 });
dispatch("", { withCtx }, { context: { user: "ann" } });
// @ts-expect-error wrong context
dispatch("", { withCtx }, { context: 42 });
// @ts-expect-error no context for a method that needs one
dispatch("", { withCtx });
dispatch("", { zero }, { context: 42 });
dispatch("", { zero });
dispatch("", plain, { context: 42 });

const toUser = (call: Call<{ token: string }>) =>
  E.right({ request: call.request, context: { user: call.context.token } });
type X = ContextOf<{ readonly context: { readonly token: "t" }; readonly stages: readonly [typeof toUser] }>;
const x: X = 1 as never;
void x;
dispatch("", { withCtx }, { context: { token: "t" }, stages: [toUser] });
// @ts-expect-error the stage wants a token
dispatch("", { withCtx }, { context: 42, stages: [toUser] });
asyncDispatch("", { withCtx }, { context: { token: "t" }, stages: [observe((o) => void o), toUser, timeout(10)] });
const needsSignal = withContext<{ user: string; signal: AbortSignal }>().withParams(t.type({}), (c) => Success(c.user));
asyncDispatch("", { needsSignal }, { context: { user: "u" }, stages: [timeout(10)] });
// @ts-expect-error no timeout, no signal
asyncDispatch("", { needsSignal }, { context: { user: "u" } });
asyncDispatch(
  "",
  { withCtx },
  { context: { user: "u" }, stages: [observe<{ user: string }>((o) => void o.context.user)] },
);
// @ts-expect-error observe typed for another context
asyncDispatch("", { withCtx }, { context: { user: "u" }, stages: [observe<{ id: number }>((o) => void o.context.id)] });

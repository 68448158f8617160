// Values exported with their inferred types, compiled with declarations on: the emitter must be able
// to name every type these reach (the type-level helpers live in rpcserver/types, which this file
// does not import; the main entry's `types` namespace lets TypeScript reach them). Without it,
// TypeScript 6 reports TS2883 ("cannot be named without a reference to ... internal/..."), 5.x TS2742.
import { asyncDispatch, dispatch, dispatchToResponse, observe, timeout } from "rpcserver";
import { client, local } from "rpcserver/client";

export const stage = timeout(100);
export const watched = observe(() => undefined);
export const run = dispatch;
export const runAsync = asyncDispatch;
export const toResponse = dispatchToResponse;
export const rpc = client(local({}));

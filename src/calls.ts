/**
 * Client calls: a call is a `TaskEither<ClientError, A>` that also carries its request, so that
 * free functions can send it otherwise (`withOptions`, `notify`, `batch`) and no helper has to
 * live on the client object, where a method name could clash with it.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type { Task } from "fp-ts/Task";
import type { TaskEither } from "fp-ts/TaskEither";
import type { ClientError, InvalidAnswer, TransportError } from "./clienterror";
import type { Transport } from "./clienttransport";

/**
 * Options of a call (or of every call of a client): an `AbortSignal` that cancels it, and a
 * timeout in milliseconds (a positive number) after which it fails with a `timeout`
 * `TransportError`.
 *
 * @example
 * import type { CallOptions } from "rpcserver/client";
 * const options: CallOptions = { signal: new AbortController().signal, timeoutMs: 5000 };
 *
 * @since 5.0.10
 * @category client
 */
export interface CallOptions {
  readonly signal?: AbortSignal | undefined;
  readonly timeoutMs?: number | undefined;
}

const CALL = Symbol.for("rpcserver.call");

/** What a call sends and how it reads its answer. @internal */
export interface Spec<A> {
  readonly method: string;
  /** The params as sent (already encoded), or `undefined` for none; `encode` runs when the call does. */
  readonly params: () => unknown;
  readonly decode: (result: unknown) => E.Either<InvalidAnswer, A>;
  readonly decodeError: (code: number, data: unknown) => unknown;
  readonly transport: Transport;
  readonly options: CallOptions;
  readonly nextId: () => number;
}

/**
 * A call not yet sent: run it (`await call()`) to send it and get its `Either`. It is a
 * `TaskEither<ClientError, A>`, so `pipe(call, TE.map(...))` works; `withOptions`, `notify` and
 * `batch` read the request it carries.
 *
 * @example
 * import * as TE from "fp-ts/TaskEither";
 * import { pipe } from "fp-ts/function";
 * import type { RpcCall } from "rpcserver/client";
 * declare const add: (a: number, b: number) => RpcCall<number>;
 * const doubled = pipe(add(1, 2), TE.map((n) => n * 2));
 *
 * @since 5.0.10
 * @category client
 */
export interface RpcCall<A> extends TaskEither<ClientError, A> {
  readonly [CALL]: Spec<A>;
  readonly notification: false;
}

/**
 * A notification not yet sent (see {@link notify}): no id, no answer awaited; only sending can fail.
 *
 * @since 5.0.10
 * @category client
 */
export interface RpcNotification extends TaskEither<ClientError, void> {
  readonly [CALL]: Spec<unknown>;
  readonly notification: true;
}

const transportError = (reason: "aborted", cause: unknown): TransportError => ({
  _tag: "TransportError",
  reason,
  cause,
});

/** The signal of a call that nothing can abort: one for all of them. */
const never = new AbortController().signal;

/**
 * Runs `send` under the call's signal and timeout: it settles at the first of the answer, the
 * caller's abort, and the timer, and leaves no listener or timer behind. (`AbortSignal.any` is
 * not in Node 18: the signals are joined by hand.)
 */
const guarded = <A>(
  options: CallOptions,
  send: (signal: AbortSignal) => Promise<E.Either<ClientError, A>>,
): Promise<E.Either<ClientError, A>> => {
  const { signal, timeoutMs } = options;
  if (signal?.aborted === true) return Promise.resolve(E.left(transportError("aborted", signal.reason)));
  if (signal === undefined && timeoutMs === undefined) return send(never);
  const controller = new AbortController();
  return new Promise<E.Either<ClientError, A>>((settle) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = (answer: E.Either<ClientError, A>): void => {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      settle(answer);
    };
    const onAbort = (): void => {
      done(E.left(transportError("aborted", signal?.reason)));
      controller.abort(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        done(E.left({ _tag: "TransportError", reason: "timeout", timeoutMs }));
        controller.abort(new Error(`timed out after ${timeoutMs} ms`));
      }, timeoutMs);
    }
    send(controller.signal).then(done, (cause: unknown) =>
      done(E.left({ _tag: "TransportError", reason: "network", cause })),
    );
  });
};

/** A JSON object (or array): what an answer must be to be read. */
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

const parse = (body: string): E.Either<ClientError, unknown> => {
  try {
    return E.right(JSON.parse(body));
  } catch {
    return E.left({ _tag: "InvalidAnswer", reason: "notJson", body });
  }
};

const notJsonRpc = (answer: unknown): ClientError => ({ _tag: "InvalidAnswer", reason: "notJsonRpc", answer });

/** One response object as the call's Either: its result decoded, or its error. */
const read = <A>(spec: Spec<A>, response: unknown): E.Either<ClientError, A> => {
  if (!isObject(response) || response["jsonrpc"] !== "2.0") return E.left(notJsonRpc(response));
  if ("result" in response && !("error" in response)) return spec.decode(response["result"]);
  const error = response["error"];
  if (!isObject(error) || typeof error["code"] !== "number" || typeof error["message"] !== "string") {
    return E.left(notJsonRpc(response));
  }
  const code = error["code"];
  const message = error["message"];
  return E.left(
    "data" in error
      ? { _tag: "ServerError", code, message, data: spec.decodeError(code, error["data"]) }
      : { _tag: "ServerError", code, message },
  );
};

/** The request object of a call: `id` undefined for a notification. */
const envelope = (method: string, params: unknown, id: number | undefined): object =>
  params === undefined
    ? id === undefined
      ? { jsonrpc: "2.0", method }
      : { jsonrpc: "2.0", method, id }
    : id === undefined
      ? { jsonrpc: "2.0", method, params }
      : { jsonrpc: "2.0", method, params, id };

/** The request text of the calls, or why it cannot be sent. */
const encode = (
  specs: ReadonlyArray<Spec<unknown>>,
  ids: ReadonlyArray<number | undefined>,
  single: boolean,
): E.Either<ClientError, string> => {
  const requests: object[] = [];
  for (const [i, spec] of specs.entries()) {
    try {
      requests.push(envelope(spec.method, spec.params(), ids[i]));
    } catch (cause) {
      return E.left({ _tag: "InvalidCall", method: spec.method, cause });
    }
  }
  try {
    return E.right(JSON.stringify(single ? requests[0] : requests));
  } catch (cause) {
    return E.left({ _tag: "InvalidCall", method: specs.map((spec) => spec.method).join(", "), cause });
  }
};

const run = <A>(spec: Spec<A>, notification: boolean): Promise<E.Either<ClientError, A>> => {
  const id = notification ? undefined : spec.nextId();
  const body = encode([spec as Spec<unknown>], [id], true);
  if (E.isLeft(body)) return Promise.resolve(body);
  return guarded(spec.options, async (signal) => {
    const sent = await spec.transport(body.right, { signal })();
    if (E.isLeft(sent)) return sent;
    if (notification) return E.right(undefined as A);
    if (sent.right === "") return E.left({ _tag: "InvalidAnswer", reason: "noAnswer" });
    const parsed = parse(sent.right);
    if (E.isLeft(parsed)) return parsed;
    const answer = parsed.right;
    // An error with a null id (the server could not read the request) is still this call's answer.
    if (isObject(answer) && answer["id"] !== id && answer["id"] !== null) {
      return E.left({ _tag: "InvalidAnswer", reason: "unknownId", id: answer["id"] });
    }
    return read(spec, answer);
  });
};

/** The call of `spec`, sent when run. @internal */
export const makeCall = <A>(spec: Spec<A>): RpcCall<A> =>
  Object.assign(() => run(spec, false), { [CALL]: spec, notification: false as const });

/**
 * A call with other options (a signal, a timeout), pipeable: the client's options are kept where
 * these say nothing.
 *
 * @example
 * import { pipe } from "fp-ts/function";
 * import { withOptions, type RpcCall } from "rpcserver/client";
 * declare const slow: () => RpcCall<string>;
 * const call = pipe(slow(), withOptions({ timeoutMs: 500 }));
 *
 * @since 5.0.10
 * @category client
 */
export const withOptions =
  (options: CallOptions) =>
  <C extends RpcCall<unknown> | RpcNotification>(call: C): C => {
    const spec = { ...call[CALL], options: { ...call[CALL].options, ...defined(options) } };
    return (call.notification ? toNotification(spec) : makeCall(spec)) as C;
  };

/** The options that are set (an explicit `undefined` keeps the client's). */
const defined = (options: CallOptions): CallOptions => {
  const out: { signal?: AbortSignal; timeoutMs?: number } = {};
  if (options.signal !== undefined) out.signal = options.signal;
  if (options.timeoutMs !== undefined) out.timeoutMs = options.timeoutMs;
  return out;
};

const toNotification = (spec: Spec<unknown>): RpcNotification =>
  Object.assign(() => run(spec, true) as Promise<E.Either<ClientError, void>>, {
    [CALL]: spec,
    notification: true as const,
  });

/**
 * The same request sent as a notification: no id, no answer awaited (Right `undefined` once the
 * transport has sent it); only sending can fail.
 *
 * @example
 * import { notify, type RpcCall } from "rpcserver/client";
 * declare const log: (line: string) => RpcCall<unknown>;
 * await notify(log("started"))();
 *
 * @since 5.0.10
 * @category client
 */
export const notify = (call: RpcCall<unknown>): RpcNotification => toNotification(call[CALL] as Spec<unknown>);

/**
 * What a member of a batch answers.
 *
 * @since 5.0.10
 * @category client
 */
export type BatchMember = RpcCall<unknown> | RpcNotification;

type Answer<T> = T extends RpcNotification
  ? E.Either<ClientError, void>
  : T extends RpcCall<infer A>
    ? E.Either<ClientError, A>
    : never;

/**
 * The answers of a batch, in its shape: a tuple for a tuple of calls, a record for a record.
 *
 * @since 5.0.10
 * @category client
 */
export type BatchAnswers<T> = { -readonly [K in keyof T]: Answer<T[K]> };

/**
 * Sends several calls in one request body (a JSON-RPC batch) and answers each with its own
 * Either, in the shape given: an array (its tuple type kept) or a record (its keys kept), as
 * fp-ts's `sequenceT` and `sequenceS` would, except that one member's failure is not the others'.
 * A transport failure, or one error for the whole batch from the server, is every member's (a
 * single response whose id is a member's is that member's answer: json-rpc-2.0's server answers so
 * a batch with one response). Options apply to the whole request. An empty batch sends nothing.
 *
 * @example
 * import { batch, notify, type RpcCall } from "rpcserver/client";
 * declare const add: (a: number, b: number) => RpcCall<number>;
 * declare const log: (line: string) => RpcCall<unknown>;
 * const [sum, logged] = await batch([add(1, 2), notify(log("hi"))])();
 * const { x, y } = await batch({ x: add(1, 2), y: add(3, 4) })();
 *
 * @since 5.0.10
 * @category client
 */
export const batch = <const T extends ReadonlyArray<BatchMember> | { readonly [key: string]: BatchMember }>(
  calls: T,
  options: CallOptions = {},
): Task<BatchAnswers<T>> => {
  const keys = Object.keys(calls);
  const members = keys.map((key) => (calls as Record<string, BatchMember>)[key] as BatchMember);
  return async () => {
    const out = (Array.isArray(calls) ? [] : {}) as Record<string, unknown>;
    const first = members[0];
    if (first === undefined) return out as BatchAnswers<T>;
    const specs = members.map((member) => member[CALL]);
    const ids = members.map((member, i) => (member.notification ? undefined : (specs[i] as Spec<unknown>).nextId()));
    const answers = await sendBatch(first[CALL], specs, ids, options);
    keys.forEach((key, i) => {
      const id = ids[i];
      out[key] = E.isLeft(answers)
        ? answers
        : id === undefined
          ? E.right(undefined)
          : answers.right.has(id)
            ? read(specs[i] as Spec<unknown>, answers.right.get(id))
            : E.left({ _tag: "InvalidAnswer", reason: "noAnswer" });
    });
    return out as BatchAnswers<T>;
  };
};

/** Sends a batch and answers its responses by id, or the one failure of them all. */
const sendBatch = (
  first: Spec<unknown>,
  specs: ReadonlyArray<Spec<unknown>>,
  ids: ReadonlyArray<number | undefined>,
  options: CallOptions,
): Promise<E.Either<ClientError, Map<unknown, unknown>>> => {
  const body = encode(specs, ids, false);
  if (E.isLeft(body)) return Promise.resolve(body);
  return guarded(options, async (signal) => {
    const sent = await first.transport(body.right, { signal })();
    if (E.isLeft(sent)) return sent;
    if (sent.right === "") return E.right(new Map());
    const parsed = parse(sent.right);
    if (E.isLeft(parsed)) return parsed;
    const list = parsed.right;
    // json-rpc-2.0's server answers a batch that has one response with that response alone, not in
    // an array: one whose id is a member's is taken as the one-element array it should have been.
    const id = isObject(list) && !Array.isArray(list) ? list["id"] : undefined;
    if (typeof id === "number" && ids.includes(id)) return E.right(new Map([[id, list]]));
    if (!Array.isArray(list)) {
      // One error for the whole batch (-32700, -32600 for too large a batch): every member's answer.
      const whole = read(first, list);
      return E.left(E.isLeft(whole) ? whole.left : notJsonRpc(list));
    }
    return E.right(
      new Map(list.map((response: unknown) => [isObject(response) ? response["id"] : undefined, response])),
    );
  });
};

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
import type { ClientError, DeclaredError, InvalidAnswer, TransportError } from "./clienterror";
import type { ParsedAnswer, Transport, TransportOptions } from "./clienttransport";
import { isThenable } from "./guards";

/**
 * Options of a call (or of every call of a client): an `AbortSignal` that cancels it, and a
 * timeout in milliseconds after which it fails with a `timeout` `TransportError`.
 *
 * `timeoutMs` may be any length: one past what a timer can hold (2^31 - 1 ms, about 24.8 days)
 * waits that long all the same, and `Infinity` means no time-out. A call with no time left (0, a
 * negative number, `NaN`: a deadline already past) fails with `timeout` at once and is not sent,
 * as a call whose signal is already aborted fails with `aborted`.
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
  /** The request text up to the method's name included ({@link requestHead}), written once per method. */
  readonly head: string;
  /** The params as sent (already encoded), or `undefined` for none; `encode` runs when the call does. */
  readonly params: () => unknown;
  readonly decode: (result: unknown) => E.Either<InvalidAnswer, A>;
  /**
   * The error as one the call's contract entry declares (its data decoded), or `undefined` when it
   * is none of them. `error` is the response's `error` object, its `code` and `message` checked.
   */
  readonly declared: (
    code: number,
    message: string,
    error: Readonly<Record<string, unknown>>,
  ) => DeclaredError | undefined;
  readonly transport: Transport;
  readonly options: CallOptions;
  readonly nextId: () => number;
}

/**
 * A call not yet sent: run it (`await call()`) to send it and get its `Either`. It is a
 * `TaskEither<L, A>`, so `pipe(call, TE.map(...))` works; `withOptions`, `notify` and `batch` read
 * the request it carries. `L` is `ClientError`, or for a contract entry that declares errors a
 * `CallError` of them (a `DeclaredError` per code, to narrow by `declared` and `code`).
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
export interface RpcCall<A, L extends ClientError = ClientError> extends TaskEither<L, A> {
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

/**
 * Where the last id given is kept: on `globalThis` under a registered symbol (as the logger is),
 * so that two copies of this module in one process (the CommonJS and the ES build, or two
 * versions) count on one counter too. Made at the first call, not at import (`sideEffects`).
 */
const IDS = Symbol.for("rpcserver.callIds");
type Slot = { [IDS]?: { last: number } };

/**
 * The id of the next call, from one counter for the whole process: every client, and `batch`,
 * takes its ids here unless its transport gives its own (`Transport.nextId`). Per client, two
 * clients over one channel (a connection's transport wrapped for headers or a log, which loses its
 * `nextId`) sent the same ids, and a connection matched an answer to the wrong call. Wraps to 1
 * before ids stop being exact integers.
 * @internal
 */
export const nextCallId = (): number => {
  const ids = ((globalThis as Slot)[IDS] ??= { last: 0 });
  return (ids.last = ids.last >= Number.MAX_SAFE_INTEGER ? 1 : ids.last + 1);
};

/**
 * The signal of a call that nothing can abort: one for all of them. Transports need not listen to
 * it; `http` does not hand it to `fetch`, whose undici adds a listener to it at each request and
 * removes it only once the request is garbage-collected (hundreds of them at a time, measured).
 * @internal
 */
export const NEVER: AbortSignal = new AbortController().signal;

/**
 * The longest delay a timer holds: `setTimeout` takes a longer one (or `Infinity`) as 1 ms, so a
 * time-out of 2^31 ms fired at once. Longer time-outs are waited in steps of this.
 */
const MAX_DELAY = 2 ** 31 - 1;

/**
 * Runs `send` under the call's signal and timeout: it settles at the first of the answer, the
 * caller's abort, and the timer, and leaves no listener or timer behind. (`AbortSignal.any` is
 * not in Node 18: the signals are joined by hand.)
 */
const guarded = <A>(
  options: CallOptions,
  send: (signal: AbortSignal) => Promise<E.Either<ClientError, A>>,
): Promise<E.Either<ClientError, A>> => {
  const { signal } = options;
  // Infinity is no time-out at all: no timer to arm.
  const timeoutMs = options.timeoutMs === Infinity ? undefined : options.timeoutMs;
  if (signal?.aborted === true) return Promise.resolve(E.left(transportError("aborted", signal.reason)));
  // `!(t > 0)` and not `t <= 0`: NaN too has no time left.
  if (timeoutMs !== undefined && !(timeoutMs > 0))
    return Promise.resolve(E.left({ _tag: "TransportError", reason: "timeout", timeoutMs }));
  if (signal === undefined && timeoutMs === undefined) return send(NEVER);
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
      const expire = (): void => {
        done(E.left({ _tag: "TransportError", reason: "timeout", timeoutMs }));
        controller.abort(new Error(`timed out after ${timeoutMs} ms`));
      };
      // A timer never fires early, so what is left after each step is the time-out less the steps.
      const wait = (left: number): void => {
        timer = left > MAX_DELAY ? setTimeout(() => wait(left - MAX_DELAY), MAX_DELAY) : setTimeout(expire, left);
      };
      wait(timeoutMs);
    }
    send(controller.signal).then(done, (cause: unknown) =>
      done(E.left({ _tag: "TransportError", reason: "network", cause })),
    );
  });
};

/** A JSON object (or array): what an answer must be to be read. */
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

const parse = (body: string | ParsedAnswer): E.Either<ClientError, unknown> => {
  if (typeof body !== "string") return E.right(body.json);
  try {
    return E.right(JSON.parse(body));
  } catch {
    return E.left({ _tag: "InvalidAnswer", reason: "notJson", body });
  }
};

const notJsonRpc = (answer: unknown): ClientError => ({ _tag: "InvalidAnswer", reason: "notJsonRpc", answer });

/** What a thrown value says, for a report: its message, or its text (which may throw too). */
const messageOf = (thrown: unknown): string => {
  try {
    return thrown instanceof Error ? thrown.message : String(thrown);
  } catch {
    return "a value with no text";
  }
};

/**
 * A result decoded by the call's codec. A user's codec may throw: that refuses the result, with
 * what it threw, so that a call answers a Left and never rejects (the user codecs' one boundary).
 */
const decoded = <A>(spec: Spec<A>, result: unknown): E.Either<ClientError, A> => {
  try {
    return spec.decode(result);
  } catch (thrown) {
    const message = `result: the result codec threw: ${messageOf(thrown)}`;
    return E.left({ _tag: "InvalidAnswer", reason: "resultRefused", result, message });
  }
};

/** The error as a declared one, if it is; a user's codec that throws refuses it (the error is then as sent). */
const declaredError = (
  spec: Spec<unknown>,
  code: number,
  message: string,
  error: Record<string, unknown>,
): DeclaredError | undefined => {
  try {
    return spec.declared(code, message, error);
  } catch {
    return undefined;
  }
};

/** One response object as the call's Either: its result decoded, or its error. */
const read = <A>(spec: Spec<A>, response: unknown): E.Either<ClientError, A> => {
  if (!isObject(response) || response["jsonrpc"] !== "2.0") return E.left(notJsonRpc(response));
  if ("result" in response && !("error" in response)) return decoded(spec, response["result"]);
  const error = response["error"];
  if (!isObject(error) || typeof error["code"] !== "number" || typeof error["message"] !== "string") {
    return E.left(notJsonRpc(response));
  }
  const code = error["code"];
  const message = error["message"];
  return E.left(
    declaredError(spec as Spec<unknown>, code, message, error) ??
      ("data" in error
        ? { _tag: "ServerError", code, message, data: error["data"] }
        : { _tag: "ServerError", code, message }),
  );
};

/** The `declared` of a call whose entry declares no errors (a table's client, a batch's whole error). @internal */
export const notDeclared = (): undefined => undefined;

/** The start of the request text of a call to `method`: its `jsonrpc` and `method` members. @internal */
export const requestHead = (method: string): string => `{"jsonrpc":"2.0","method":${JSON.stringify(method)}`;

/**
 * The request text of a call (`id` undefined for a notification), its members in the order
 * jsonrpc, method, params, id. Written around the params' JSON, as the server writes its answers:
 * `JSON.stringify` of the whole request object cost more than the params alone (a tenth of a call
 * over `local`). Params with no JSON form (`undefined`, a function) are left out, as
 * `JSON.stringify` of the object would; a BigInt or a cycle throws.
 */
const requestText = (spec: Spec<unknown>, id: number | undefined): string => textWith(spec, spec.params(), id);

/** {@link requestText} of params encoded already. */
const textWith = (spec: Spec<unknown>, params: unknown, id: number | undefined): string => {
  const json = params === undefined ? undefined : (JSON.stringify(params) as string | undefined);
  const withParams = json === undefined ? spec.head : `${spec.head},"params":${json}`;
  return id === undefined ? `${withParams}}` : `${withParams},"id":${id}}`;
};

/** What {@link jsonCopy} answers for a value it does not copy. @internal */
export const NOT_PLAIN = Symbol("notPlain");

/** Deeper than this, a value is left to `JSON.stringify` (which also finds a cycle). */
const MAX_COPY_DEPTH = 64;

/**
 * `JSON.parse(JSON.stringify(value))` for a value made of plain JSON (finite numbers, strings,
 * booleans, null, arrays and plain objects, no `toJSON`), without the text: a fresh copy, `-0` as
 * `0`. Anything else, or anything deeper than 64 levels, is `NOT_PLAIN`: its JSON form is left to
 * the text path (`undefined` members, NaN, a `Date`, a class, a BigInt, a cycle, a `__proto__`
 * key), so that the copy is exactly what the text would have parsed to. A getter that throws
 * throws.
 *
 * @internal
 */
export const jsonCopy = (value: unknown, depth = 0): unknown => {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      // `+ 0` turns -0 into 0, as JSON.stringify writes it.
      return Number.isFinite(value) ? value + 0 : NOT_PLAIN;
    case "object":
      break;
    default:
      return NOT_PLAIN;
  }
  if (value === null) return null;
  if (depth >= MAX_COPY_DEPTH || "toJSON" in value) return NOT_PLAIN;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype === Array.prototype) {
    const list = value as readonly unknown[];
    const out: unknown[] = [];
    for (let i = 0; i < list.length; i++) {
      const item = jsonCopy(list[i], depth + 1);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      out.push(item);
    }
    return out;
  }
  if (prototype !== Object.prototype && prototype !== null) return NOT_PLAIN;
  const record = value as Readonly<Record<string, unknown>>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    if (key === "__proto__") return NOT_PLAIN;
    const item = jsonCopy(record[key], depth + 1);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    out[key] = item;
  }
  return out;
};

/**
 * The request of a call as the value its text parses to, for a transport that takes values
 * ({@link Direct}): the params copied by {@link jsonCopy}, or, when they are not plain JSON, the
 * text written and parsed (so that a `Date`, a `toJSON`, an `undefined` member arrive as over the
 * wire; a BigInt or a cycle throws, as for text).
 */
const requestValue = (spec: Spec<unknown>, id: number | undefined): unknown => {
  const params = spec.params();
  const method = spec.method;
  if (params === undefined) return id === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, id };
  const copy = jsonCopy(params);
  if (copy === NOT_PLAIN) return JSON.parse(textWith(spec, params, id)) as unknown;
  return id === undefined ? { jsonrpc: "2.0", method, params: copy } : { jsonrpc: "2.0", method, params: copy, id };
};

/** A call's request: its text, or for a transport with a {@link Direct} path the value the text parses to. */
const requestOf = (spec: Spec<unknown>, id: number | undefined, direct: Direct | undefined): unknown =>
  direct === undefined ? requestText(spec, id) : requestValue(spec, id);

/** The requests of a batch: its text (an array), or its values for a {@link Direct} path; or why it cannot be sent. */
const encode = (
  specs: ReadonlyArray<Spec<unknown>>,
  ids: ReadonlyArray<number | undefined>,
  direct: Direct | undefined,
): E.Either<ClientError, unknown> => {
  const requests: unknown[] = [];
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i] as Spec<unknown>;
    try {
      requests.push(requestOf(spec, ids[i], direct));
    } catch (cause) {
      return E.left({ _tag: "InvalidCall", method: spec.method, cause });
    }
  }
  return E.right(direct === undefined ? `[${requests.join(",")}]` : requests);
};

/**
 * What a transport that runs in-process (`local`) offers beside its text path: the request as the
 * value its text would parse to, the answer as the values its text would parse to (a
 * {@link ParsedAnswer}, or `""` for none, or text when it took the text path after all), now or
 * later. Never throws nor rejects. The client takes it when the transport has it, under
 * {@link DIRECT}; a wrapper of the transport does not keep it, and sends text.
 *
 * @internal
 */
export type Direct = (
  request: unknown,
  options: TransportOptions,
) => E.Either<TransportError, string | ParsedAnswer> | Promise<E.Either<TransportError, string | ParsedAnswer>>;

/** Where a transport keeps its {@link Direct} path. @internal */
export const DIRECT = Symbol("rpcserver.direct");

const directOf = (transport: Transport): Direct | undefined => (transport as { readonly [DIRECT]?: Direct })[DIRECT];

const networkError = (cause: unknown): TransportError => ({ _tag: "TransportError", reason: "network", cause });

/**
 * Sends `body` through the call's transport and reads the answer (text, or the value a transport
 * that parsed it already hands on) with `readText`: through `direct` when the transport has that
 * path (`body` then is the request as a value), else as text. A transport that throws or rejects
 * (which it must not) is a `network` TransportError. One Promise reaction between the transport's
 * answer and the call's, none when the direct path answers at once.
 */
const exchange = <A>(
  spec: Spec<unknown>,
  body: unknown,
  options: TransportOptions,
  readText: (text: string | ParsedAnswer) => E.Either<ClientError, A>,
  direct: Direct | undefined,
): Promise<E.Either<ClientError, A>> => {
  let sent: Promise<E.Either<TransportError, string | ParsedAnswer>>;
  try {
    if (direct === undefined) sent = spec.transport(body as string, options)();
    else {
      const answer = direct(body, options);
      if (!isThenable(answer)) return Promise.resolve(E.isLeft(answer) ? answer : readText(answer.right));
      sent = Promise.resolve(answer as Promise<E.Either<TransportError, string | ParsedAnswer>>);
    }
  } catch (cause) {
    return Promise.resolve(E.left(networkError(cause)));
  }
  return sent.then(
    (answer) => (E.isLeft(answer) ? answer : readText(answer.right)),
    (cause: unknown) => E.left(networkError(cause)),
  );
};

/** How rpcserver's server (and others) write a success, up to its result. */
const SUCCESS_HEAD = '{"jsonrpc":"2.0","result":';

/** What {@link successResult} answers for a text not of that form. */
const OTHER = Symbol("other");

/**
 * The result of an answer written exactly `{"jsonrpc":"2.0","result":R,"id":ID}` (as rpcserver's
 * server writes a success), R parsed alone: about half the cost of parsing the whole answer. Any
 * other text is `OTHER`, and parsed whole. Exact: when R parses, it is one JSON value, so the text
 * is that object.
 */
const successResult = (text: string, id: number): unknown => {
  if (!text.startsWith(SUCCESS_HEAD)) return OTHER;
  const tail = `,"id":${id}}`;
  if (!text.endsWith(tail)) return OTHER;
  try {
    return JSON.parse(text.slice(SUCCESS_HEAD.length, text.length - tail.length));
  } catch {
    return OTHER;
  }
};

/** An error response as `read` takes it: an `error` member and no `result`. */
const isError = (response: Record<string, unknown>): boolean => "error" in response || !("result" in response);

/** The answer text of a single call as its Either. */
const answerOf = <A>(spec: Spec<A>, id: number, text: string | ParsedAnswer): E.Either<ClientError, A> => {
  if (text === "") return E.left({ _tag: "InvalidAnswer", reason: "noAnswer" });
  const result = typeof text === "string" ? successResult(text, id) : OTHER;
  if (result !== OTHER) return decoded(spec, result);
  const parsed = parse(text);
  if (E.isLeft(parsed)) return parsed;
  const answer = parsed.right;
  // An error with a null id (the server could not read the request) is still this call's answer;
  // a success never has a null id (the spec: null only when the request's id could not be read),
  // so one is no answer to this call.
  if (isObject(answer) && answer["id"] !== id && !(answer["id"] === null && isError(answer))) {
    return E.left({ _tag: "InvalidAnswer", reason: "unknownId", id: answer["id"] });
  }
  return read(spec, answer);
};

const sentNotification = (): E.Either<ClientError, void> => E.right(undefined);

/** Sends one call or notification (`id` undefined) and reads its answer with `readText`. */
const send = <A>(
  spec: Spec<unknown>,
  id: number | undefined,
  readText: (text: string | ParsedAnswer) => E.Either<ClientError, A>,
): Promise<E.Either<ClientError, A>> => {
  const direct = directOf(spec.transport);
  let body: unknown;
  try {
    body = requestOf(spec, id, direct);
  } catch (cause) {
    return Promise.resolve(E.left({ _tag: "InvalidCall", method: spec.method, cause }));
  }
  return guarded(spec.options, (signal) => exchange(spec, body, { signal, ids: [id] }, readText, direct));
};

const run = <A>(spec: Spec<A>): Promise<E.Either<ClientError, A>> => {
  const id = spec.nextId();
  return send(spec as Spec<unknown>, id, (text) => answerOf(spec, id, text));
};

const runNotification = (spec: Spec<unknown>): Promise<E.Either<ClientError, void>> =>
  send(spec, undefined, sentNotification);

/** A call or notification under construction: its function, its members not yet set. */
type Building<T> = (() => Promise<unknown>) & { -readonly [K in keyof T]?: T[K] };

/** The call of `spec`, sent when run. (Its members set one by one: `Object.assign` cost twice as much.) @internal */
export const makeCall = <A>(spec: Spec<A>): RpcCall<A> => {
  const call: Building<RpcCall<A>> = () => run(spec);
  call[CALL] = spec;
  call.notification = false;
  return call as RpcCall<A>;
};

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

const toNotification = (spec: Spec<unknown>): RpcNotification => {
  const call: Building<RpcNotification> = () => runNotification(spec);
  call[CALL] = spec;
  call.notification = true;
  return call as RpcNotification;
};

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
  : T extends RpcCall<infer A, infer L>
    ? E.Either<L, A>
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
 * a batch with one response). A member answered twice (two responses with its id) is an
 * `InvalidAnswer` of reason `notJsonRpc` holding both. Options apply to the whole request: those
 * given here, else the first call's (its client's and its own `withOptions`). An empty batch sends
 * nothing.
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
    // One counter for the whole body (the first member's transport's, else the process-wide one):
    // calls of two connections' clients would otherwise share ids, and each take the other's answer.
    const nextId = first[CALL].nextId;
    const ids = members.map((member) => (member.notification ? undefined : nextId()));
    // The whole request has one signal and one timeout: the batch's own, else its first call's
    // (which holds its client's, and its own `withOptions`).
    const answers = await sendBatch(first[CALL], specs, ids, { ...first[CALL].options, ...defined(options) });
    keys.forEach((key, i) => {
      const id = ids[i];
      out[key] = E.isLeft(answers)
        ? answers
        : id === undefined
          ? E.right(undefined)
          : memberAnswer(specs[i] as Spec<unknown>, answers.right.get(id));
    });
    return out as BatchAnswers<T>;
  };
};

/** The responses of a batch that carry the same id: a server answered one request twice. */
class Twice {
  constructor(readonly responses: unknown[]) {}
}

/**
 * A member's answer from the response with its id: none is `noAnswer`; two or more are
 * `notJsonRpc` with all of them, whether or not they agree: the server broke the rule of one
 * response per request, and taking either (the last won, before) would be a guess.
 */
const memberAnswer = (spec: Spec<unknown>, response: unknown): E.Either<ClientError, unknown> => {
  if (response === undefined) return E.left({ _tag: "InvalidAnswer", reason: "noAnswer" });
  if (response instanceof Twice) return E.left(notJsonRpc(response.responses));
  return read(spec, response);
};

/** Sends a batch and answers its responses by id, or the one failure of them all. */
const sendBatch = (
  first: Spec<unknown>,
  specs: ReadonlyArray<Spec<unknown>>,
  ids: ReadonlyArray<number | undefined>,
  options: CallOptions,
): Promise<E.Either<ClientError, Map<unknown, unknown>>> => {
  const direct = directOf(first.transport);
  const body = encode(specs, ids, direct);
  if (E.isLeft(body)) return Promise.resolve(body);
  return guarded(options, (signal) =>
    exchange(first, body.right, { signal, ids }, (text) => byId(first, ids, text), direct),
  );
};

/** A batch's answer text as its responses by id, or the one failure of them all. */
const byId = (
  first: Spec<unknown>,
  ids: ReadonlyArray<number | undefined>,
  text: string | ParsedAnswer,
): E.Either<ClientError, Map<unknown, unknown>> => {
  if (text === "") return E.right(new Map());
  const parsed = parse(text);
  if (E.isLeft(parsed)) return parsed;
  const list = parsed.right;
  // json-rpc-2.0's server answers a batch that has one response with that response alone, not in
  // an array: one whose id is a member's is taken as the one-element array it should have been.
  const id = isObject(list) && !Array.isArray(list) ? list["id"] : undefined;
  if (typeof id === "number" && ids.includes(id)) return E.right(new Map([[id, list]]));
  if (!Array.isArray(list)) {
    // One error for the whole batch (-32700, -32600 for too large a batch): every member's answer.
    // A member's declared errors are its own: the whole batch's error is declared by none of them.
    const whole = read({ ...first, declared: notDeclared }, list);
    return E.left(E.isLeft(whole) ? whole.left : notJsonRpc(list));
  }
  const answers = new Map<unknown, unknown>();
  for (const response of list as unknown[]) {
    const key = isObject(response) ? response["id"] : undefined;
    const before = answers.get(key);
    if (before === undefined) answers.set(key, response);
    else if (before instanceof Twice) before.responses.push(response);
    else answers.set(key, new Twice([before, response]));
  }
  return E.right(answers);
};

/**
 * Batches: several calls in one request body, each answered with its own Either, in the shape
 * given (a tuple or a record).
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type { Task } from "fp-ts/Task";
import { CALL, type CallOptions, type RpcCall, type RpcNotification, type Spec } from "./call";
import { defined } from "./calls";
import { guarded } from "./deadline";
import type { ClientError } from "./errors";
import { directOf, exchange } from "./exchange";
import { isMembers as isObject } from "../core/guards";
import { notDeclared, notJsonRpc, parse, read } from "./read-answer";
import { encode } from "./request-body";
import type { ParsedAnswer } from "./transport";

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
 * given here, else the first call's (its client's and its own `withOptions`). Every member must be
 * a call of the same transport (clients made on one transport object): else a TypeError, at once.
 * An empty batch sends nothing.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as t from "io-ts";
 * import { contract, implement } from "rpcserver";
 * import { batch, client, local, notify } from "rpcserver/client";
 * const api = contract({
 *   add: { params: t.tuple([t.number, t.number]), result: t.number },
 *   log: { params: t.tuple([t.string]) },
 * });
 * const { add, log } = client(api, local(implement(api, { add: (a, b) => E.right(a + b), log: () => E.right(null) })));
 * const [sum, logged] = await batch([add(1, 2), notify(log("hi"))])();
 * sum; // { _tag: "Right", right: 3 }
 * logged; // { _tag: "Right", right: undefined }
 * const { x, y } = await batch({ x: add(1, 2), y: add(3, 4) })();
 * y; // { _tag: "Right", right: 7 }
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
  // Each member's call read once, here: what is checked is what is sent.
  const specs = members.map((member) => member[CALL]);
  const notifications = members.map((member) => member.notification);
  oneTransport(Array.isArray(calls), keys, specs);
  return async () => {
    const out = (Array.isArray(calls) ? [] : {}) as Record<string, unknown>;
    const first = specs[0];
    if (first === undefined) return out as BatchAnswers<T>;
    // One counter for the whole body: the transport's own (a connection's), else the process-wide one.
    const ids = notifications.map((notification) => (notification ? undefined : first.nextId()));
    // The whole request has one signal and one timeout: the batch's own, else its first call's
    // (which holds its client's, and its own `withOptions`).
    const answers = await sendBatch(first, specs, ids, { ...first.options, ...defined(options) });
    keys.forEach((key, i) => {
      const id = ids[i];
      // Defined, not assigned: a record's key `__proto__` is a member of the answers like any other.
      Object.defineProperty(out, key, {
        value: E.isLeft(answers)
          ? answers
          : id === undefined
            ? E.right(undefined)
            : memberAnswer(specs[i] as Spec<unknown>, answers.right.get(id)),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    });
    return out as BatchAnswers<T>;
  };
};

/**
 * One request body goes through one transport: a member of another client's (another server,
 * other headers or credentials) would otherwise be sent through the first member's, and be answered
 * there as if it were its own. A mistake in the code, so an exception where the batch is made.
 */
const oneTransport = (isArray: boolean, keys: ReadonlyArray<string>, specs: ReadonlyArray<Spec<unknown>>): void => {
  const transport = specs[0]?.transport;
  const other = specs.findIndex((spec) => spec.transport !== transport);
  if (other === -1) return;
  // A tuple's members by their place, a record's by their key.
  const [first, second] = [keys[0], keys[other]].map((key) => (isArray ? key : JSON.stringify(key)));
  throw new TypeError(
    `batch: member ${second} is a call of another transport than member ${first}'s: one batch is one ` +
      "request body, sent through one transport; batch each client's calls on their own",
  );
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

/**
 * How a call reads its answer: the answer text (or the value a transport parsed already) as the
 * call's Either, its result decoded by the call's codec, a declared error by its entry's schema.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import { isMembers as isObject } from "../core/guards";
import type { Spec } from "./call";
import type { ClientError, DeclaredError, InvalidAnswer } from "./errors";
import type { ParsedAnswer } from "./transport";

/** An answer as the value it holds: its text parsed, or the value a transport parsed already. @internal */
export const parse = (body: string | ParsedAnswer): E.Either<ClientError, unknown> => {
  if (typeof body !== "string") return E.right(body.json);
  try {
    return E.right(JSON.parse(body));
  } catch {
    return E.left({ _tag: "InvalidAnswer", reason: "notJson", body });
  }
};

/** An answer that is JSON but no JSON-RPC response (or a member answered twice). @internal */
export const notJsonRpc = (answer: unknown): ClientError => ({ _tag: "InvalidAnswer", reason: "notJsonRpc", answer });

/** What a thrown value says, for a report: its message, or its text (which may throw too). */
const messageOf = (thrown: unknown): string => {
  try {
    return thrown instanceof Error ? thrown.message : String(thrown);
  } catch {
    return "a value with no text";
  }
};

/** A result (`of` "result") or a streamed value (`of` "stream") that its codec refuses, and why. @internal */
export const refusal = (of: "result" | "stream", value: unknown, message: string): InvalidAnswer =>
  of === "result"
    ? { _tag: "InvalidAnswer", reason: "resultRefused", result: value, message }
    : { _tag: "InvalidAnswer", reason: "valueRefused", value, message };

/**
 * `decode(value)`. A user's codec may throw: that refuses the value, with what it threw, so that a
 * call answers a Left and never rejects (the user codecs' one boundary).
 */
const safely = <A>(
  decode: (value: unknown) => E.Either<InvalidAnswer, A>,
  value: unknown,
  of: "result" | "stream",
): E.Either<InvalidAnswer, A> => {
  try {
    return decode(value);
  } catch (thrown) {
    return E.left(refusal(of, value, `${of}: the ${of} codec threw: ${messageOf(thrown)}`));
  }
};

/** A result decoded by the call's codec. */
const decoded = <A>(spec: Spec<A>, result: unknown): E.Either<ClientError, A> => safely(spec.decode, result, "result");

/** A streamed value decoded by the call's stream codec (as it came, without one). @internal */
export const decodedValue = (spec: Spec<unknown>, value: unknown): E.Either<InvalidAnswer, unknown> =>
  spec.stream === undefined ? E.right(value) : safely(spec.stream, value, "stream");

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

/** One response object as the call's Either: its result decoded, or its error. @internal */
export const read = <A>(spec: Spec<A>, response: unknown): E.Either<ClientError, A> => {
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

/** The answer text of a single call as its Either. @internal */
export const answerOf = <A>(spec: Spec<A>, id: number, text: string | ParsedAnswer): E.Either<ClientError, A> => {
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

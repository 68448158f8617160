/**
 * Tools: how one is declared (`tool`), listed (`tools/list`) and run (`tools/call`). The arguments
 * are decoded before the handler runs (bad ones an `isError` result naming each failing path); the
 * handler answers an Either, a TaskEither or a Promise of one, or is an `async function*` whose
 * values are progress; a Left is an `isError` result with its message, a throw one too, and a log
 * line; a result with `structuredContent` is checked against the output schema when there is one.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type * as TE from "fp-ts/TaskEither";
import type { Connection } from "../connection/options";
import { messageOf } from "../core/describe";
import { isRecord, isThenable } from "../core/guards";
import { logSafely } from "../core/logger";
import { isAbortOf } from "../core/signal";
import { text } from "./content";
import type { Outbox } from "./outbox";
import {
  failureText,
  LOG_LEVELS,
  type Content,
  type Failure,
  type JsonObject,
  type LogLevel,
  type ToolResult,
} from "./protocol";
import { decoderOf, jsonSchemaFor, type Decoded, type McpSchema } from "./schema";

/**
 * What a handler gets besides its arguments: the call's `signal` (aborted when the client cancels
 * or goes away), `log` to send the client a log message (at or above the level it set), and
 * `request`, `elicit` and `sample` to ask the client something (MCP's server-to-client requests:
 * on a connection, through it; over HTTP, on the POST's event stream); and where the call came
 * from: `httpRequest` over HTTP (its headers, for auth), `peer` on a connection.
 *
 * @since 5.0.10
 * @category mcp
 */
export interface McpContext {
  /** Aborts when the client cancels the call or goes away. */
  readonly signal: AbortSignal;
  /**
   * Over HTTP, the request the call came in (its method, URL and headers: `Authorization`, a
   * tenant's header; its body was read by the handler). `undefined` on a connection.
   */
  readonly httpRequest?: Request;
  /** On a connection (stdio, a socket), the connection the call came on. `undefined` over HTTP. */
  readonly peer?: Connection;
  /** A `notifications/message` to the client, if `level` is at or above the level it set. */
  readonly log: (level: LogLevel, data: unknown, logger?: string) => void;
  /**
   * A request to the client: its result, or a Left when it answers an error or cannot be asked. In
   * the 2026 era it is an `input_required` result's input request, named `key` (default: the method
   * and the ask's rank in the call, `elicitation/create#1`), the handler run again with the answer.
   */
  readonly request: (method: string, params: JsonObject, key?: string) => TE.TaskEither<Error, JsonObject>;
  /** `elicitation/create`: asks the user, by a message and the schema of what to answer. */
  readonly elicit: (params: JsonObject, key?: string) => TE.TaskEither<Error, JsonObject>;
  /** `sampling/createMessage`: asks the client's model. */
  readonly sample: (params: JsonObject, key?: string) => TE.TaskEither<Error, JsonObject>;
}

/**
 * MCP's progress of a tool: `progress` (increasing), optionally its `total` and a `message`.
 *
 * @since 5.0.10
 * @category mcp
 */
export interface Progress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/**
 * What a tool answers: a whole result, its content blocks, a text, or `{ structuredContent }` alone
 * (its JSON text becomes the content).
 *
 * @since 5.0.10
 * @category mcp
 */
export type ToolAnswer = ToolResult | ReadonlyArray<Content> | string | { readonly structuredContent: JsonObject };

type Answered = E.Either<Failure, ToolAnswer>;

/**
 * A tool's handler: an Either, a TaskEither (or a Promise of an Either), or an `async function*`
 * yielding progress and returning an Either.
 *
 * @since 5.0.10
 * @category mcp
 */
export type ToolHandler<A> = (
  args: A,
  context: McpContext,
) => Answered | TE.TaskEither<Failure, ToolAnswer> | Promise<Answered> | AsyncGenerator<Progress, Answered>;

/**
 * MCP's hints about a tool's behaviour.
 *
 * @since 5.0.10
 * @category mcp
 */
export interface ToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/**
 * A tool as declared: its description, input schema (none: no arguments), optional output schema,
 * title, annotations, and handler.
 *
 * @since 5.0.10
 * @category mcp
 */
export interface ToolSpec<S extends McpSchema | undefined> {
  readonly description: string;
  readonly title?: string;
  readonly input?: S;
  readonly output?: McpSchema;
  readonly annotations?: ToolAnnotations;
  readonly _meta?: JsonObject;
  /** The client capabilities it needs (`{ sampling: {} }`): in the 2026 era, a request that does not declare them is -32021. */
  readonly requires?: JsonObject;
  readonly run: ToolHandler<S extends McpSchema ? Decoded<S> : JsonObject>;
}

/**
 * A tool, ready for the server's `tools`: made by {@link tool}.
 *
 * @since 5.0.10
 * @category mcp
 */
export interface Tool {
  /** What `tools/list` shows of it, less its name. */
  readonly listed: JsonObject;
  /** The client capabilities it needs. */
  readonly requires?: JsonObject;
  /**
   * Runs it on the call's arguments: its result, whatever happened (at once when its schema and
   * handler answer at once, else a Promise of it), or, for a handler that is an `async function*`
   * (or a schema that decodes later), its run as the steps the core's stream drain takes.
   */
  readonly start: (args: unknown, context: McpContext) => Started;
}

/** A tool's call as {@link Tool.start} began it: its result, now or later, or its run to drain. */
export type Started = ToolResult | Promise<ToolResult> | Running;

/**
 * A tool's run whose values come later: the handler's generator (its values are progress), or, when
 * its arguments decode later, what the handler gives then (a generator, or its result); with what
 * makes the generator's return value (`finish`) or its throw (`failed`) the call's result.
 */
export class Running {
  constructor(
    readonly first: AsyncGenerator<Progress, unknown> | Promise<AsyncGenerator<Progress, unknown> | ToolResult>,
    private readonly finisher: (answered: unknown, context: McpContext) => ToolResult | Promise<ToolResult>,
    private readonly context: McpContext,
  ) {}

  /** The call's result from the generator's return value. */
  finish(answered: unknown): ToolResult | Promise<ToolResult> {
    return this.finisher(answered, this.context);
  }

  /** The call's result when the generator throws. */
  failed(thrown: unknown): ToolResult {
    return threw(thrown, this.context);
  }
}

/**
 * A tool, typed by its input schema: the handler gets the decoded arguments.
 *
 * @example
 * import * as E from "fp-ts/lib/Either.js";
 * import * as t from "io-ts";
 * import { text, tool } from "rpcserver/mcp";
 * const add = tool({
 *   description: "Adds two numbers",
 *   input: t.type({ a: t.number, b: t.number }),
 *   run: ({ a, b }) => E.right([text(String(a + b))]),
 * });
 *
 * @since 5.0.10
 * @category mcp
 */
export const tool = <S extends McpSchema | undefined = undefined>(spec: ToolSpec<S>): Tool => {
  const decode = decoderOf(spec.input, "arguments");
  const checkOutput = spec.output === undefined ? undefined : decoderOf(spec.output, "structuredContent");
  const listed: JsonObject = {
    ...(spec.title !== undefined ? { title: spec.title } : {}),
    description: spec.description,
    inputSchema: jsonSchemaFor(spec.input),
    ...(spec.output !== undefined ? { outputSchema: jsonSchemaFor(spec.output) } : {}),
    ...(spec.annotations !== undefined ? { annotations: spec.annotations } : {}),
    ...(spec._meta !== undefined ? { _meta: spec._meta } : {}),
  };
  const run = spec.run as ToolHandler<unknown>;
  /** The call's result from what the handler answered (a generator's return value included). */
  const finish = (answered: unknown): ToolResult | Promise<ToolResult> => {
    if (!isEither(answered)) throw new TypeError("the tool answered no Either");
    if (E.isLeft(answered)) return failed(failureText(answered.left));
    const result = resultOf(answered.right);
    if (checkOutput === undefined || result.isError === true) return result;
    if (result.structuredContent === undefined) return failed("The tool gave no structuredContent");
    const checked = checkOutput(result.structuredContent);
    const checkedOutput = (got: E.Either<readonly string[], unknown>): ToolResult =>
      E.isLeft(got) ? failed(`Invalid result: ${got.left.join("; ")}`) : result;
    return isThenable(checked) ? Promise.resolve(checked).then(checkedOutput) : checkedOutput(checked);
  };
  // Whatever a handler (or a schema) does, the call answers: a throw, and an answer that is no
  // Either, are an `isError` result and a log line ({@link threw}).
  const finished = (answered: unknown, context: McpContext): ToolResult | Promise<ToolResult> => {
    try {
      const result = finish(answered);
      return isThenable(result) ? Promise.resolve(result).catch((thrown) => threw(thrown, context)) : result;
    } catch (thrown) {
      return threw(thrown, context);
    }
  };
  /** The handler run on decoded arguments: a generator as it is (its values to drain), anything else finished. */
  const ran = (
    decoded: E.Either<readonly string[], unknown>,
    context: McpContext,
  ): AsyncGenerator<Progress, unknown> | ToolResult | Promise<ToolResult> => {
    if (E.isLeft(decoded)) return failed(`Invalid arguments: ${decoded.left.join("; ")}`);
    const answer = run(decoded.right, context);
    if (isGenerator(answer)) return answer;
    if (typeof answer !== "function" && !isThenable(answer)) return finished(answer, context);
    return Promise.resolve(typeof answer === "function" ? answer() : answer).then(
      (answered) => finished(answered, context),
      (thrown) => threw(thrown, context),
    );
  };
  return {
    listed,
    ...(spec.requires !== undefined ? { requires: spec.requires } : {}),
    start: (args, context) => {
      try {
        const decoded = decode(args ?? {});
        if (isThenable(decoded)) {
          const later = Promise.resolve(decoded)
            .then((got) => ran(got, context))
            .catch((thrown) => threw(thrown, context));
          return new Running(later, finished, context);
        }
        const answer = ran(decoded, context);
        return isGenerator(answer) ? new Running(answer, finished, context) : answer;
      } catch (thrown) {
        return threw(thrown, context);
      }
    },
  };
};

const isEither = (value: unknown): value is Answered =>
  isRecord(value) && (value["_tag"] === "Left" || value["_tag"] === "Right");

/** Is `value` an async generator (a handler's run, its values progress)? */
export const isGenerator = (value: unknown): value is AsyncGenerator<Progress, unknown> =>
  isRecord(value) && typeof value["next"] === "function" && Symbol.asyncIterator in value;

/**
 * What a handler (or a schema) threw: an `isError` result, and a log line, unless it is the abort of
 * the call's signal (a wait that rejects with its reason: the cancel's own end, no fault). Any other
 * exception is logged, cancelled or not: a client must not keep an error out of the log by cancelling.
 */
const threw = (thrown: unknown, context: McpContext): ToolResult => {
  if (!isAbortOf(thrown, context.signal)) logSafely("rpcserver/mcp: a tool threw", thrown);
  return failed(messageOf(thrown));
};

/** A failed call: `isError` with the message as its text. */
export const failed = (message: string): ToolResult => ({ content: [text(message)], isError: true });

/** What a tool answered, as MCP's result. */
const resultOf = (answer: ToolAnswer): ToolResult => {
  if (typeof answer === "string") return { content: [text(answer)] };
  if (Array.isArray(answer)) return { content: answer as ReadonlyArray<Content> };
  const result = answer as Partial<ToolResult> & { readonly structuredContent?: JsonObject };
  return result.content !== undefined
    ? (result as ToolResult)
    : { ...result, content: [text(JSON.stringify(result.structuredContent))] };
};

/**
 * A handler's context on `outbox`, its log messages at or above `level()`. Its `signal` is read from
 * `signal()` when the handler reads it: most never do, and a request's signal is made on first read.
 */
export const contextOf = (
  signal: () => AbortSignal,
  outbox: Outbox,
  level: () => LogLevel,
  from: { readonly request?: Request; readonly peer?: Connection },
): McpContext => {
  const { ask } = outbox;
  return {
    get signal() {
      return signal();
    },
    ...(from.request !== undefined ? { httpRequest: from.request } : {}),
    ...(from.peer !== undefined ? { peer: from.peer } : {}),
    log: (at, data, logger) => {
      if (LOG_LEVELS.indexOf(at) < LOG_LEVELS.indexOf(level())) return;
      outbox.send("notifications/message", { level: at, data, ...(logger !== undefined ? { logger } : {}) });
    },
    request: ask,
    elicit: (params, key) => ask("elicitation/create", params, key),
    sample: (params, key) => ask("sampling/createMessage", params, key),
  };
};

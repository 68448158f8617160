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
import { messageOf } from "../core/describe";
import { isRecord } from "../core/guards";
import { logSafely } from "../core/logger";
import { nextTurn, Pace } from "../core/turns";
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
 * on a connection, through it; over HTTP, on the POST's event stream).
 *
 * @since 5.0.10
 * @category mcp
 */
export interface McpContext {
  /** Aborts when the client cancels the call or goes away. */
  readonly signal: AbortSignal;
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
   * Runs it on the call's arguments: its result, whatever happened. A handler's next progress value
   * waits for the Promise `progress` returns (the value taken by the wire).
   */
  readonly call: (
    args: unknown,
    context: McpContext,
    progress: (value: Progress) => Promise<void> | void,
  ) => Promise<ToolResult>;
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
  return {
    listed,
    ...(spec.requires !== undefined ? { requires: spec.requires } : {}),
    // Whatever a handler (or a schema) does, the call answers: a throw, and an answer that is no
    // Either, are an `isError` result and a log line.
    call: (args, context, progress) =>
      answer(args, context, progress).catch((thrown: unknown) => {
        logSafely("rpcserver/mcp: a tool threw", thrown);
        return failed(messageOf(thrown));
      }),
  };
  async function answer(
    args: unknown,
    context: McpContext,
    progress: (value: Progress) => Promise<void> | void,
  ): Promise<ToolResult> {
    const decoded = await decode(args ?? {});
    if (E.isLeft(decoded)) return failed(`Invalid arguments: ${decoded.left.join("; ")}`);
    const answered: unknown = await settle(run(decoded.right, context), progress, context.signal);
    if (!isEither(answered)) throw new TypeError("the tool answered no Either");
    if (E.isLeft(answered)) return failed(failureText(answered.left));
    const result = resultOf(answered.right);
    if (checkOutput !== undefined && !result.isError) {
      if (result.structuredContent === undefined) return failed("The tool gave no structuredContent");
      const checked = await checkOutput(result.structuredContent);
      if (E.isLeft(checked)) return failed(`Invalid result: ${checked.left.join("; ")}`);
    }
    return result;
  }
};

const isEither = (value: unknown): value is Answered =>
  isRecord(value) && (value["_tag"] === "Left" || value["_tag"] === "Right");

const isGenerator = (value: unknown): value is AsyncGenerator<Progress, Answered> =>
  isRecord(value) && typeof value["next"] === "function" && Symbol.asyncIterator in value;

/**
 * What a handler answered, run to its end: a generator's values handed to `progress` as they come,
 * each once the one before is taken (a client that reads slowly holds the handler, not a queue),
 * with the event loop's turns of streams' fairness rule: a generator of values in memory resumes
 * in microtasks alone, and would hold the thread (no other request read, no disconnect seen) however
 * the wire takes its values, or with no progress token, when nothing takes them. A cancel or the
 * client leaving stops the generator at its next yield (its `finally` runs), as every stream stops,
 * whether or not it reads its signal.
 */
const settle = async (
  ran: ReturnType<ToolHandler<unknown>>,
  progress: (value: Progress) => Promise<void> | void,
  signal: AbortSignal,
): Promise<Answered> => {
  if (typeof ran === "function") return ran();
  if (!isGenerator(ran)) return ran;
  const pace = new Pace();
  for (;;) {
    const step = await ran.next();
    if (step.done === true) return step.value;
    await progress(step.value);
    if (signal.aborted) {
      await ran.return(E.left("the call was cancelled"));
      return E.left("the call was cancelled");
    }
    if (pace.due()) await nextTurn();
  }
};

/** A failed call: `isError` with the message as its text. */
const failed = (message: string): ToolResult => ({ content: [text(message)], isError: true });

/** What a tool answered, as MCP's result. */
const resultOf = (answer: ToolAnswer): ToolResult => {
  if (typeof answer === "string") return { content: [text(answer)] };
  if (Array.isArray(answer)) return { content: answer as ReadonlyArray<Content> };
  const result = answer as Partial<ToolResult> & { readonly structuredContent?: JsonObject };
  return result.content !== undefined
    ? (result as ToolResult)
    : { ...result, content: [text(JSON.stringify(result.structuredContent))] };
};

/** A handler's context on `outbox`, its log messages at or above `level()`. */
export const contextOf = (signal: AbortSignal, outbox: Outbox, level: () => LogLevel): McpContext => ({
  signal,
  log: (at, data, logger) => {
    if (LOG_LEVELS.indexOf(at) < LOG_LEVELS.indexOf(level())) return;
    outbox.send("notifications/message", { level: at, data, ...(logger !== undefined ? { logger } : {}) });
  },
  request: outbox.ask,
  elicit: (params, key) => outbox.ask("elicitation/create", params, key),
  sample: (params, key) => outbox.ask("sampling/createMessage", params, key),
});

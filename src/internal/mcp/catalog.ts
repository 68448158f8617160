/**
 * Resources (static, by URI, and templates, by RFC 6570 level-1 URI template), prompts and their
 * completion, as declared to `mcpServer`: what `resources/*`, `prompts/*` and `completion/complete`
 * list, read, get and complete.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import type * as TE from "fp-ts/TaskEither";
import type { McpContext } from "./tools";
import { failureText, type Failure, type JsonObject, type PromptMessage, type ResourceContents } from "./protocol";

/**
 * What a read or a prompt answers: an Either, a TaskEither, or a Promise of an Either.
 *
 * @since 5.0.10
 * @category mcp
 */
export type Answer<A> = E.Either<Failure, A> | TE.TaskEither<Failure, A> | Promise<E.Either<Failure, A>>;

/**
 * What a read answers: one resource's contents, or several.
 *
 * @since 5.0.10
 * @category mcp
 */
export type Contents = ResourceContents | ReadonlyArray<ResourceContents>;

/**
 * A resource as `resources/list` shows it (less its URI, the key it is declared under).
 *
 * @since 5.0.10
 * @category mcp
 */
export interface ResourceInfo {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly size?: number;
}

/**
 * A static resource: its listing and its `read`.
 *
 * @since 5.0.10
 * @category mcp
 */
export interface Resource extends ResourceInfo {
  /** Its contents, read when asked (`resources/read`); a Left is -32002. */
  readonly read: (uri: string, signal: AbortSignal) => Answer<Contents>;
}

/**
 * Completes one argument or template variable: the values that fit what was typed so far (`value`)
 * and the other arguments given.
 *
 * @since 5.0.10
 * @category mcp
 */
export type Completer = (
  value: string,
  others: Readonly<Record<string, string>>,
) => ReadonlyArray<string> | Promise<ReadonlyArray<string>>;

/**
 * A resource template (keyed by its URI template, `test://items/{id}`): `read` gets the URI and its
 * variables; `complete` completes them.
 *
 * @since 5.0.10
 * @category mcp
 */
export interface ResourceTemplate extends ResourceInfo {
  /** The contents of a URI that matches the template, by the URI and its variables; a Left is -32002. */
  readonly read: (uri: string, variables: Readonly<Record<string, string>>, signal: AbortSignal) => Answer<Contents>;
  readonly complete?: Readonly<Record<string, Completer>>;
}

/**
 * One argument of a prompt.
 *
 * @since 5.0.10
 * @category mcp
 */
export interface PromptArgument {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly required?: boolean;
}

/**
 * A prompt: its arguments (strings, by name), what `prompts/get` answers, and their completion.
 *
 * @since 5.0.10
 * @category mcp
 */
export interface Prompt {
  readonly title?: string;
  readonly description?: string;
  readonly arguments?: ReadonlyArray<PromptArgument>;
  /**
   * Its messages for these arguments (the required ones checked first); a Left is -32602. `context`
   * asks the client (2026 era: `input_required`; 2025 era: on a connection only).
   */
  readonly get: (
    args: Readonly<Record<string, string>>,
    signal: AbortSignal,
    context: McpContext,
  ) => Answer<
    ReadonlyArray<PromptMessage> | { readonly description?: string; readonly messages: ReadonlyArray<PromptMessage> }
  >;
  readonly complete?: Readonly<Record<string, Completer>>;
}

/** An answer settled: a TaskEither run, a Promise awaited. A throw is the caller's. */
export const settled = async <A>(answer: Answer<A>): Promise<E.Either<string, A>> => {
  const either = typeof answer === "function" ? await answer() : await answer;
  return E.mapLeft(failureText)(either);
};

const escaped = (literal: string): string => literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A URI template's matcher (RFC 6570 level 1, and `{+name}` for a value with slashes): the
 * variables of a URI it matches, `undefined` for one it does not.
 */
export const templateMatcher = (template: string): ((uri: string) => Record<string, string> | undefined) => {
  const names: string[] = [];
  let pattern = "";
  let at = 0;
  for (const found of template.matchAll(/\{(\+?)([A-Za-z0-9_]+)\}/g)) {
    pattern += escaped(template.slice(at, found.index));
    names.push(found[2] ?? "");
    pattern += found[1] === "+" ? "(.+)" : "([^/?#]+)";
    at = found.index + found[0].length;
  }
  const regex = new RegExp(`^${pattern}${escaped(template.slice(at))}$`);
  return (uri) => {
    const match = regex.exec(uri);
    if (match === null) return undefined;
    const variables: Record<string, string> = {};
    names.forEach((name, index) => {
      variables[name] = decodeURIComponent(match[index + 1] ?? "");
    });
    return variables;
  };
};

/** A listing's entry: the info given, less the handlers. */
export const listed = (info: ResourceInfo & { readonly description?: string }): JsonObject => {
  const { name, title, description, mimeType, size } = info;
  return {
    name,
    ...(title !== undefined ? { title } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(mimeType !== undefined ? { mimeType } : {}),
    ...(size !== undefined ? { size } : {}),
  };
};

/**
 * Helpers shared by the test files (not a test file itself: jest runs `*.test.ts` only).
 */
import { asyncDispatch, dispatch, setLogger, type JsonOptions, type Logger, type Methods } from "../src";

/** A JSON front end as a function returning a promise, so one table can run through both. */
export type JsonDispatch = (request: string | Uint8Array, methods?: Methods, options?: JsonOptions) => Promise<string>;

/** `dispatch` (wrapped in a promise) and `asyncDispatch`, for `describe.each`. */
export const jsonDispatchers: ReadonlyArray<readonly [string, JsonDispatch]> = [
  ["dispatch", (request, methods, options) => Promise.resolve(dispatch(request, methods, options))],
  ["asyncDispatch", (request, methods, options) => asyncDispatch(request, methods, options)],
];

/** One warning that `process.emitWarning` was asked to emit. */
export interface Warning {
  readonly message: string;
  readonly type: string | undefined;
}

/**
 * Replaces `process.emitWarning` with a recorder for the rest of the test; call `restore` after.
 * The library emits warnings as `process.emitWarning(message, type)`.
 */
export const recordWarnings = (): { readonly warnings: () => Warning[]; readonly restore: () => void } => {
  const spy = jest.spyOn(process, "emitWarning").mockImplementation((() => undefined) as typeof process.emitWarning);
  return {
    warnings: () =>
      spy.mock.calls.map((args: unknown[]) => ({
        message: String(args[0]),
        type: typeof args[1] === "string" ? args[1] : undefined,
      })),
    restore: () => spy.mockRestore(),
  };
};

/** One call the library made to the logger. */
export interface LogEntry {
  readonly level: "error" | "warn" | "info";
  readonly args: unknown[];
}

/** Installs a recording logger with `setLogger`; `restore` puts the previous one back. */
export const recordLogs = (): { readonly entries: LogEntry[]; readonly restore: () => void } => {
  const entries: LogEntry[] = [];
  const logger: Logger = {
    error: (...args) => void entries.push({ level: "error", args }),
    warn: (...args) => void entries.push({ level: "warn", args }),
    info: (...args) => void entries.push({ level: "info", args }),
  };
  const previous = setLogger(logger);
  return { entries, restore: () => void setLogger(previous) };
};

/** The message `JSON.parse` throws for `text` (engine-specific, so computed rather than spelled out). */
export const jsonParseMessage = (text: string): string => {
  try {
    JSON.parse(text);
  } catch (thrown) {
    return (thrown as Error).message;
  }
  throw new Error(`expected ${text} not to parse`);
};

/** A request object as JSON text. */
export const call = (method: string, params?: unknown, id?: unknown): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    method,
    ...(params === undefined ? {} : { params }),
    ...(id === undefined ? {} : { id }),
  });

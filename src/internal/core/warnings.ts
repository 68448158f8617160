/**
 * Python's `warnings.warn` in JavaScript: `process.emitWarning` where it exists (Node, Bun, Deno's
 * Node layer), `console.warn` elsewhere (browsers, workers).
 *
 * @module
 * @internal
 */

type WarningType = "UserWarning" | "DeprecationWarning";

type Emitter = { emitWarning?: (message: string, type: string) => void };

/** Emits a warning of the given Python category. @internal */
export const warn = (message: string, type: WarningType = "UserWarning"): void => {
  const proc = (globalThis as { process?: Emitter }).process;
  if (proc !== undefined && typeof proc.emitWarning === "function") {
    proc.emitWarning(message, type);
  } else {
    console.warn(`${type}: ${message}`);
  }
};

const deprecated = new Set<string>();

/** Warns once per process that `name` is deprecated, as Node does for its own APIs. @internal */
export const deprecate = (name: string, instead: string): void => {
  if (deprecated.has(name)) return;
  deprecated.add(name);
  warn(`${name} is deprecated and will be removed in 6.0; use ${instead} instead`, "DeprecationWarning");
};

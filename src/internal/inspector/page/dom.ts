/**
 * The inspector page's script, part 1 of 7: the DOM helpers every other part builds with. The page
 * shows text from the service (names, summaries, schemas) and from its answers (error messages,
 * results), any of which may carry markup: every node is made with `createElement`, every string
 * goes in as `textContent` or an attribute set with `setAttribute`, and no part of the script ever
 * assigns `innerHTML`, so markup in data is shown, never parsed (tests/inspector-browser.test.ts
 * plants some). Events are bound with `addEventListener`, never inline attributes, which the page's
 * Content-Security-Policy would block anyway.
 *
 * The parts are modules here, for the type checker, lint and the unit tests; the page has them as
 * one script in one function's scope (scripts/inspector-page.cjs assembles it at build time).
 *
 * @module
 */

/**
 * A value the service sent (its `rpc.discover` document, an answer) or the user wrote: any JSON,
 * read by checks made at run time (`isObject`, `own`, `Array.isArray`, `typeof`), never trusted
 * for its type. That is why it is `any`: the type says nothing a check does not.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** What `el` is given: attributes (`text` for its text, `on` for listeners); false, null and undefined leave one out. */
export type Props = Readonly<Record<string, Json>>;

/** A child of `el`: a node, or a string (a text node); false, null and undefined are left out. */
export type Child = Node | string | false | null | undefined;

/** The page's element of that id: the page's markup (markup.ts) has every id the script asks for. */
export const byId = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

// An element with its attributes, text and children: strings become text nodes, never markup.
export const el = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Props,
  children?: readonly Child[],
): HTMLElementTagNameMap[K] => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = textOf(value);
    else if (key === "on")
      for (const [type, listener] of Object.entries(value as Record<string, EventListener>))
        node.addEventListener(type, listener);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children || []) {
    if (child !== undefined && child !== null && child !== false) node.append(child);
  }
  return node;
};

export const clear = <T extends Node>(node: T): T => {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
};

// Short enough, a value nested in another stays on one line: [1, 2] rather than four lines.
const INLINE_WIDTH = 60;
// Deeper than this, a value is shown as "…": the printers recurse, and the stack is finite.
const MAX_NESTING = 100;
// Whether the last print cut a value at MAX_NESTING.
let cut = false;

const members = (value: Json): string[] => Object.keys(value).filter((key) => value[key] !== undefined);

const inline = (value: Json, depth: number): string => {
  if (typeof value !== "object" || value === null) return compact(value);
  if (depth >= MAX_NESTING) {
    cut = true;
    return "…";
  }
  if (Array.isArray(value))
    return "[" + value.map((item) => inline(item === undefined ? null : item, depth + 1)).join(", ") + "]";
  return (
    "{" +
    members(value)
      .map((key) => JSON.stringify(key) + ": " + inline(value[key], depth + 1))
      .join(", ") +
    "}"
  );
};

// JSON indented by two spaces, the top level always, short nested values on one line.
export const pretty = (value: Json, indent?: string): string => {
  const at = indent || "";
  const flat = inline(value, at.length / 2);
  if (typeof value !== "object" || value === null || (at !== "" && flat.length <= INLINE_WIDTH)) return flat;
  const inner = at + "  ";
  const lines = Array.isArray(value)
    ? value.map((item) => inner + pretty(item === undefined ? null : item, inner))
    : members(value).map((key) => inner + JSON.stringify(key) + ": " + pretty(value[key], inner));
  if (lines.length === 0) return flat;
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  return open + "\n" + lines.join(",\n") + "\n" + at + close;
};

// JSON to edit and send again, so never cut: indented, or on one line when too deep to indent.
export const editable = (value: Json): string => {
  cut = false;
  const text = pretty(value);
  if (!cut) return text;
  try {
    return JSON.stringify(value);
  } catch {
    throw new Error("a value is nested too deeply to edit here");
  }
};

// A value on one line when it fits, else indented: for schemas and data.
export const shown = (value: Json): string => {
  const flat = inline(value, 0);
  return flat.length <= INLINE_WIDTH ? flat : pretty(value);
};

// Text that is JSON, indented; any other text as it is.
export const prettyText = (text: string): string => {
  try {
    return pretty(JSON.parse(text));
  } catch {
    return text;
  }
};

// JSON on one line, whatever the value (too deep for JSON.stringify included).
export const compact = (value: Json): string => {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text;
  } catch {
    return "(too deeply nested to show)";
  }
};

// What the service sent where a string belongs: the string, or any other value as JSON.
export const textOf = (value: Json): string => (typeof value === "string" ? value : compact(value));

// What an exception says, whatever was thrown.
export const messageOf = (error: unknown): string =>
  isObject(error) && typeof error.message === "string" ? error.message : textOf(error);

// The page's one live status line: screen readers announce what it says.
export const announce = (message: string): void => {
  byId("status").textContent = message;
};

let uidCount = 0;
export const uid = (prefix: string): string => {
  uidCount += 1;
  return prefix + "-" + uidCount;
};

export const isObject = (value: unknown): value is Record<string, Json> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export const own = (object: unknown, key: string): boolean =>
  isObject(object) && Object.prototype.hasOwnProperty.call(object, key);

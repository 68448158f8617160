/**
 * The inspector page's script, part 1 of 6: the DOM helpers every other part builds with. The page
 * shows text from the service (names, summaries, schemas) and from its answers (error messages,
 * results), any of which may carry markup: every node is made with `createElement`, every string
 * goes in as `textContent` or an attribute set with `setAttribute`, and no part of the script ever
 * assigns `innerHTML`, so markup in data is shown, never parsed (tests/inspector-browser.test.ts
 * plants some). Events are bound with `addEventListener`, never inline attributes, which the page's
 * Content-Security-Policy would block anyway.
 *
 * The script is a constant string (String.raw: its backslashes are the script's own escapes), so
 * that its hash in the page's Content-Security-Policy is a constant (page.ts). It holds no
 * backtick and no `${`.
 *
 * @module
 */

/**
 * The DOM helpers: `byId`, `el`, `clear`, `textOf`, `pretty`, `editable`, `prettyText`, `announce`, `uid`.
 * The document and the answers are any JSON: where a string is expected, `textOf` shows whatever
 * is there (`{"toString": 1}` included) as text, and the printers stop at `MAX_NESTING` levels.
 */
export const DOM_SCRIPT = String.raw`
const byId = (id) => document.getElementById(id);

// An element with its attributes, text and children: strings become text nodes, never markup.
const el = (tag, props, children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = textOf(value);
    else if (key === "on") for (const [type, listener] of Object.entries(value)) node.addEventListener(type, listener);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children || []) {
    if (child !== undefined && child !== null && child !== false) node.append(child);
  }
  return node;
};

const clear = (node) => {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
};

// Short enough, a value nested in another stays on one line: [1, 2] rather than four lines.
const INLINE_WIDTH = 60;
// Deeper than this, a value is shown as "…": the printers recurse, and the stack is finite.
const MAX_NESTING = 100;
// Whether the last print cut a value at MAX_NESTING.
let cut = false;

const members = (value) => Object.keys(value).filter((key) => value[key] !== undefined);

const inline = (value, depth) => {
  if (typeof value !== "object" || value === null) return compact(value);
  if (depth >= MAX_NESTING) {
    cut = true;
    return "…";
  }
  if (Array.isArray(value)) return "[" + value.map((item) => inline(item === undefined ? null : item, depth + 1)).join(", ") + "]";
  return "{" + members(value).map((key) => JSON.stringify(key) + ": " + inline(value[key], depth + 1)).join(", ") + "}";
};

// JSON indented by two spaces, the top level always, short nested values on one line.
const pretty = (value, indent) => {
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
const editable = (value) => {
  cut = false;
  const text = pretty(value);
  if (!cut) return text;
  try {
    return JSON.stringify(value);
  } catch (error) {
    throw new Error("a value is nested too deeply to edit here");
  }
};

// A value on one line when it fits, else indented: for schemas and data.
const shown = (value) => {
  const flat = inline(value, 0);
  return flat.length <= INLINE_WIDTH ? flat : pretty(value);
};

// Text that is JSON, indented; any other text as it is.
const prettyText = (text) => {
  try {
    return pretty(JSON.parse(text));
  } catch (error) {
    return text;
  }
};

// JSON on one line, whatever the value (too deep for JSON.stringify included).
const compact = (value) => {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text;
  } catch (error) {
    return "(too deeply nested to show)";
  }
};

// What the service sent where a string belongs: the string, or any other value as JSON.
const textOf = (value) => (typeof value === "string" ? value : compact(value));

// What an exception says, whatever was thrown.
const messageOf = (error) => (isObject(error) && typeof error.message === "string" ? error.message : textOf(error));

// The page's one live status line: screen readers announce what it says.
const announce = (message) => {
  byId("status").textContent = message;
};

let uidCount = 0;
const uid = (prefix) => {
  uidCount += 1;
  return prefix + "-" + uidCount;
};

const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

const own = (object, key) => isObject(object) && Object.prototype.hasOwnProperty.call(object, key);
`;

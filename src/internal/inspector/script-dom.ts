/**
 * The inspector page's script, part 1 of 5: the DOM helpers every other part builds with. The page
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

/** The DOM helpers: `byId`, `el`, `clear`, `pretty`, `prettyText`, `announce`, `uid`. */
export const DOM_SCRIPT = String.raw`
const byId = (id) => document.getElementById(id);

// An element with its attributes, text and children: strings become text nodes, never markup.
const el = (tag, props, children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = String(value);
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

const members = (value) => Object.keys(value).filter((key) => value[key] !== undefined);

const inline = (value) => {
  if (Array.isArray(value)) return "[" + value.map((item) => inline(item === undefined ? null : item)).join(", ") + "]";
  if (isObject(value)) return "{" + members(value).map((key) => JSON.stringify(key) + ": " + inline(value[key])).join(", ") + "}";
  return compact(value);
};

// JSON indented by two spaces, the top level always, short nested values on one line.
const pretty = (value, indent) => {
  const at = indent || "";
  const flat = inline(value);
  if (typeof value !== "object" || value === null || (at !== "" && flat.length <= INLINE_WIDTH)) return flat;
  const inner = at + "  ";
  const lines = Array.isArray(value)
    ? value.map((item) => inner + pretty(item === undefined ? null : item, inner))
    : members(value).map((key) => inner + JSON.stringify(key) + ": " + pretty(value[key], inner));
  if (lines.length === 0) return flat;
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  return open + "\n" + lines.join(",\n") + "\n" + at + close;
};

// A value on one line when it fits, else indented: for schemas and data.
const shown = (value) => {
  const flat = inline(value);
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

const compact = (value) => {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text;
};

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

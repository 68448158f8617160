/**
 * The inspector page's script, part 2 of 7: a method's params as a form, built from their JSON
 * Schema in the `rpc.discover` document. Each field is a control, `{ node, read, write }`: `read`
 * gives the field's JSON value (`undefined` to leave it out), `write` fills it in (from the
 * method's first example).
 *
 * - strings, numbers and integers are inputs; booleans checkboxes; an `enum` or a `const` a select
 *   of its values, shown as JSON;
 * - a nullable schema (`anyOf` with `null`, a `type` list with `"null"`) gets a checkbox
 *   "<name> is null" beside its field;
 * - an object with `properties` is a fieldset of its properties' fields, an array of scalars a
 *   list of fields with "Add item" and "Remove" buttons, down to `MAX_DEPTH` levels; anything
 *   deeper or of another shape (a record, a tuple, a union) is a JSON text area;
 * - `$ref`s into the document's `components.schemas` are followed;
 * - a form stops at `MAX_FIELDS` fields (a few `$ref`s can multiply into thousands): past it,
 *   each param's objects and lists are JSON text areas, and a method with more params than that
 *   has no form (its request is written by hand);
 * - the one param rpcserver describes as the whole params value (a params codec it cannot split:
 *   an array of any length, a union, a record) is sent as the params themselves, not in an array.
 *
 * Each field's label is its param's or property's name, exactly (the accessible name the tests and
 * screen readers use); what it expects is in a hint tied to it with `aria-describedby`. Objects
 * are built with `Object.fromEntries`, so a property named `__proto__` is a property.
 *
 * @module
 */
import { clear, compact, editable, el, isObject, own, textOf, uid, type Json } from "./dom";

/** One value's control in the form: its node, and its value read from it or written in it. */
export interface Control {
  readonly node: HTMLElement;
  readonly read: () => Json;
  readonly write: (value: Json) => void;
}

/** A schema (JSON Schema, as the service describes it): any JSON, read by checks. */
type Schema = Json;

// Nested fields stop here: deeper values are edited as JSON.
const MAX_DEPTH = 2;
// Following $ref stops here: a chain longer than this is a loop.
const MAX_REF_HOPS = 8;
// A hint longer than this is cut: it shows what to type, not the whole schema.
const MAX_HINT = 240;
// A form has at most this many fields.
const MAX_FIELDS = 500;
const TOO_MANY = new Error("its params need more than " + MAX_FIELDS + " fields");
// How rpcserver's rpc.discover describes the one param that is the whole params value.
const WHOLE = "The whole params value, which the method's params codec does not split into params";
const SCALARS = ["string", "number", "integer", "boolean"];

let components: Record<string, Json> = {};

/** The schemas that `$ref`s point into: the document's `components.schemas` (methods.ts sets them). */
export const setComponents = (schemas: Record<string, Json>): void => {
  components = schemas;
};
// The fields the form being built may still make: the budget holds while buildForm builds, not
// for the items of a list that the user (or an example) adds later.
let fieldsLeft = Infinity;

// A $ref's key, or "" for a $ref that is not into components.schemas or not valid %-encoding.
export const refKey = (ref: string): string => {
  const match = /^#\/components\/schemas\/(.+)$/.exec(ref);
  try {
    return match === null ? "" : decodeURIComponent(match[1] as string);
  } catch {
    return "";
  }
};

export const resolveRef = (schema: Schema): Schema => {
  let current: Schema = isObject(schema) ? schema : {};
  for (let hops = 0; hops < MAX_REF_HOPS && typeof current.$ref === "string"; hops++) {
    const key = refKey(current.$ref);
    if (!own(components, key) || !isObject(components[key])) break;
    current = components[key];
  }
  return current;
};

const isNullSchema = (schema: Schema): boolean => {
  const resolved = resolveRef(schema);
  return resolved.type === "null" || (own(resolved, "const") && resolved.const === null);
};

// The schema without its null branch, and whether it had one.
export const unwrapNull = (schema: Schema): { schema: Schema; nullable: boolean } => {
  const resolved = resolveRef(schema);
  if (Array.isArray(resolved.type) && resolved.type.includes("null")) {
    const rest = resolved.type.filter((type: Json) => type !== "null");
    if (rest.length > 0) return { schema: { ...resolved, type: rest.length === 1 ? rest[0] : rest }, nullable: true };
  }
  const branches = Array.isArray(resolved.anyOf) ? resolved.anyOf : resolved.oneOf;
  if (Array.isArray(branches) && branches.length === 2 && branches.some(isNullSchema)) {
    const other = branches.find((branch: Json) => !isNullSchema(branch));
    if (other !== undefined) return { schema: resolveRef(other), nullable: true };
  }
  return { schema: resolved, nullable: false };
};

const enumValues = (schema: Schema): Json[] | null => {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum;
  if (own(schema, "const")) return [schema.const];
  return schema.type === "null" ? [null] : null;
};

const isScalar = (schema: Schema): boolean => enumValues(schema) !== null || SCALARS.includes(schema.type);

export const kindOf = (schema: Schema, depth: number): string => {
  if (enumValues(schema) !== null) return "enum";
  if (SCALARS.includes(schema.type)) return schema.type;
  const properties = isObject(schema.properties) ? Object.keys(schema.properties) : [];
  if (depth < MAX_DEPTH && schema.type === "object" && properties.length > 0 && !schema.additionalProperties) {
    return "object";
  }
  if (depth < MAX_DEPTH && schema.type === "array" && isObject(schema.items)) {
    if (isScalar(unwrapNull(schema.items).schema)) return "list";
  }
  return "json";
};

export const hintOf = (schema: Schema, kind: string, required: boolean, description: Json): string => {
  const values = enumValues(schema);
  let what = kind;
  if (kind === "enum") what = "one of " + values!.map(compact).join(", ");
  else if (kind === "json") what = "JSON" + (Object.keys(schema).length > 0 ? ", " + compact(schema) : "");
  else if (kind === "list") what = "a list";
  else if (typeof schema.format === "string") what = kind + " (" + schema.format + ")";
  const parts = [what, required ? "required" : "optional"];
  if (typeof description === "string" && description !== "") parts.push(description);
  const text = parts.join("; ");
  return text.length > MAX_HINT ? text.slice(0, MAX_HINT - 1) + "…" : text;
};

// A labelled field: the label is the name alone; the hint says what to type.
const field = (
  name: string,
  input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement,
  hint: string,
): HTMLElement => {
  fieldsLeft -= 1;
  if (fieldsLeft < 0) throw TOO_MANY;
  const id = uid("field");
  input.id = id;
  input.setAttribute("aria-describedby", id + "-hint");
  const label = el("label", { for: id, text: name });
  const about = el("span", { id: id + "-hint", class: "hint", text: hint });
  const check = input.type === "checkbox";
  return el("div", { class: check ? "field check" : "field" }, check ? [input, label, about] : [label, input, about]);
};

const enumControl = (name: string, schema: Schema, required: boolean, hint: string): Control => {
  const values = enumValues(schema)!;
  const options = values.map((value, index) => el("option", { value: String(index), text: compact(value) }));
  const select = el("select", {}, [required ? null : el("option", { value: "", text: "(left out)" }), ...options]);
  const write = (value: Json): void => {
    const index = values.findIndex((known) => compact(known) === compact(value));
    select.value = index >= 0 ? String(index) : required ? "0" : "";
  };
  const read = () => (select.value === "" ? undefined : values[Number(select.value)]);
  return { node: field(name, select, hint), read, write };
};

const scalarControl = (name: string, schema: Schema, kind: string, required: boolean, hint: string): Control => {
  if (kind === "enum") return enumControl(name, schema, required, hint);
  if (kind === "boolean" && !required) return enumControl(name, { enum: [true, false] }, required, hint);
  if (kind === "boolean") {
    const box = el("input", { type: "checkbox" });
    return {
      node: field(name, box, hint),
      read: () => box.checked,
      write: (value: Json) => (box.checked = value === true),
    };
  }
  const text = kind === "string";
  const attributes = text
    ? { type: "text", spellcheck: "false", autocomplete: "off" }
    : { type: "number", step: kind === "integer" ? "1" : "any" };
  const input = el("input", { ...attributes, "aria-required": required ? "true" : undefined });
  const read = () => {
    if (text) return input.value === "" && !required ? undefined : input.value;
    return input.value === "" ? undefined : Number(input.value);
  };
  const write = (value: Json): void => {
    const fits = text ? typeof value === "string" : typeof value === "number";
    input.value = fits ? String(value) : "";
  };
  return { node: field(name, input, hint), read, write };
};

const jsonControl = (name: string, _required: boolean, hint: string): Control => {
  const area = el("textarea", { rows: "3", spellcheck: "false", class: "json" });
  const read = () => {
    const text = area.value.trim();
    if (text === "") return undefined;
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new Error(name + " is not JSON: " + (error as Error).message);
    }
  };
  const write = (value: Json): string => (area.value = value === undefined ? "" : editable(value));
  return { node: field(name, area, hint), read, write };
};

const objectControl = (name: string, schema: Schema, required: boolean, depth: number, hint: string): Control => {
  const needed: Json[] = Array.isArray(schema.required) ? schema.required : [];
  const members = Object.keys(schema.properties).map((key): [string, Control] => {
    const property = schema.properties[key];
    const about = isObject(property) ? property.description : undefined;
    return [key, control(key, property, needed.includes(key), depth + 1, about)];
  });
  const legend = el("legend", { text: name });
  const node = el("fieldset", {}, [legend, el("p", { class: "hint", text: hint }), ...members.map(([, c]) => c.node)]);
  const read = () => {
    const entries = members.map(([key, c]) => [key, c.read()]).filter(([, value]) => value !== undefined);
    return entries.length === 0 && !required ? undefined : Object.fromEntries(entries);
  };
  const write = (value: Json): void => {
    for (const [key, c] of members) c.write(own(value, key) ? value[key] : undefined);
  };
  return { node, read, write };
};

// Buttons change the form without an input event: tell the form's listener.
const changed = (node: Node): boolean => node.dispatchEvent(new Event("input", { bubbles: true }));

const listControl = (name: string, schema: Schema, required: boolean, depth: number, hint: string): Control => {
  const items: Control[] = [];
  const list = el("ol", { class: "items" });
  const rebuild = (values: Json[]): void => {
    clear(list);
    items.length = 0;
    values.forEach((value) => addItem(value));
  };
  const addItem = (value: Json): void => {
    const index = items.length;
    const itemName = name + " item " + (index + 1);
    const item = control(itemName, schema.items, true, depth + 1);
    item.write(value);
    // The item goes; the focus, to the Remove button now in its place (or before it), or Add item.
    const remove = () => {
      const values = items.map((known) => known.read());
      values.splice(index, 1);
      rebuild(values);
      changed(list);
      const buttons = list.querySelectorAll<HTMLButtonElement>("li > button");
      (buttons[Math.min(index, buttons.length - 1)] || add).focus();
    };
    const button = el("button", { type: "button", class: "small", "aria-label": "Remove " + itemName, text: "Remove" });
    button.addEventListener("click", remove);
    items.push(item);
    list.append(el("li", {}, [item.node, button]));
  };
  const add = el("button", { type: "button", class: "small", text: "Add item", "aria-label": "Add item to " + name });
  add.addEventListener("click", () => {
    addItem(undefined);
    changed(list);
  });
  const node = el("fieldset", {}, [el("legend", { text: name }), el("p", { class: "hint", text: hint }), list, add]);
  const read = () => {
    const values = items.map((item) => item.read()).map((value) => (value === undefined ? null : value));
    return values.length === 0 && !required ? undefined : values;
  };
  const write = (value: Json): void => rebuild(Array.isArray(value) ? value : []);
  return { node, read, write };
};

const nullableControl = (name: string, inner: Control): Control => {
  const box = el("input", { type: "checkbox" });
  const sync = () => {
    for (const input of inner.node.querySelectorAll<HTMLInputElement>("input, select, textarea, button"))
      input.disabled = box.checked;
  };
  box.addEventListener("change", sync);
  const node = el("div", { class: "nullable" }, [inner.node, field(name + " is null", box, "sends null")]);
  const read = () => (box.checked ? null : inner.read());
  const write = (value: Json): void => {
    box.checked = value === null;
    if (value !== null) inner.write(value);
    sync();
  };
  return { node, read, write };
};

// The control of one value: its kind read from its schema.
const control = (name: string, rawSchema: Schema, required: boolean, depth: number, description?: Json): Control => {
  const { schema, nullable } = unwrapNull(rawSchema);
  const kind = kindOf(schema, depth);
  const hint = hintOf(schema, kind, required, description);
  let inner: Control;
  if (kind === "object") inner = objectControl(name, schema, required, depth, hint);
  else if (kind === "list") inner = listControl(name, schema, required, depth, hint);
  else if (kind === "json") inner = jsonControl(name, required, hint);
  else inner = scalarControl(name, schema, kind, required, hint);
  return nullable ? nullableControl(name, inner) : inner;
};

const paramsList = (method: Json): Json[] => (Array.isArray(method.params) ? method.params.filter(isObject) : []);

export const byName = (method: Json): boolean => method.paramStructure === "by-name";

// The one param that is the whole params value: its value is sent as the params themselves.
export const isWhole = (method: Json): boolean => {
  const params = paramsList(method);
  return params.length === 1 && method.paramStructure === undefined && params[0].description === WHOLE;
};

// The controls of params, within the budget of fields; TOO_MANY past it.
const controlsOf = (params: Json[], depth: number): Control[] => {
  fieldsLeft = MAX_FIELDS;
  try {
    return params.map((param) =>
      control(textOf(param.name), param.schema, param.required === true, depth, param.description),
    );
  } finally {
    fieldsLeft = Infinity;
  }
};

// The form of a method's params, in container; its controls, in the params' order. Past
// MAX_FIELDS, built again with objects and lists as JSON; past it again, TOO_MANY is thrown.
export const buildForm = (method: Json, container: Node & ParentNode): Control[] => {
  const params = paramsList(method);
  if (params.length === 0) {
    container.append(el("p", { class: "muted", text: "No params." }));
    return [];
  }
  let controls: Control[];
  let flat = false;
  try {
    controls = controlsOf(params, 0);
  } catch (error) {
    if (error !== TOO_MANY) throw error;
    flat = true;
    controls = controlsOf(params, MAX_DEPTH);
  }
  let how = byName(method) ? "by name (an object)" : "by position (an array)";
  if (isWhole(method)) how = "as this one value, the whole params";
  const note = flat
    ? el("p", { class: "hint", text: "More than " + MAX_FIELDS + " fields: objects and lists are JSON here." })
    : null;
  const form = el(
    "form",
    { novalidate: true },
    controls.map((c) => c.node),
  );
  container.append(el("h4", { text: "Params, sent " + how }), ...(note === null ? [] : [note]), form);
  return controls;
};

// Fills the form in from the method's first example; the example, or undefined.
export const prefill = (method: Json, controls: readonly Control[]): Json => {
  const example = Array.isArray(method.examples) && isObject(method.examples[0]) ? method.examples[0] : undefined;
  const values = new Map<string, Json>();
  if (example !== undefined && Array.isArray(example.params)) {
    for (const pair of example.params)
      if (isObject(pair) && typeof pair.name === "string") values.set(pair.name, pair.value);
  }
  paramsList(method).forEach((param, index) => {
    if (values.has(textOf(param.name))) controls[index]!.write(values.get(textOf(param.name)));
  });
  return example;
};

// The params member of the request, as the method takes them; undefined for none.
export const paramsOf = (method: Json, controls: readonly Control[]): Json => {
  const params = paramsList(method);
  if (params.length === 0) return undefined;
  const values = controls.map((c) => c.read());
  if (isWhole(method)) return values[0];
  if (byName(method)) {
    return Object.fromEntries(
      params.map((param, i) => [textOf(param.name), values[i]]).filter(([, v]) => v !== undefined),
    );
  }
  let end = values.length;
  while (end > 0 && values[end - 1] === undefined) end -= 1;
  return values.slice(0, end).map((value) => (value === undefined ? null : value));
};

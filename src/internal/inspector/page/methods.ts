/**
 * The inspector page's script, part 6 of 7: the service's methods. It reads the service's
 * description (`rpc.discover`), lists its methods grouped by their first tag (so that each method
 * is one button, named by the method's name), filters them, and shows the chosen one: its form,
 * what it is, what it declares, and the request the form writes. Without a description (no
 * `rpc.discover`, an answer that is not a document, a document that cannot be shown), the page
 * keeps its raw editor: a JSON-RPC request written by hand is sent as it is.
 *
 * Choosing is all or nothing: the chosen method's view is built apart from the page, then put in
 * place at once. Should building it fail, the method is chosen all the same, with a request for it
 * to write by hand and a status that says why: never the last method's request under another name.
 *
 * @module
 */

import {
  announce,
  byId,
  clear,
  compact,
  editable,
  el,
  isObject,
  messageOf,
  pretty,
  textOf,
  uid,
  type Json,
} from "./dom";
import { buildForm, byName, prefill, setComponents, type Control } from "./form";
import { requestOf, setProblem, setRequest } from "./main";
import { declaredOf, plural, showDeclared, state } from "./views";
import { post, type Reply } from "./wire";

/** A method's view, built apart from the page (`methodView`). */
interface MethodView {
  readonly params: DocumentFragment;
  readonly controls: Control[];
  readonly info: HTMLElement[];
  readonly declared: HTMLElement[];
  readonly request: string;
}

const tagsOf = (method: Json): string[] =>
  Array.isArray(method.tags) ? method.tags.filter(isObject).map((tag: Json) => textOf(tag.name)) : [];

const methodInfo = (method: Json, example: Json): HTMLElement[] => {
  const nodes: HTMLElement[] = [
    el("h3", { class: "method-title", tabindex: "-1" }, [el("code", { text: method.name })]),
  ];
  if (method.deprecated === true) nodes.push(el("p", { class: "problem", text: "Deprecated: avoid it in new code." }));
  if (typeof method.summary === "string") nodes.push(el("p", { text: method.summary }));
  if (typeof method.description === "string") nodes.push(el("p", { class: "description", text: method.description }));
  const tags = tagsOf(method);
  if (tags.length > 0) nodes.push(el("p", { class: "muted", text: "Tags: " + tags.join(", ") }));
  if (isObject(method["x-stream"])) {
    nodes.push(
      el("p", {
        class: "muted",
        text: "It streams values before its answer: they are listed as they arrive, and Stop cancels the call.",
      }),
    );
  }
  const from =
    example === undefined
      ? "No example to start from: fill the params in."
      : "Filled in from its example " + JSON.stringify(textOf(example.name)) + ".";
  nodes.push(el("p", { class: "muted", text: from }));
  return nodes;
};

// Everything the view of a method needs, built apart from the page: if it throws, nothing changed.
const methodView = (method: Json): MethodView => {
  const params = document.createDocumentFragment();
  const controls = buildForm(method, params);
  const example = prefill(method, controls);
  const info = methodInfo(method, example);
  const declared = declaredOf(method);
  const request = editable(requestOf(method, controls, false));
  return { params, controls, info, declared, request };
};

const markChosen = (button: HTMLButtonElement): void => {
  for (const other of document.querySelectorAll("button.method")) other.removeAttribute("aria-current");
  button.setAttribute("aria-current", "true");
};

// A method whose view could not be built: chosen, with a raw request for it and the reason.
const chooseRaw = (button: HTMLButtonElement, method: Json, error: unknown, focus: boolean): void => {
  const why = messageOf(error);
  markChosen(button);
  state.method = null;
  state.controls = [];
  clear(byId("params"));
  const title = el("h3", { class: "method-title" }, [el("code", { text: method.name })]);
  const problem = el("p", {
    class: "problem",
    text: "Its description cannot be shown as a form (" + why + "): write its request by hand.",
  });
  byId("method-info").replaceChildren(title, problem);
  try {
    showDeclared(method);
  } catch {
    showDeclared(null);
  }
  byId<HTMLInputElement>("notification").checked = false;
  const params = byName(method) ? {} : [];
  setRequest(pretty({ jsonrpc: "2.0", method: method.name, params, id: state.nextId }));
  state.edited = true;
  setProblem("");
  announce(method.name + ": no form (" + why + "); write its request by hand");
  if (focus) byId("request").focus();
};

const methods = new WeakMap<HTMLButtonElement, Json>();

// Chooses the method of button; focus: whether the focus goes to its first field (a user's choice).
const choose = (button: HTMLButtonElement, focus: boolean): void => {
  const method = methods.get(button);
  let view: MethodView;
  try {
    view = methodView(method);
  } catch (error) {
    return chooseRaw(button, method, error, focus);
  }
  markChosen(button);
  state.method = method;
  state.controls = view.controls;
  byId("params").replaceChildren(view.params);
  byId("method-info").replaceChildren(...view.info);
  byId("declared").replaceChildren(...view.declared);
  byId<HTMLInputElement>("notification").checked = false;
  setRequest(view.request);
  state.edited = false;
  setProblem("");
  if (focus)
    (
      byId("params").querySelector<HTMLElement>("input, select, textarea") ||
      (byId("method-info").firstChild as HTMLElement)
    ).focus();
};

const methodItem = (method: Json): HTMLLIElement => {
  const about = uid("about");
  const deprecated = method.deprecated === true;
  const button = el("button", {
    type: "button",
    class: deprecated ? "method deprecated" : "method",
    "aria-describedby": about,
    text: method.name,
  });
  methods.set(button, method);
  button.addEventListener("click", () => choose(button, true));
  const summary = typeof method.summary === "string" ? method.summary : "";
  const note = el("span", { id: about, class: "summary" }, [
    deprecated ? el("span", { class: "badge", text: "deprecated" }) : null,
    summary,
  ]);
  const item = el("li", {}, [button, note]);
  item.dataset.search = [method.name, summary, ...tagsOf(method)].join(" ").toLowerCase();
  return item;
};

// The methods by their first tag, in the document's order; those without a tag last.
const groupsOf = (list: Json[]): Array<[string, Json[]]> => {
  const groups = new Map<string, Json[]>();
  for (const method of list) {
    const first = Array.isArray(method.tags) && isObject(method.tags[0]) ? textOf(method.tags[0].name) : "";
    if (!groups.has(first)) groups.set(first, []);
    groups.get(first)!.push(method);
  }
  const untagged = groups.get("") || [];
  groups.delete("");
  const named: Array<[string, Json[]]> = [...groups.entries()];
  return untagged.length === 0 ? named : [...named, [named.length === 0 ? "" : "Other methods", untagged]];
};

const renderMethods = (list: Json[]): void => {
  const groups = groupsOf(list).map(([tag, members]) => {
    const heading = tag === "" ? null : el("h3", { id: uid("group"), text: tag });
    const items = el(
      "ul",
      { class: "methods", "aria-labelledby": heading === null ? undefined : heading.id },
      members.map(methodItem),
    );
    return el("div", { class: "group" }, [heading, items]);
  });
  byId("method-list").replaceChildren(...groups);
};

export const applyFilter = (): void => {
  const query = byId<HTMLInputElement>("filter").value.trim().toLowerCase();
  let shown = 0;
  let total = 0;
  for (const group of byId("method-list").querySelectorAll<HTMLElement>(".group")) {
    let visible = 0;
    for (const item of group.querySelectorAll("li")) {
      const match = (item.dataset.search as string).includes(query);
      item.hidden = !match;
      visible += match ? 1 : 0;
    }
    group.hidden = visible === 0;
    shown += visible;
    total += group.querySelectorAll("li").length;
  }
  byId("filter-count").textContent = query === "" ? total + " methods" : shown + " of " + total + " methods";
};

const rawMode = (reason: string): void => {
  state.method = null;
  state.controls = [];
  byId("filter-box").hidden = true;
  const list = clear(byId("method-list"));
  list.append(el("p", { text: "No methods to list: " + reason + "." }));
  list.append(el("p", { class: "muted", text: "Write a JSON-RPC request in the request box, then Send." }));
  clear(byId("method-info")).append(el("p", { text: "Raw JSON-RPC: the request box is sent as it is." }));
  clear(byId("params"));
  setRequest(pretty({ jsonrpc: "2.0", method: "", params: [], id: state.nextId }));
  state.edited = true;
  showDeclared(null);
  announce("No description of the service: write the request by hand");
};

const showDocument = (description: Json): void => {
  const info = isObject(description.info) ? description.info : {};
  const schemas = isObject(description.components) ? description.components.schemas : undefined;
  setComponents(isObject(schemas) ? schemas : {});
  byId("service-title").textContent = typeof info.title === "string" ? info.title : "JSON-RPC service";
  document.title = byId("service-title").textContent + " (inspector)";
  byId("service-version").textContent = typeof info.version === "string" ? "version " + info.version : "";
  byId("service-description").textContent = typeof info.description === "string" ? info.description : "";
  const list = description.methods.filter((method: Json) => isObject(method) && typeof method.name === "string");
  if (list.length === 0) return rawMode("the service describes no methods");
  renderMethods(list);
  applyFilter();
  choose(document.querySelector("button.method") as HTMLButtonElement, false);
  announce("The service describes " + plural(list.length, "method"));
};

export const discover = async (): Promise<void> => {
  let reply: Reply;
  try {
    reply = await post(JSON.stringify({ jsonrpc: "2.0", method: "rpc.discover", id: "inspector" }), null, () => false);
  } catch (error) {
    return rawMode("rpc.discover could not be called (" + messageOf(error) + ")");
  }
  let answer: Json;
  try {
    answer = JSON.parse(reply.text);
  } catch {
    return rawMode("rpc.discover answered HTTP " + reply.status + ": " + reply.text.trim().slice(0, 300));
  }
  if (isObject(answer) && isObject(answer.result) && Array.isArray(answer.result.methods)) {
    try {
      return showDocument(answer.result);
    } catch (error) {
      return rawMode("the service's description could not be shown (" + messageOf(error) + ")");
    }
  }
  const error = isObject(answer) && isObject(answer.error) ? answer.error : null;
  rawMode(
    error === null
      ? "rpc.discover did not answer with a document"
      : "rpc.discover answered error " + compact(error.code) + " " + textOf(error.message),
  );
};

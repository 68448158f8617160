/**
 * The inspector page's script, part 5 of 7: what the page shows of a call and of the session. The
 * Response region (the request as sent, the values streamed as they arrive, the answer indented,
 * each error's code, message and data, the HTTP status and the time), what the chosen method
 * declares beside it (its result's schema, its streamed values' schema, its errors), the batch
 * being built and the session's history, each entry of which can be sent again.
 *
 * Each call ends with one sentence in the page's status line (`role="status"`), which screen
 * readers announce: "add: result 3 (2 ms)", "getUser: error 404 No such user".
 *
 * @module
 */

import { announce, byId, clear, compact, el, isObject, own, pretty, prettyText, shown, textOf, type Json } from "./dom";
import type { Control } from "./form";
import { resend } from "./main";
import type { Reply } from "./wire";

/** A call in the session's history: sent again as it was. */
export interface Entry {
  readonly number: number;
  readonly label: string;
  readonly body: string;
  readonly summary: string;
}

/** What the page holds: the chosen method and its form, the request's id, the batch, the history, the running call. */
interface State {
  method: Json;
  controls: Control[];
  nextId: number;
  edited: boolean;
  batch: Json[];
  history: Entry[];
  calls: number;
  running: AbortController | null;
}

/** Where a call's answer and streamed values go in the Response region (`showRequest`). */
export interface CallView {
  readonly values: HTMLOListElement;
  readonly valuesBlock: HTMLDivElement;
  readonly answer: HTMLDivElement;
  count: number;
}

// The history keeps the last calls only: a page left open all day stays small.
const MAX_HISTORY = 50;
// A result longer than this is cut in the announcement: the Response region shows all of it.
const MAX_SPOKEN = 80;

export const state: State = {
  method: null,
  controls: [],
  nextId: 1,
  edited: false,
  batch: [],
  history: [],
  calls: 0,
  running: null,
};

const duration = (ms: number): string => (ms < 10 ? ms.toFixed(1) : String(Math.round(ms))) + " ms";

const spoken = (value: Json): string => {
  const text = compact(value);
  return text.length > MAX_SPOKEN ? text.slice(0, MAX_SPOKEN - 1) + "…" : text;
};

const codeBlock = (text: string): HTMLPreElement => el("pre", { class: "code", text });

export const plural = (count: number, noun: string): string => count + " " + noun + (count === 1 ? "" : "s");

// The Response region, emptied for a new call: the request as sent, and where the rest goes.
export const showRequest = (body: string): CallView => {
  const box = clear(byId("exchange"));
  const values = el("ol", { class: "values", "aria-label": "Streamed values" });
  const valuesBlock = el("div", { hidden: true }, [el("h3", { text: "Streamed values" }), values]);
  const answer = el("div");
  box.append(valuesBlock, answer, el("h3", { text: "Request as sent" }), codeBlock(prettyText(body)));
  return { values, valuesBlock, answer, count: 0 };
};

export const addValue = (view: CallView, value: Json): void => {
  view.count += 1;
  view.valuesBlock.hidden = false;
  view.values.append(el("li", { text: compact(value) }));
};

const errorView = (error: Json, id: Json, batch: boolean): HTMLElement => {
  const rows: Array<[string, string]> = [
    ["Error code", compact(error.code)],
    ["Message", textOf(error.message)],
  ];
  if (batch) rows.unshift(["Request id", compact(id)]);
  const items = rows.flatMap(([name, value]) => [el("dt", { text: name }), el("dd", { text: value })]);
  if (own(error, "data")) items.push(el("dt", { text: "Data" }), el("dd", {}, [codeBlock(shown(error.data))]));
  return el("dl", { class: "error" }, items);
};

// The errors of an answer (one response or a batch's), with their request's id.
const errorsIn = (answer: Json): Array<{ error: Json; id: Json }> =>
  (Array.isArray(answer) ? answer : [answer])
    .filter((response: Json) => isObject(response) && isObject(response.error))
    .map((response: Json) => ({ error: response.error, id: response.id }));

// One sentence for the status line, about an answer that is JSON.
const sentence = (label: string, answer: Json, errors: ReadonlyArray<{ error: Json }>, ms: number): string => {
  const time = " (" + duration(ms) + ")";
  if (Array.isArray(answer)) {
    const failed = errors.length === 0 ? "" : ", " + errors.length + " with an error";
    return label + ": " + plural(answer.length, "answer") + failed + time;
  }
  if (errors.length > 0)
    return label + ": error " + compact(errors[0]!.error.code) + " " + textOf(errors[0]!.error.message) + time;
  if (own(answer, "result")) return label + ": result " + spoken(answer.result) + time;
  return label + ": answered" + time;
};

// What the Response region says of a reply with no text: for a request with an id, that its
// answer never came (a stream cut after its values, say); else that none was to come.
const noAnswer = (view: CallView, label: string, reply: Reply, expected: boolean): string => {
  const after = view.count === 0 ? "" : " after " + plural(view.count, "streamed value");
  const how = " (HTTP " + reply.status + ", " + duration(reply.ms) + ")";
  if (!expected) {
    view.answer.append(el("p", { text: "No answer: a notification is never answered." }));
    return label + ": sent, no answer" + how;
  }
  view.answer.append(
    el("p", { class: "problem", text: "No answer: the server ended its reply" + after + " without the answer." }),
  );
  return label + ": the answer never came" + after + how;
};

// The answer of a call in the Response region; the sentence the status line says. expected:
// whether the request has an id (some request of a batch has one).
export const showAnswer = (view: CallView, label: string, reply: Reply, expected: boolean): string => {
  const box = view.answer;
  box.append(el("h3", { text: "Answer" }));
  box.append(
    el("p", { class: "muted", text: "HTTP " + reply.status + " " + reply.statusText + ", in " + duration(reply.ms) }),
  );
  let answer: Json;
  try {
    answer = JSON.parse(reply.text);
  } catch {
    answer = undefined;
  }
  let said: string;
  if (reply.text === "") {
    said = noAnswer(view, label, reply, expected);
  } else if (answer === undefined) {
    box.append(codeBlock(reply.text));
    said = label + ": HTTP " + reply.status + ", an answer that is not JSON";
  } else {
    const errors = errorsIn(answer);
    for (const { error, id } of errors) box.append(errorView(error, id, Array.isArray(answer)));
    box.append(codeBlock(pretty(answer)));
    said = sentence(label, answer, errors, reply.ms);
  }
  announce(said);
  return said;
};

export const showFailure = (view: CallView, label: string, what: string): void => {
  view.answer.append(el("h3", { text: "No answer" }), el("p", { class: "problem", text: what }));
  announce(label + ": " + what);
};

const schemaBlock = (title: string, descriptor: Json): HTMLElement[] => {
  if (!isObject(descriptor)) return [];
  // The generated names ("result", "stream") say nothing; a name given by the service may.
  const given = typeof descriptor.name === "string" ? descriptor.name : "";
  const name = given === "result" || given === "stream" ? "" : given;
  const block: HTMLElement[] = [el("h3", { text: title })];
  if (name !== "") block.push(el("p", { class: "muted", text: name }));
  block.push(codeBlock(shown(descriptor.schema)));
  return block;
};

const declaredErrors = (errors: Json): HTMLElement[] => {
  if (!Array.isArray(errors) || errors.length === 0) return [el("p", { class: "muted", text: "None declared." })];
  const items = errors
    .filter(isObject)
    .map((error: Json) =>
      el("li", {}, [
        el("strong", { text: compact(error.code) }),
        " " + textOf(error.message),
        own(error, "data") ? codeBlock("data: " + shown(error.data)) : null,
      ]),
    );
  return [el("ul", { class: "declared" }, items)];
};

// What the chosen method declares, beside the answer, to compare: its nodes.
export const declaredOf = (method: Json): HTMLElement[] => {
  if (method === null) return [el("p", { class: "muted", text: "Choose a method to see what it declares." })];
  const errors = [el("h3", { text: "Declared errors" }), ...declaredErrors(method.errors)];
  return [...schemaBlock("Result", method.result), ...schemaBlock("Streamed values", method["x-stream"]), ...errors];
};

export const showDeclared = (method: Json): void => byId("declared").replaceChildren(...declaredOf(method));

export const renderBatch = (): void => {
  const list = clear(byId("batch-list"));
  state.batch.forEach((request, index) => {
    const remove = el("button", {
      type: "button",
      class: "small",
      text: "Remove",
      "aria-label": "Remove request " + (index + 1) + " from the batch",
    });
    // The request goes; the focus, to the Remove button now in its place (or before it), or Add to batch.
    remove.addEventListener("click", () => {
      state.batch.splice(index, 1);
      renderBatch();
      const buttons = byId("batch-list").querySelectorAll("button");
      (buttons[Math.min(index, buttons.length - 1)] || byId("add-to-batch")).focus();
    });
    list.append(el("li", {}, [el("code", { text: compact(request) }), remove]));
  });
  const size = state.batch.length;
  byId("batch-count").textContent =
    size === 0
      ? "Empty: Add to batch puts the request above here."
      : size + " request" + (size === 1 ? "" : "s") + ", sent as one array.";
  byId<HTMLButtonElement>("send-batch").disabled = size === 0;
  byId<HTMLButtonElement>("clear-batch").disabled = size === 0;
};

const historyItem = (entry: Entry): HTMLLIElement => {
  const label = "#" + entry.number + " " + entry.label;
  const again = el("button", { type: "button", class: "small", text: "Re-send", "aria-label": "Re-send " + label });
  again.addEventListener("click", () => void resend(entry));
  return el("li", {}, [el("span", { text: "#" + entry.number + " " + entry.summary }), again]);
};

// A call's entry, newest first. The other entries stay as they are, so a Re-send button keeps
// the focus; should the oldest entry go with the focus, the newest takes it.
export const remember = (label: string, body: string, summary: string): void => {
  state.calls += 1;
  const entry = { number: state.calls, label, body, summary };
  state.history.unshift(entry);
  const list = byId("history-list");
  list.prepend(historyItem(entry));
  byId("history-empty").hidden = true;
  if (state.history.length <= MAX_HISTORY) return;
  state.history.length = MAX_HISTORY;
  const oldest = list.lastElementChild as Element;
  const focused = oldest.contains(document.activeElement);
  oldest.remove();
  if (focused) (list.querySelector("button") as HTMLButtonElement).focus();
};

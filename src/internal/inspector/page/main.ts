/**
 * The inspector page's script, part 7 of 7: the request and the page's start. It keeps the request
 * text in step with the chosen method's form; sends the request, the batch, or an entry of the
 * history; stops a call; copies it as `curl`; binds every event with `addEventListener`, then reads
 * `rpc.discover` (methods.ts).
 *
 * The request text is what Send sends, exactly: the form writes it at each change of a field, and
 * it may be edited by hand before Send. A request written by the form gets the next id of the
 * session (1, 2, ...), none when "Send as a notification" is ticked; one edited by hand keeps its
 * own, and is never written over by the form behind the user's back: not even when a call that
 * was sent from the form ends after the edit.
 *
 * @module
 */

import { announce, byId, editable, isObject, messageOf, own, type Json } from "./dom";
import { paramsOf, type Control } from "./form";
import { streamedValue } from "./events";
import { applyFilter, discover } from "./methods";
import {
  addValue,
  plural,
  remember,
  renderBatch,
  showAnswer,
  showDeclared,
  showFailure,
  showRequest,
  state,
  type Entry,
} from "./views";
import { curlOf, post } from "./wire";

export const setProblem = (message: string): void => {
  const problem = byId("request-problem");
  problem.textContent = message;
  problem.hidden = message === "";
};

// The request box: its text, and as many rows as it has lines, within reason.
export const setRequest = (text: string): void => {
  const box = byId<HTMLTextAreaElement>("request");
  box.value = text;
  box.rows = Math.min(16, Math.max(4, text.split("\n").length));
};

// The request the form of method writes: the session's next id, none for a notification.
export const requestOf = (method: Json, controls: readonly Control[], notification: boolean): Record<string, Json> => {
  const request: Record<string, Json> = { jsonrpc: "2.0", method: method.name };
  const params = paramsOf(method, controls);
  if (params !== undefined) request.params = params;
  if (!notification) request.id = state.nextId;
  return request;
};

const writeRequest = (): void => {
  if (state.method === null) return;
  try {
    setRequest(editable(requestOf(state.method, state.controls, byId<HTMLInputElement>("notification").checked)));
    state.edited = false;
    setProblem("");
  } catch (error) {
    setProblem((error as Error).message);
  }
};

// The notification box on a request written by hand: its id taken out, or put back.
const toggleId = (): void => {
  if (state.method !== null && !state.edited) return writeRequest();
  let request: Json;
  try {
    request = JSON.parse(byId<HTMLTextAreaElement>("request").value);
  } catch {
    return setProblem("The request is not JSON: take its id out or put it back by hand.");
  }
  if (!isObject(request))
    return setProblem("The request is not one object: take the ids out or put them back by hand.");
  if (byId<HTMLInputElement>("notification").checked) delete request.id;
  else request.id = state.nextId;
  try {
    setRequest(editable(request));
  } catch (error) {
    setProblem((error as Error).message);
  }
};

// What the status line calls a request, and whether it is answered: it (or some request of a
// batch) has an id, or it is not JSON (the server answers a parse error).
const aboutBody = (body: string): { label: string; expected: boolean } => {
  let parsed: Json;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { label: "request", expected: true };
  }
  const expected = (Array.isArray(parsed) ? parsed : [parsed]).some(
    (request: Json) => !isObject(request) || own(request, "id"),
  );
  if (Array.isArray(parsed)) return { label: "batch of " + parsed.length, expected };
  return {
    label: isObject(parsed) && typeof parsed.method === "string" && parsed.method !== "" ? parsed.method : "request",
    expected,
  };
};

const setRunning = (running: boolean): void => {
  byId("stop").setAttribute("aria-disabled", running ? "false" : "true");
  byId("response").setAttribute("aria-busy", running ? "true" : "false");
};

// Sends body as it is; answers whether it was sent (not while another call runs).
const send = async (body: string): Promise<boolean> => {
  if (state.running !== null) {
    announce("A call is running: stop it, or wait for its answer, first.");
    return false;
  }
  const { label, expected } = aboutBody(body);
  const controller = new AbortController();
  state.running = controller;
  setRunning(true);
  const view = showRequest(body);
  announce(label + ": sent, waiting for the answer");
  const onMessage = (text: string): boolean => {
    const value = streamedValue(text);
    if (value !== undefined) addValue(view, value);
    return value !== undefined;
  };
  let summary: string;
  try {
    summary = showAnswer(view, label, await post(body, controller.signal, onMessage), expected);
  } catch (error) {
    const stopped = isObject(error) && error.name === "AbortError";
    const what = stopped ? "stopped after " + plural(view.count, "streamed value") : "failed: " + messageOf(error);
    showFailure(view, label, what);
    summary = label + ": " + what;
  } finally {
    state.running = null;
    setRunning(false);
  }
  remember(label, body, summary);
  return true;
};

// Sends the request box. Once the call ends, a request the form wrote moves the session's id on,
// and the form writes the next one, unless the box was edited by hand in the meantime.
const sendRequest = async (): Promise<void> => {
  const fromForm = state.method !== null && !state.edited;
  const sent = await send(byId<HTMLTextAreaElement>("request").value);
  if (sent && fromForm) state.nextId += 1;
  if (sent && state.method !== null && !state.edited) writeRequest();
};

const stop = (): void => {
  if (state.running !== null) state.running.abort();
};

export const resend = (entry: Entry): Promise<boolean> => send(entry.body);

const addToBatch = (): void => {
  let parsed: Json;
  try {
    parsed = JSON.parse(byId<HTMLTextAreaElement>("request").value);
  } catch (error) {
    return setProblem("Only a request that is JSON can join the batch: " + (error as Error).message);
  }
  state.batch.push(...(Array.isArray(parsed) ? parsed : [parsed]));
  renderBatch();
  announce("The batch has " + state.batch.length + " request" + (state.batch.length === 1 ? "" : "s"));
  if (state.method !== null && !state.edited) {
    state.nextId += 1;
    writeRequest();
  }
};

const clearBatch = (): void => {
  state.batch.length = 0;
  renderBatch();
  byId("add-to-batch").focus();
  announce("The batch is empty");
};

const copyCurl = async (): Promise<void> => {
  const streams = state.method !== null && isObject(state.method["x-stream"]);
  const command = curlOf(byId<HTMLTextAreaElement>("request").value, streams);
  const shown = byId("curl");
  shown.textContent = command;
  shown.hidden = false;
  try {
    await navigator.clipboard.writeText(command);
    announce("Copied the curl command");
  } catch {
    announce("The curl command is below the buttons: the clipboard could not take it");
  }
};

const bind = <K extends keyof HTMLElementEventMap>(
  id: string,
  type: K,
  listener: (event: HTMLElementEventMap[K]) => unknown,
): void => byId(id).addEventListener(type, listener);

// A key that an input method (IME) is composing text with: 229 is its keyCode in older browsers.
const composing = (event: KeyboardEvent): boolean => event.isComposing || event.keyCode === 229;

const start = (): void => {
  bind("send", "click", sendRequest);
  bind("stop", "click", stop);
  bind("params", "input", writeRequest);
  bind("params", "change", writeRequest);
  bind("params", "submit", (event) => {
    event.preventDefault();
    void sendRequest();
  });
  // Enter in a field sends, however many fields the form has (a form's own Enter needs just one);
  // not the Enter that ends an input method's composition.
  bind("params", "keydown", (event) => {
    const target = event.target as HTMLInputElement;
    if (event.key !== "Enter" || composing(event) || target.tagName !== "INPUT" || target.type === "checkbox") return;
    event.preventDefault();
    void sendRequest();
  });
  bind("request", "input", () => {
    state.edited = true;
    setProblem("");
  });
  bind("request", "keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !composing(event)) {
      event.preventDefault();
      void sendRequest();
    }
  });
  bind("notification", "change", toggleId);
  bind("add-to-batch", "click", addToBatch);
  bind("send-batch", "click", () => send(JSON.stringify(state.batch)));
  bind("clear-batch", "click", clearBatch);
  bind("copy-curl", "click", copyCurl);
  bind("filter", "input", applyFilter);
  setRunning(false);
  renderBatch();
  showDeclared(null);
  void discover();
};

start();

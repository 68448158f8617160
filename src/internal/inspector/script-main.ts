/**
 * The inspector page's script, part 5 of 5: the page itself. It reads the service's description
 * (`rpc.discover`), lists its methods grouped by their first tag (so that each method is one
 * button, named by the method's name), filters them, shows the chosen one's form and keeps the
 * request text in step with it; sends the request, the batch, or an entry of the history; stops a
 * call; copies it as `curl`. Without a description (no `rpc.discover`, or an answer that is not a
 * document), the page keeps its raw editor: a JSON-RPC request written by hand is sent as it is.
 *
 * The request text is what Send sends, exactly: the form writes it at each change of a field, and
 * it may be edited by hand before Send. A request written by the form gets the next id of the
 * session (1, 2, ...), none when "Send as a notification" is ticked; one edited by hand keeps its
 * own.
 *
 * @module
 */

/** The page's functions, and its start: it binds every event with `addEventListener`, then reads `rpc.discover`. */
export const MAIN_SCRIPT = String.raw`
const setProblem = (message) => {
  const problem = byId("request-problem");
  problem.textContent = message;
  problem.hidden = message === "";
};

// The request box: its text, and as many rows as it has lines, within reason.
const setRequest = (text) => {
  const box = byId("request");
  box.value = text;
  box.rows = Math.min(16, Math.max(4, text.split("\n").length));
};

const requestFromForm = () => {
  const request = { jsonrpc: "2.0", method: state.method.name };
  const params = paramsOf(state.method, state.controls);
  if (params !== undefined) request.params = params;
  if (!byId("notification").checked) request.id = state.nextId;
  return request;
};

const writeRequest = () => {
  if (state.method === null) return;
  try {
    setRequest(pretty(requestFromForm()));
    state.edited = false;
    setProblem("");
  } catch (error) {
    setProblem(error.message);
  }
};

// The notification box on a request written by hand: its id taken out, or put back.
const toggleId = () => {
  if (state.method !== null && !state.edited) return writeRequest();
  let request;
  try {
    request = JSON.parse(byId("request").value);
  } catch (error) {
    return setProblem("The request is not JSON: take its id out or put it back by hand.");
  }
  if (!isObject(request)) return setProblem("The request is not one object: take the ids out or put them back by hand.");
  if (byId("notification").checked) delete request.id;
  else request.id = state.nextId;
  setRequest(pretty(request));
};

const labelOf = (body) => {
  try {
    const parsed = JSON.parse(body);
    if (Array.isArray(parsed)) return "batch of " + parsed.length;
    if (isObject(parsed) && typeof parsed.method === "string") return parsed.method;
  } catch (error) {
    return "request";
  }
  return "request";
};

const setRunning = (running) => {
  byId("stop").setAttribute("aria-disabled", running ? "false" : "true");
  byId("response").setAttribute("aria-busy", running ? "true" : "false");
};

// Sends body as it is; answers whether it was sent (not while another call runs).
const send = async (body) => {
  if (state.running !== null) {
    announce("A call is running: stop it, or wait for its answer, first.");
    return false;
  }
  const label = labelOf(body);
  const controller = new AbortController();
  state.running = controller;
  setRunning(true);
  const view = showRequest(body);
  announce(label + ": sent, waiting for the answer");
  const onMessage = (text) => {
    const value = streamedValue(text);
    if (value !== undefined) addValue(view, value);
    return value !== undefined;
  };
  let summary;
  try {
    summary = showAnswer(view, label, await post(body, controller.signal, onMessage));
  } catch (error) {
    const stopped = isObject(error) && error.name === "AbortError";
    const values = view.count + " streamed value" + (view.count === 1 ? "" : "s");
    const what = stopped ? "stopped after " + values : "failed: " + String(isObject(error) ? error.message : error);
    showFailure(view, label, what);
    summary = label + ": " + what;
  } finally {
    state.running = null;
    setRunning(false);
  }
  remember(label, body, summary);
  return true;
};

const sendRequest = async () => {
  const fromForm = state.method !== null && !state.edited;
  const sent = await send(byId("request").value);
  if (sent && fromForm) {
    state.nextId += 1;
    writeRequest();
  }
};

const stop = () => {
  if (state.running !== null) state.running.abort();
};

const resend = (entry) => send(entry.body);

const addToBatch = () => {
  let parsed;
  try {
    parsed = JSON.parse(byId("request").value);
  } catch (error) {
    return setProblem("Only a request that is JSON can join the batch: " + error.message);
  }
  state.batch.push(...(Array.isArray(parsed) ? parsed : [parsed]));
  renderBatch();
  announce("The batch has " + state.batch.length + " request" + (state.batch.length === 1 ? "" : "s"));
  if (state.method !== null && !state.edited) {
    state.nextId += 1;
    writeRequest();
  }
};

const clearBatch = () => {
  state.batch.length = 0;
  renderBatch();
  byId("add-to-batch").focus();
  announce("The batch is empty");
};

const copyCurl = async () => {
  const streams = state.method !== null && isObject(state.method["x-stream"]);
  const command = curlOf(byId("request").value, streams);
  const shown = byId("curl");
  shown.textContent = command;
  shown.hidden = false;
  try {
    await navigator.clipboard.writeText(command);
    announce("Copied the curl command");
  } catch (error) {
    announce("The curl command is below the buttons: the clipboard could not take it");
  }
};

const showMethodInfo = (method, example) => {
  const box = clear(byId("method-info"));
  const tags = Array.isArray(method.tags) ? method.tags.filter(isObject).map((tag) => String(tag.name)) : [];
  box.append(el("h3", { class: "method-title" }, [el("code", { text: method.name })]));
  if (method.deprecated === true) box.append(el("p", { class: "problem", text: "Deprecated: avoid it in new code." }));
  if (typeof method.summary === "string") box.append(el("p", { text: method.summary }));
  if (typeof method.description === "string") box.append(el("p", { class: "description", text: method.description }));
  if (tags.length > 0) box.append(el("p", { class: "muted", text: "Tags: " + tags.join(", ") }));
  if (isObject(method["x-stream"])) {
    box.append(el("p", { class: "muted", text: "It streams values before its answer: they are listed as they arrive, and Stop cancels the call." }));
  }
  const from = example === undefined ? "No example to start from: fill the params in." : "Filled in from its example " + JSON.stringify(String(example.name)) + ".";
  box.append(el("p", { class: "muted", text: from }));
};

const methods = new WeakMap();

const choose = (button) => {
  const method = methods.get(button);
  for (const other of document.querySelectorAll("button.method")) other.removeAttribute("aria-current");
  button.setAttribute("aria-current", "true");
  state.method = method;
  state.controls = buildForm(method, byId("params"));
  showMethodInfo(method, prefill(method, state.controls));
  byId("notification").checked = false;
  writeRequest();
  showDeclared(method);
};

const methodItem = (method) => {
  const about = uid("about");
  const deprecated = method.deprecated === true;
  const button = el("button", { type: "button", class: deprecated ? "method deprecated" : "method", "aria-describedby": about, text: method.name });
  methods.set(button, method);
  button.addEventListener("click", () => choose(button));
  const summary = typeof method.summary === "string" ? method.summary : "";
  const note = el("span", { id: about, class: "summary" }, [deprecated ? el("span", { class: "badge", text: "deprecated" }) : null, summary]);
  const item = el("li", {}, [button, note]);
  const tags = Array.isArray(method.tags) ? method.tags.filter(isObject).map((tag) => String(tag.name)) : [];
  item.dataset.search = [method.name, summary, ...tags].join(" ").toLowerCase();
  return item;
};

// The methods by their first tag, in the document's order; those without a tag last.
const groupsOf = (list) => {
  const groups = new Map();
  for (const method of list) {
    const first = Array.isArray(method.tags) && isObject(method.tags[0]) ? String(method.tags[0].name) : "";
    if (!groups.has(first)) groups.set(first, []);
    groups.get(first).push(method);
  }
  const untagged = groups.get("") || [];
  groups.delete("");
  const named = [...groups.entries()];
  return untagged.length === 0 ? named : [...named, [named.length === 0 ? "" : "Other methods", untagged]];
};

const renderMethods = (list) => {
  const box = clear(byId("method-list"));
  for (const [tag, members] of groupsOf(list)) {
    const heading = tag === "" ? null : el("h3", { id: uid("group"), text: tag });
    const items = el("ul", { class: "methods", "aria-labelledby": heading === null ? undefined : heading.id }, members.map(methodItem));
    box.append(el("div", { class: "group" }, [heading, items]));
  }
};

const applyFilter = () => {
  const query = byId("filter").value.trim().toLowerCase();
  let shown = 0;
  let total = 0;
  for (const group of byId("method-list").querySelectorAll(".group")) {
    let visible = 0;
    for (const item of group.querySelectorAll("li")) {
      const match = item.dataset.search.includes(query);
      item.hidden = !match;
      visible += match ? 1 : 0;
    }
    group.hidden = visible === 0;
    shown += visible;
    total += group.querySelectorAll("li").length;
  }
  byId("filter-count").textContent = query === "" ? total + " methods" : shown + " of " + total + " methods";
};

const rawMode = (reason) => {
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

const showDocument = (description) => {
  const info = isObject(description.info) ? description.info : {};
  const schemas = isObject(description.components) ? description.components.schemas : undefined;
  components = isObject(schemas) ? schemas : {};
  byId("service-title").textContent = typeof info.title === "string" ? info.title : "JSON-RPC service";
  document.title = byId("service-title").textContent + " - inspector";
  byId("service-version").textContent = typeof info.version === "string" ? "version " + info.version : "";
  byId("service-description").textContent = typeof info.description === "string" ? info.description : "";
  const list = description.methods.filter((method) => isObject(method) && typeof method.name === "string");
  if (list.length === 0) return rawMode("the service describes no methods");
  renderMethods(list);
  applyFilter();
  choose(document.querySelector("button.method"));
  announce("The service describes " + list.length + " method" + (list.length === 1 ? "" : "s"));
};

const discover = async () => {
  let reply;
  try {
    reply = await post(JSON.stringify({ jsonrpc: "2.0", method: "rpc.discover", id: "inspector" }), undefined, () => false);
  } catch (error) {
    return rawMode("rpc.discover could not be called (" + error.message + ")");
  }
  let answer;
  try {
    answer = JSON.parse(reply.text);
  } catch (error) {
    return rawMode("rpc.discover answered HTTP " + reply.status + ": " + reply.text.trim().slice(0, 300));
  }
  if (isObject(answer) && isObject(answer.result) && Array.isArray(answer.result.methods)) return showDocument(answer.result);
  const error = isObject(answer) && isObject(answer.error) ? answer.error : null;
  rawMode(error === null ? "rpc.discover did not answer with a document" : "rpc.discover answered error " + compact(error.code) + " " + String(error.message));
};

const bind = (id, type, listener) => byId(id).addEventListener(type, listener);

const start = () => {
  bind("send", "click", sendRequest);
  bind("stop", "click", stop);
  bind("params", "input", writeRequest);
  bind("params", "change", writeRequest);
  bind("params", "submit", (event) => {
    event.preventDefault();
    void sendRequest();
  });
  // Enter in a field sends, however many fields the form has (a form's own Enter needs just one).
  bind("params", "keydown", (event) => {
    const target = event.target;
    if (event.key !== "Enter" || target.tagName !== "INPUT" || target.type === "checkbox") return;
    event.preventDefault();
    void sendRequest();
  });
  bind("request", "input", () => {
    state.edited = true;
    setProblem("");
  });
  bind("request", "keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
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
  renderHistory();
  showDeclared(null);
  void discover();
};

start();
`;

/**
 * Issue 33, the inspector page's script as code: its pure functions, run by jest from their sources
 * (src/internal/inspector/page/), without a browser. What the page does with them in Chromium:
 * tests/inspector-browser.test.ts and tests/inspector-browser-documents.test.ts. Only the parts
 * that touch no page when they load are imported here (wire.ts reads the page's `<meta>`, main.ts
 * starts the page).
 */
import { compact, editable, isObject, own, pretty, prettyText, textOf } from "../../src/internal/inspector/page/dom";
import { readEvents, streamedValue } from "../../src/internal/inspector/page/events";
import {
  hintOf,
  isWhole,
  kindOf,
  refKey,
  resolveRef,
  setComponents,
  unwrapNull,
} from "../../src/internal/inspector/page/form";

/** A value nested `depth` arrays deep. */
const nested = (depth: number): unknown => {
  let value: unknown = 0;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};

describe("the printers (dom.ts)", () => {
  test("pretty: two spaces, the top level always indented, short nested values on one line", () => {
    expect(pretty({ a: [1, 2], b: { c: "d" } })).toBe('{\n  "a": [1, 2],\n  "b": {"c": "d"}\n}');
    expect(pretty([])).toBe("[]");
    expect(pretty("text")).toBe('"text"');
    // A member that JSON leaves out is left out; an array's hole is null, as in JSON.
    expect(pretty({ gone: undefined, kept: [undefined] })).toBe('{\n  "kept": [null]\n}');
  });

  test("pretty stops at 100 levels with …; editable never cuts: past that depth, one line", () => {
    expect(pretty(nested(150))).toContain("…");
    expect(editable(nested(150))).toBe(JSON.stringify(nested(150)));
    expect(editable(nested(3))).toBe("[\n  [[0]]\n]");
  });

  test("compact and textOf: JSON on one line, whatever the value; a string as itself", () => {
    expect(compact({ a: 1 })).toBe('{"a":1}');
    expect(compact(undefined)).toBe("undefined");
    // What JSON.stringify throws on a value too deep for it: whether a depth does depends on the
    // engine (Node 26's V8 writes 20,000 levels; Node 20's overflows), so the throw is made here.
    const tooDeep = {
      toJSON: () => {
        throw new RangeError("Maximum call stack size exceeded");
      },
    };
    expect(compact(tooDeep as never)).toBe("(too deeply nested to show)");
    expect(textOf("<b>x</b>")).toBe("<b>x</b>");
    expect(textOf({ toString: 1 })).toBe('{"toString":1}');
  });

  test("prettyText: JSON text indented, any other text as it is", () => {
    expect(prettyText('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyText("not json")).toBe("not json");
  });

  test("isObject and own: plain objects only, own members only", () => {
    expect([isObject({}), isObject([]), isObject(null), isObject("x")]).toEqual([true, false, false, false]);
    expect([own({ a: 1 }, "a"), own({}, "toString"), own(JSON.parse('{"__proto__": 1}'), "__proto__")]).toEqual([
      true,
      false,
      true,
    ]);
  });
});

describe("the form's reading of JSON Schema (form.ts)", () => {
  afterEach(() => setComponents({}));

  test("refKey: a $ref into components.schemas, %-decoded; anything else is no key", () => {
    expect(refKey("#/components/schemas/User")).toBe("User");
    expect(refKey("#/components/schemas/a%20b")).toBe("a b");
    expect(refKey("#/components/schemas/%E0%A4%A")).toBe("");
    expect(refKey("#/definitions/User")).toBe("");
  });

  test("resolveRef follows $refs into the components, and stops at a loop", () => {
    setComponents({
      A: { $ref: "#/components/schemas/B" },
      B: { type: "string" },
      L: { $ref: "#/components/schemas/L" },
    });
    expect(resolveRef({ $ref: "#/components/schemas/A" })).toEqual({ type: "string" });
    expect(resolveRef({ $ref: "#/components/schemas/L" })).toEqual({ $ref: "#/components/schemas/L" });
    expect(resolveRef({ $ref: "#/components/schemas/missing" })).toEqual({ $ref: "#/components/schemas/missing" });
    expect(resolveRef("not a schema")).toEqual({});
  });

  test("unwrapNull: a null branch (type list, anyOf, oneOf) is the field's 'is null' box", () => {
    expect(unwrapNull({ type: ["string", "null"] })).toEqual({ schema: { type: "string" }, nullable: true });
    expect(unwrapNull({ anyOf: [{ type: "null" }, { type: "number" }] })).toEqual({
      schema: { type: "number" },
      nullable: true,
    });
    expect(unwrapNull({ oneOf: [{ const: null }, { type: "boolean" }] })).toEqual({
      schema: { type: "boolean" },
      nullable: true,
    });
    expect(unwrapNull({ type: "string" })).toEqual({ schema: { type: "string" }, nullable: false });
  });

  test("kindOf: a field for scalars and enums, fieldsets two levels deep, JSON past them", () => {
    const object = { type: "object", properties: { a: { type: "string" } } };
    expect(kindOf({ type: "integer" }, 0)).toBe("integer");
    expect(kindOf({ enum: ["a", "b"] }, 0)).toBe("enum");
    expect(kindOf({ const: 1 }, 0)).toBe("enum");
    expect(kindOf(object, 0)).toBe("object");
    expect(kindOf(object, 2)).toBe("json");
    expect(kindOf({ ...object, additionalProperties: true }, 0)).toBe("json");
    expect(kindOf({ type: "array", items: { type: "number" } }, 1)).toBe("list");
    expect(kindOf({ type: "array", items: { type: "object" } }, 0)).toBe("json");
  });

  test("hintOf: what to type, required or not, the description; cut at 240 characters", () => {
    expect(hintOf({ type: "string", format: "email" }, "string", true, "Where to write")).toBe(
      "string (email); required; Where to write",
    );
    expect(hintOf({ enum: [1, "x"] }, "enum", false, undefined)).toBe('one of 1, "x"; optional');
    const hint = hintOf({}, "json", true, "x".repeat(300));
    expect([hint.length, hint.endsWith("…")]).toEqual([240, true]);
  });

  test("isWhole: the one param rpcserver describes as the whole params value", () => {
    const description = "The whole params value, which the method's params codec does not split into params";
    expect(isWhole({ params: [{ name: "params", description }] })).toBe(true);
    expect(isWhole({ params: [{ name: "params", description }], paramStructure: "by-name" })).toBe(false);
    expect(isWhole({ params: [{ name: "a" }] })).toBe(false);
  });
});

/** A byte stream that gives `chunks` as its reads, one each. */
const streamOf = (chunks: readonly string[]): ReadableStream<Uint8Array> => {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
};

/** Every message `readEvents` reads from `chunks`, and the answer it gives (values: the messages starting "v"). */
const read = async (chunks: readonly string[]): Promise<{ messages: string[]; answer: string }> => {
  const messages: string[] = [];
  const answer = await readEvents(streamOf(chunks), (text) => {
    messages.push(text);
    return text.startsWith("v");
  });
  return { messages, answer };
};

describe("an event stream, read as it arrives (events.ts)", () => {
  test("each event's data lines are one message; the last message that is not a value is the answer", async () => {
    expect(await read(["data: v1\n\n", 'data: v2\n\ndata: {"a":\ndata: 1}\n\n'])).toEqual({
      messages: ["v1", "v2", '{"a":\n1}'],
      answer: '{"a":\n1}',
    });
  });

  test("a line ends with CRLF, LF or CR, a CRLF split between two reads included", async () => {
    expect(await read(["data: v1\r", "\n\r", "\ndata:answer\r\r"])).toEqual({
      messages: ["v1", "answer"],
      answer: "answer",
    });
    expect(await read(["data: a\r\n", "\r\n"])).toEqual({ messages: ["a"], answer: "a" });
  });

  test("comments and other fields are not data; an event without its blank line still counts at the end", async () => {
    expect(await read([": ping\n", "event: x\nid: 3\ndata: v\n\n", "data", "\n", "data:last"])).toEqual({
      messages: ["v", "\nlast"],
      answer: "\nlast",
    });
  });

  test("a multi-byte character split between two reads", async () => {
    const bytes = new TextEncoder().encode("data: é\n\n");
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 7));
        controller.enqueue(bytes.slice(7));
        controller.close();
      },
    });
    expect(await readEvents(stream, () => false)).toBe("é");
  });

  test("streamedValue: a $/progress value, another notification's params, never a response", () => {
    expect(streamedValue('{"jsonrpc":"2.0","method":"$/progress","params":{"token":1,"value":[1]}}')).toEqual([1]);
    expect(streamedValue('{"jsonrpc":"2.0","method":"tick","params":{"n":1}}')).toEqual({ n: 1 });
    expect(streamedValue('{"jsonrpc":"2.0","method":"tick"}')).toBe("tick");
    expect(streamedValue('{"jsonrpc":"2.0","method":"tick","id":1}')).toBeUndefined();
    expect(streamedValue("not json")).toBeUndefined();
  });
});

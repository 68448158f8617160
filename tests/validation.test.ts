/**
 * Validation and parsing: the default validator (an io-ts codec equivalent to the JSON schema
 * shipped in schema/request.schema.json), custom and no-op validators, the deserializer, and
 * request bytes.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  asyncDispatch,
  dispatch,
  dispatchToResponse,
  dispatchToSerializable,
  requestCodec,
  Success,
  validateRequest,
  type Methods,
} from "../src";
import { jsonDispatchers, jsonParseMessage } from "./support";

const methods: Methods = { ping: () => Success("pong"), echo: (...args: unknown[]) => Success(args) };

// --- The JSON schema, checked by hand --------------------------------------------------------

interface Schema {
  readonly type?: string | string[];
  readonly const?: unknown;
  readonly properties?: Record<string, Schema>;
  readonly required?: string[];
  readonly additionalProperties?: boolean;
}

const schemaText = readFileSync(join(__dirname, "..", "schema", "request.schema.json"), "utf8");
const schema = JSON.parse(schemaText) as Schema & Record<string, unknown>;

/** The JSON schema type names a JSON value has ("integer" is not used by the schema). */
const jsonType = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "array" : typeof value === "object" ? "object" : typeof value;

/** The keywords this hand check understands; the schema must use no others. */
const UNDERSTOOD = new Set(["type", "const", "properties", "required", "additionalProperties"]);
const ANNOTATIONS = new Set(["$schema", "$id", "title", "description"]);

/** Does `value` satisfy `s`, by the rules of JSON Schema for the keywords above? */
const satisfies = (s: Schema, value: unknown): boolean => {
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (!types.includes(jsonType(value))) return false;
  }
  if ("const" in s && JSON.stringify(s.const) !== JSON.stringify(value)) return false;
  if (jsonType(value) !== "object") return true;
  const object = value as Record<string, unknown>;
  for (const name of s.required ?? []) if (!Object.prototype.hasOwnProperty.call(object, name)) return false;
  for (const [name, member] of Object.entries(object)) {
    const sub = s.properties?.[name];
    if (sub === undefined) {
      if (s.additionalProperties === false) return false;
    } else if (!satisfies(sub, member)) return false;
  }
  return true;
};

describe("the JSON schema file", () => {
  test("uses only keywords the hand check understands", () => {
    const keywords = (s: Record<string, unknown>): string[] => [
      ...Object.keys(s).filter((k) => !ANNOTATIONS.has(k)),
      ...Object.values((s.properties ?? {}) as Record<string, Record<string, unknown>>).flatMap(keywords),
    ];
    for (const keyword of keywords(schema)) expect(UNDERSTOOD).toContain(keyword);
  });

  test("states the JSON-RPC 2.0 rules", () => {
    expect(schema.type).toBe("object");
    expect(schema.required).toStrictEqual(["jsonrpc", "method"]);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties).toStrictEqual({
      jsonrpc: { const: "2.0" },
      method: { type: "string" },
      params: { type: ["array", "object"] },
      id: { type: ["string", "number", "null"] },
    });
  });
});

/** [what the row shows, the request as JSON text, valid?, the default validator's reason]. */
const table: ReadonlyArray<readonly [string, string, boolean, string?]> = [
  ["minimal notification", '{"jsonrpc":"2.0","method":"ping"}', true],
  ["integer id", '{"jsonrpc":"2.0","method":"ping","id":1}', true],
  ["fractional id", '{"jsonrpc":"2.0","method":"ping","id":1.5}', true],
  ["negative id", '{"jsonrpc":"2.0","method":"ping","id":-7}', true],
  ["string id", '{"jsonrpc":"2.0","method":"ping","id":"abc"}', true],
  ["empty string id", '{"jsonrpc":"2.0","method":"ping","id":""}', true],
  ["null id", '{"jsonrpc":"2.0","method":"ping","id":null}', true],
  ["array params", '{"jsonrpc":"2.0","method":"ping","params":[1],"id":1}', true],
  ["empty array params", '{"jsonrpc":"2.0","method":"ping","params":[],"id":1}', true],
  ["object params", '{"jsonrpc":"2.0","method":"ping","params":{"a":1},"id":1}', true],
  ["members in any order", '{"id":1,"params":[],"method":"ping","jsonrpc":"2.0"}', true],
  ["empty method name", '{"jsonrpc":"2.0","method":"","id":1}', true],
  ["not an object: number", "1", false, "a request must be an object"],
  ["not an object: string", '"x"', false, "a request must be an object"],
  ["not an object: null", "null", false, "a request must be an object"],
  ["not an object: true", "true", false, "a request must be an object"],
  ["empty object", "{}", false, 'jsonrpc: must be exactly "2.0"'],
  ["jsonrpc missing", '{"method":"ping","id":1}', false, 'jsonrpc: must be exactly "2.0"'],
  ["jsonrpc 1.0", '{"jsonrpc":"1.0","method":"ping","id":1}', false, 'jsonrpc: must be exactly "2.0"'],
  ["jsonrpc 2", '{"jsonrpc":"2","method":"ping","id":1}', false, 'jsonrpc: must be exactly "2.0"'],
  ["jsonrpc a number", '{"jsonrpc":2.0,"method":"ping","id":1}', false, 'jsonrpc: must be exactly "2.0"'],
  ["jsonrpc padded", '{"jsonrpc":" 2.0","method":"ping","id":1}', false, 'jsonrpc: must be exactly "2.0"'],
  ["jsonrpc null", '{"jsonrpc":null,"method":"ping","id":1}', false, 'jsonrpc: must be exactly "2.0"'],
  ["method missing", '{"jsonrpc":"2.0","id":1}', false, "method: must be a string"],
  ["method a number", '{"jsonrpc":"2.0","method":1,"id":1}', false, "method: must be a string"],
  ["method null", '{"jsonrpc":"2.0","method":null,"id":1}', false, "method: must be a string"],
  ["method an array", '{"jsonrpc":"2.0","method":["ping"],"id":1}', false, "method: must be a string"],
  [
    "params a string",
    '{"jsonrpc":"2.0","method":"ping","params":"a","id":1}',
    false,
    "params: must be an array or an object",
  ],
  [
    "params a number",
    '{"jsonrpc":"2.0","method":"ping","params":1,"id":1}',
    false,
    "params: must be an array or an object",
  ],
  [
    "params null",
    '{"jsonrpc":"2.0","method":"ping","params":null,"id":1}',
    false,
    "params: must be an array or an object",
  ],
  [
    "params true",
    '{"jsonrpc":"2.0","method":"ping","params":true,"id":1}',
    false,
    "params: must be an array or an object",
  ],
  ["id an object", '{"jsonrpc":"2.0","method":"ping","id":{}}', false, "id: must be a string, a number or null"],
  ["id an array", '{"jsonrpc":"2.0","method":"ping","id":[1]}', false, "id: must be a string, a number or null"],
  ["id a boolean", '{"jsonrpc":"2.0","method":"ping","id":true}', false, "id: must be a string, a number or null"],
  [
    "an extra member",
    '{"jsonrpc":"2.0","method":"ping","id":1,"extra":1}',
    false,
    "extra: is not a member of a JSON-RPC 2.0 request",
  ],
  [
    "an extra member that is null",
    '{"jsonrpc":"2.0","method":"ping","x":null}',
    false,
    "x: is not a member of a JSON-RPC 2.0 request",
  ],
  [
    "result instead of params",
    '{"jsonrpc":"2.0","method":"ping","result":1,"id":1}',
    false,
    "result: is not a member of a JSON-RPC 2.0 request",
  ],
  [
    "error member",
    '{"jsonrpc":"2.0","method":"ping","error":{},"id":1}',
    false,
    "error: is not a member of a JSON-RPC 2.0 request",
  ],
  ["a response, not a request", '{"jsonrpc":"2.0","result":1,"id":1}', false, "method: must be a string"],
];

const rows = table.map(([what, text, valid, reason]) => ({ what, text, valid, reason: reason ?? "" }));

describe.each(rows)("$what: $text", ({ text, valid, reason }) => {
  const value: unknown = JSON.parse(text);

  test("the schema and the codec agree", () => {
    expect(satisfies(schema, value)).toBe(valid);
    expect(requestCodec.is(value)).toBe(valid);
    expect(requestCodec.decode(value)._tag).toBe(valid ? "Right" : "Left");
  });

  test("validateRequest throws a TypeError with the reason exactly when invalid", () => {
    if (valid) expect(() => validateRequest(value)).not.toThrow();
    else expect(() => validateRequest(value)).toThrow(new TypeError(reason));
  });

  test("dispatch answers an invalid request with -32600, the reason in data, id null", () => {
    const answer = dispatch(text, methods);
    if (valid) {
      // Validation let it through unchanged: the answer is the one given with validation off.
      expect(answer).toBe(dispatch(text, methods, { validator: () => undefined }));
      expect(answer).not.toContain("-32600");
    } else {
      expect(JSON.parse(answer)).toStrictEqual({
        jsonrpc: "2.0",
        error: { code: -32600, message: "Invalid Request", data: reason },
        id: null,
      });
    }
  });
});

describe("the codec", () => {
  test("decode reports the reason as the io-ts message", () => {
    const decoded = requestCodec.decode({ jsonrpc: "2.0", method: "ping", extra: 1 });
    expect(decoded._tag).toBe("Left");
    if (decoded._tag === "Left") {
      expect(decoded.left.map((e) => e.message)).toStrictEqual(["extra: is not a member of a JSON-RPC 2.0 request"]);
    }
  });

  test("decode returns the request itself when valid", () => {
    const request = { jsonrpc: "2.0", method: "ping", params: [1], id: 1 };
    expect(requestCodec.decode(request)).toStrictEqual({ _tag: "Right", right: request });
  });

  test("a bigint id (from a custom deserializer) counts as a number; NaN and Infinity do not", () => {
    expect(requestCodec.is({ jsonrpc: "2.0", method: "ping", id: 10n })).toBe(true);
    expect(requestCodec.is({ jsonrpc: "2.0", method: "ping", id: NaN })).toBe(false);
    expect(requestCodec.is({ jsonrpc: "2.0", method: "ping", id: Infinity })).toBe(false);
  });

  test("members that are undefined (not JSON) still count as present", () => {
    expect(requestCodec.is({ jsonrpc: "2.0", method: "ping", id: undefined })).toBe(false);
    expect(requestCodec.is({ jsonrpc: "2.0", method: "ping", params: undefined })).toBe(false);
  });

  test("inherited members are not members", () => {
    const request = Object.assign(Object.create({ extra: 1, id: {} }) as object, { jsonrpc: "2.0", method: "ping" });
    expect(requestCodec.is(request)).toBe(true);
  });
});

describe.each(jsonDispatchers)("batches are validated member by member (%s)", (_name, send) => {
  test("an invalid member is answered alone, the others are run", async () => {
    const text = await send(
      '[{"jsonrpc":"2.0","method":"ping","id":1},{"jsonrpc":"2.0","method":"ping","id":2,"x":1},{"jsonrpc":"2.0","method":"ping","id":3}]',
      methods,
    );
    expect(text).toBe(
      '[{"jsonrpc":"2.0","result":"pong","id":1},{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"x: is not a member of a JSON-RPC 2.0 request"},"id":null},{"jsonrpc":"2.0","result":"pong","id":3}]',
    );
  });

  test("an invalid member without id is answered too (it cannot be known to be a notification)", async () => {
    expect(await send('[{"jsonrpc":"2.0","method":1}]', methods)).toBe(
      '[{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"method: must be a string"},"id":null}]',
    );
  });

  test("a nested batch is an invalid member", async () => {
    expect(await send('[[{"jsonrpc":"2.0","method":"ping","id":1}]]', methods)).toBe(
      '[{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"a request must be an object"},"id":null}]',
    );
  });

  test("a custom validator is called exactly once per member, with the member", async () => {
    const seen: unknown[] = [];
    const validator = (request: unknown) => void seen.push(request);
    const members = [
      { jsonrpc: "2.0", method: "ping", id: 1 },
      { jsonrpc: "2.0", method: "ping" },
      { jsonrpc: "2.0", method: "ping", id: 3 },
    ];
    await send(JSON.stringify(members), methods, { validator });
    expect(seen).toStrictEqual(members);
  });

  test("a custom validator is called exactly once for a single request", async () => {
    const validator = jest.fn();
    await send('{"jsonrpc":"2.0","method":"ping","id":1}', methods, { validator });
    expect(validator).toHaveBeenCalledTimes(1);
    expect(validator).toHaveBeenCalledWith({ jsonrpc: "2.0", method: "ping", id: 1 });
  });

  test("a custom validator is not called for an empty batch or one over the limit", async () => {
    const validator = jest.fn();
    await send("[]", methods, { validator });
    await send('[{"jsonrpc":"2.0","method":"ping","id":1},{"jsonrpc":"2.0","method":"ping","id":2}]', methods, {
      validator,
      maxBatchSize: 1,
    });
    expect(validator).not.toHaveBeenCalled();
  });

  test("a custom validator that throws refuses that member alone: -32600 with the thrown message", async () => {
    const validator = (request: unknown) => {
      if ((request as { id?: unknown }).id === 2) throw new RangeError("id 2 is not allowed");
    };
    expect(
      await send('[{"jsonrpc":"2.0","method":"ping","id":1},{"jsonrpc":"2.0","method":"ping","id":2}]', methods, {
        validator,
      }),
    ).toBe(
      '[{"jsonrpc":"2.0","result":"pong","id":1},{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"id 2 is not allowed"},"id":null}]',
    );
  });

  test("a validator may throw anything", async () => {
    const validator = () => {
      throw "just a string";
    };
    expect(await send('{"jsonrpc":"2.0","method":"ping","id":1}', methods, { validator })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"just a string"},"id":null}',
    );
  });

  test("a validator's return value is ignored", async () => {
    const validator = () => false;
    expect(await send('{"jsonrpc":"2.0","method":"ping","id":1}', methods, { validator })).toBe(
      '{"jsonrpc":"2.0","result":"pong","id":1}',
    );
  });

  test("a no-op validator turns validation off", async () => {
    const validator = () => undefined;
    expect(
      await send('{"jsonrpc":"1.0","method":"echo","params":"raw","id":{"any":"id"},"extra":true}', methods, {
        validator,
      }),
    ).toBe('{"jsonrpc":"2.0","result":["raw"],"id":{"any":"id"}}');
    expect(
      await send('[{"method":"ping","id":1},{"jsonrpc":"2.0","method":"ping","id":[2]}]', methods, { validator }),
    ).toBe('[{"jsonrpc":"2.0","result":"pong","id":1},{"jsonrpc":"2.0","result":"pong","id":[2]}]');
  });

  test("with validation off, a request still needs a method name to be dispatched", async () => {
    const validator = () => undefined;
    expect(await send('[1,{"jsonrpc":"2.0","id":1}]', methods, { validator })).toBe(
      '[{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"method: must be a string"},"id":null},{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"method: must be a string"},"id":null}]',
    );
  });
});

describe.each(jsonDispatchers)("the deserializer (%s)", (_name, send) => {
  test("the default parses JSON: invalid JSON is -32700 with JSON.parse's message as data", async () => {
    for (const text of ["", " ", "{", "nul", "{'a':1}", '{"jsonrpc":"2.0",}', "NaN", "1 2"]) {
      expect(JSON.parse(await send(text, methods))).toStrictEqual({
        jsonrpc: "2.0",
        error: { code: -32700, message: "Parse error", data: jsonParseMessage(text) },
        id: null,
      });
    }
  });

  test("a custom deserializer receives the request text once, and its value is dispatched", async () => {
    const deserializer = jest.fn((text: string) => ({ jsonrpc: "2.0", method: text, id: 7 }));
    expect(await send("ping", methods, { deserializer })).toBe('{"jsonrpc":"2.0","result":"pong","id":7}');
    expect(deserializer).toHaveBeenCalledTimes(1);
    expect(deserializer).toHaveBeenCalledWith("ping");
  });

  test("a throwing deserializer is -32700 with the thrown message as data", async () => {
    const deserializer = () => {
      throw new SyntaxError("unexpected token at 3");
    };
    expect(await send('{"jsonrpc":"2.0","method":"ping","id":1}', methods, { deserializer })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error","data":"unexpected token at 3"},"id":null}',
    );
  });

  test("a deserializer that throws a non-Error still gives -32700 with its text", async () => {
    const deserializer = () => {
      throw 42;
    };
    expect(await send("x", methods, { deserializer })).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error","data":"42"},"id":null}',
    );
  });

  test("Buffer and Uint8Array requests holding UTF-8 are decoded", async () => {
    const text = '{"jsonrpc":"2.0","method":"echo","params":["héllo ✓ 😀"],"id":1}';
    const expected = '{"jsonrpc":"2.0","result":["héllo ✓ 😀"],"id":1}';
    expect(await send(Buffer.from(text, "utf8"), methods)).toBe(expected);
    expect(await send(new TextEncoder().encode(text), methods)).toBe(expected);
  });

  test("a custom deserializer receives bytes decoded to text", async () => {
    const deserializer = jest.fn(JSON.parse);
    await send(Buffer.from('{"jsonrpc":"2.0","method":"ping","id":1}'), methods, { deserializer });
    expect(deserializer).toHaveBeenCalledWith('{"jsonrpc":"2.0","method":"ping","id":1}');
  });

  test("bytes that are not valid UTF-8 are -32700", async () => {
    const invalid = Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d]);
    let message = "";
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(invalid);
    } catch (thrown) {
      message = (thrown as Error).message;
    }
    expect(message).not.toBe("");
    for (const bytes of [invalid, Buffer.from(invalid)]) {
      expect(JSON.parse(await send(bytes, methods))).toStrictEqual({
        jsonrpc: "2.0",
        error: { code: -32700, message: "Parse error", data: message },
        id: null,
      });
    }
  });

  test("a request that is neither text nor bytes is -32700", async () => {
    expect(await send(42 as unknown as string, methods)).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error","data":"the request must be a string or UTF-8 bytes, got number"},"id":null}',
    );
  });
});

describe("the other output forms parse and validate the same way", () => {
  test("dispatchToResponse and dispatchToSerializable give -32700 and -32600 too", async () => {
    expect(dispatchToSerializable("{", methods)).toStrictEqual({
      jsonrpc: "2.0",
      error: { code: -32700, message: "Parse error", data: jsonParseMessage("{") },
      id: null,
    });
    expect(dispatchToSerializable('{"jsonrpc":"2.0","method":"ping","id":1,"x":1}', methods)).toStrictEqual({
      jsonrpc: "2.0",
      error: { code: -32600, message: "Invalid Request", data: "x: is not a member of a JSON-RPC 2.0 request" },
      id: null,
    });
    expect(dispatchToResponse("{", methods)).toStrictEqual({
      _tag: "Left",
      left: { code: -32700, message: "Parse error", data: jsonParseMessage("{"), id: null },
    });
    expect(await asyncDispatch("{", methods)).toBe(dispatch("{", methods));
  });
});

/**
 * Properties of dispatch, checked with fast-check over generated input:
 *
 * 1. for any string, and any bytes (a Buffer or a Uint8Array view), no dispatch function throws or
 *    rejects, and the JSON ones return "" or JSON text;
 * 2. every response, in every output form, is a valid JSON-RPC 2.0 response (io-ts codec in
 *    `fixtures/wire.ts`);
 * 3. a batch of generated requests (valid, invalid, notifications, any id; methods that succeed,
 *    fail, throw, return non-Results) gets exactly one response per non-notification member, in the
 *    batch's order, each with its member's id (null for an invalid member) and the expected outcome;
 * 4. sync and async dispatch give identical output for plain methods, whatever the options;
 * 5. with `debug` false, nothing a method (or its codec, its result's `toJSON`, the serializer or
 *    `postProcess`) throws reaches the output: neither its message nor its stack.
 *
 * Reproducible: a fixed seed (`PROPS_SEED` overrides it), printed with the counterexample and its
 * `path` when a property fails; re-run one failure with `PROPS_SEED=<seed> PROPS_PATH=<path>`.
 * `PROPS_RUNS` sets the runs per property: 2,000 by default, 100,000 for `npm run test:props`.
 */
import * as E from "fp-ts/Either";
import fc from "fast-check";
import * as t from "io-ts";
import { inspect, isDeepStrictEqual } from "node:util";
import {
  asyncDispatch,
  asyncDispatchToResponse,
  asyncDispatchToSerializable,
  dispatch,
  dispatchToResponse,
  dispatchToSerializable,
  Error,
  InvalidParams,
  JsonRpcError,
  setLogger,
  Success,
  toSerializable,
  withParams,
  type JsonOptions,
  type Logger,
  type Method,
  type Response,
  type ResponseOptions,
} from "../src";
import { outcomeOf, readAnswer, readText, responsesOf, textsIn, type Answer, type WireResponse } from "./fixtures/wire";

const RUNS = Number(process.env["PROPS_RUNS"] ?? "") || 2000;
const SEED = Number(process.env["PROPS_SEED"] ?? "") || 20260501;
const PATH = process.env["PROPS_PATH"];
/** Enough for 100,000 runs of the slowest property on a slow machine; no test asserts on time. */
const TIMEOUT = Math.max(60_000, RUNS * 20);

/** fast-check's parameters: the fixed seed, and the path of one failure to replay when given. */
const settings = <T>(): fc.Parameters<T> => ({
  numRuns: RUNS,
  seed: SEED,
  ...(PATH === undefined ? {} : { path: PATH, endOnFailure: true }),
});

/**
 * Runs an async property with the settings above. Fails with fast-check's report (seed, path and
 * counterexample) when it does not hold, and checks that it really ran `RUNS` times (runs skipped
 * by `fc.pre` are not counted: each property must still reach the count).
 */
const holds = async <T>(property: fc.IAsyncProperty<T>): Promise<void> => {
  const details = await fc.check(property, settings<T>());
  if (details.failed) {
    const cause = details.errorInstance;
    const why = cause instanceof globalThis.Error ? cause.message : inspect(cause);
    throw new globalThis.Error(`${await fc.asyncDefaultReportMessage(details)}\nCause: ${why}`);
  }
  if (PATH === undefined) expect(details.numRuns).toBe(RUNS);
};

// Methods throw and fail on purpose here; their logging is not what these properties are about.
const quiet: Logger = { error: () => undefined, warn: () => undefined, info: () => undefined };
let previousLogger: Logger;
beforeAll(() => {
  previousLogger = setLogger(quiet);
});
afterAll(() => {
  setLogger(previousLogger);
});

// ---------------------------------------------------------------------------------------------
// Methods, and what each one should come to
// ---------------------------------------------------------------------------------------------

type Mode = "sync" | "async";
/** A response's expected outcome: success, or the error code. */
type Outcome = number | "success";

/** A value that throws on every operation a pipeline could try on it. */
const hostile = (): object => {
  const trap = (): never => {
    throw new globalThis.Error("trap");
  };
  return new Proxy({}, new Proxy({}, { get: () => trap }));
};

const cycle = (): Record<string, unknown> => {
  const a: Record<string, unknown> = {};
  a["self"] = a;
  return a;
};

const one = t.tuple([t.number]);

/** A result that cannot be written: its `toJSON` throws. One object, so both dispatches return the same. */
const UNWRITABLE = {
  toJSON: (): never => {
    throw undefined;
  },
};

interface Kind {
  readonly method: Method;
  /** The expected outcome for these (parsed) params. */
  readonly outcome: (params: unknown, mode: Mode) => Outcome;
  /** Plain: the same in sync and async dispatch (no Promise, no thenable). */
  readonly plain: boolean;
}

const always = (outcome: Outcome) => (): Outcome => outcome;
const argsOf = (params: unknown): unknown[] =>
  params === undefined ? [] : Array.isArray(params) ? (params as unknown[]) : [params];

/** The methods the generated requests call, by name. Names not here are not registered. */
const KINDS: { readonly [name: string]: Kind } = {
  echo: { method: (...args: unknown[]) => Success(args), outcome: always("success"), plain: true },
  none: { method: () => Success(), outcome: always("success"), plain: true },
  fail: { method: () => Error(1234, "Nope", { why: "because" }), outcome: always(1234), plain: true },
  bare: { method: () => Error(-7, "Bare"), outcome: always(-7), plain: true },
  dataUndefined: { method: () => Error(5, "No data", undefined), outcome: always(5), plain: true },
  // Data JSON cannot hold: the default serializer refuses the whole response (-32603).
  dataFunction: { method: () => Error(5, "Function data", UNWRITABLE.toJSON), outcome: always(-32603), plain: true },
  dataNaN: { method: () => Error(5, "NaN data", NaN), outcome: always(-32603), plain: true },
  rpcErrorNaN: {
    method: () => {
      throw new JsonRpcError(6, "NaN data", [NaN]);
    },
    outcome: always(-32603),
    plain: true,
  },
  invalid: { method: () => InvalidParams("bad value"), outcome: always(-32602), plain: true },
  throws: {
    method: () => {
      throw new globalThis.Error("boom");
    },
    outcome: always(-32603),
    plain: true,
  },
  throwsValue: {
    method: () => {
      throw { not: "an Error" };
    },
    outcome: always(-32603),
    plain: true,
  },
  throwsHostile: {
    method: () => {
      throw hostile();
    },
    outcome: always(-32603),
    plain: true,
  },
  rpcError: {
    method: () => {
      throw new JsonRpcError(42, "Forty-two", [1, 2]);
    },
    outcome: always(42),
    plain: true,
  },
  nonResult: { method: (() => 42) as unknown as Method, outcome: always(-32603), plain: true },
  fakeLeft: { method: (() => ({ _tag: "Left", left: {} })) as unknown as Method, outcome: always(-32603), plain: true },
  fakeRight: {
    method: (() => ({ _tag: "Right", right: {} })) as unknown as Method,
    outcome: always(-32603),
    plain: true,
  },
  returnsHostile: { method: hostile as unknown as Method, outcome: always(-32603), plain: true },
  nan: { method: () => Success(NaN), outcome: always(-32603), plain: true },
  bigint: { method: () => Success(10n), outcome: always(-32603), plain: true },
  cycle: { method: () => Success(cycle()), outcome: always(-32603), plain: true },
  badToJSON: {
    method: () => Success(UNWRITABLE),
    outcome: always(-32603),
    plain: true,
  },
  two: {
    method: (a: unknown, b: unknown) => Success([a, b]),
    outcome: (params) => (argsOf(params).length >= 2 ? "success" : -32602),
    plain: true,
  },
  codec: {
    method: withParams(one, (n) => Success(-n)),
    outcome: (params) => (E.isRight(one.decode(params === undefined ? [] : params)) ? "success" : -32602),
    plain: true,
  },
  async: {
    method: async (...args: unknown[]) => Success(args),
    outcome: (_params, mode) => (mode === "async" ? "success" : -32603),
    plain: false,
  },
  rejects: {
    method: () => Promise.reject(new globalThis.Error("later")),
    outcome: always(-32603),
    plain: false,
  },
  thenable: {
    method: (() => ({ then: (resolve: (r: unknown) => void) => resolve(Success("then")) })) as unknown as Method,
    outcome: (_params, mode) => (mode === "async" ? "success" : -32603),
    plain: false,
  },
  thenThrows: {
    method: (() => ({
      then: () => {
        throw null;
      },
    })) as unknown as Method,
    outcome: always(-32603),
    plain: false,
  },
};

const methods: { [name: string]: Method } = Object.fromEntries(Object.entries(KINDS).map(([k, v]) => [k, v.method]));
const plainMethods: { [name: string]: Method } = Object.fromEntries(
  Object.entries(KINDS)
    .filter(([, v]) => v.plain)
    .map(([k, v]) => [k, v.method]),
);
/** Names no methods object here registers: each is -32601, prototype names included. */
const UNREGISTERED = ["missing", "", "toString", "constructor", "__proto__", "hasOwnProperty", "valueOf", "call"];

const expectedOutcome = (name: string, params: unknown, mode: Mode): Outcome => {
  const kind = Object.prototype.hasOwnProperty.call(KINDS, name) ? KINDS[name] : undefined;
  return kind === undefined ? -32601 : kind.outcome(params, mode);
};

// ---------------------------------------------------------------------------------------------
// Generated requests: JSON text written member by member (so that a key such as "__proto__" is
// an ordinary member, as JSON.parse makes it), with what each one should be answered.
// ---------------------------------------------------------------------------------------------

/** One batch member (or a single request) as JSON text, and what answers it. */
interface Member {
  readonly text: string;
  /** `undefined`: nothing (a valid notification); `valid: false`: -32600 with id null. */
  readonly expect:
    | { readonly valid: true; readonly id: unknown; readonly method: string; readonly params: unknown }
    | { readonly valid: false }
    | undefined;
}

const objectText = (entries: ReadonlyArray<readonly [string, string]>): string =>
  `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`;

const json = (value: unknown): string => JSON.stringify(value);

const idText = fc.oneof(
  fc.string().map(json),
  fc.integer().map(json),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(json),
  fc.constant("null"),
  fc.constantFrom('"__proto__"', '"constructor"', '"toString"', "0", "-1", "1e300", "12345678901234567890", '""'),
);

const paramsText = fc.oneof(
  fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 4 }).map(json),
  fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 3 }).map(json),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }).map(json),
  fc.constantFrom(
    "[]",
    "{}",
    "[1]",
    "[1,2]",
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '[{"__proto__":{"polluted":true}},"constructor"]',
  ),
);

const methodName = fc.constantFrom(...Object.keys(KINDS), ...UNREGISTERED);

/** A valid request: every member but `jsonrpc` and `method` optional. */
const validEntries = fc.record(
  { method: methodName, params: fc.option(paramsText, { nil: undefined }), id: fc.option(idText, { nil: undefined }) },
  { requiredKeys: ["method"] },
);

/** A request's members as JSON text each. */
type Req = { readonly method: string; readonly params?: string | undefined; readonly id?: string | undefined };

const toEntries = (r: Req): Array<[string, string]> => {
  const entries: Array<[string, string]> = [
    ["jsonrpc", '"2.0"'],
    ["method", json(r.method)],
  ];
  if (r.params !== undefined) entries.push(["params", r.params]);
  if (r.id !== undefined) entries.push(["id", r.id]);
  return entries;
};

const validMember: fc.Arbitrary<Member> = fc.tuple(validEntries, fc.boolean()).map(([r, reversed]) => {
  const entries = toEntries(r);
  const text = objectText(reversed ? [...entries].reverse() : entries);
  const parsed = JSON.parse(text) as { id?: unknown; params?: unknown };
  return {
    text,
    expect: r.id === undefined ? undefined : { valid: true, id: parsed.id, method: r.method, params: parsed.params },
  };
});

/** Replaces (or with `undefined`, removes) one member of a valid request. */
const mutate = (key: string, values: fc.Arbitrary<string | undefined>): fc.Arbitrary<Member> =>
  fc.tuple(validEntries, values).map(([r, value]) => {
    const entries = toEntries(r).filter(([k]) => k !== key);
    if (value !== undefined) entries.push([key, value]);
    return { text: objectText(entries), expect: { valid: false } };
  });

const invalidMember = (inBatch: boolean): fc.Arbitrary<Member> =>
  fc.oneof(
    // Not an object at all (in a batch, an array too: batches do not nest).
    fc
      .oneof(
        fc.integer().map(json),
        fc.string().map(json),
        fc.constantFrom("true", "false", "null"),
        ...(inBatch ? [fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }).map(json)] : []),
      )
      .map((text) => ({ text, expect: { valid: false } as const })),
    mutate("jsonrpc", fc.constantFrom('"1.0"', "2", "2.0", "null", '"2.0 "', '["2.0"]', undefined)),
    mutate("method", fc.constantFrom("1", "null", "[]", "{}", "true", '["echo"]', undefined)),
    mutate("params", fc.constantFrom("1", '"x"', "true", "null")),
    mutate("id", fc.constantFrom("true", "false", "{}", "[]", "[1]", '{"__proto__":{"polluted":true}}')),
    fc
      .tuple(
        validEntries,
        fc.constantFrom("extra", "ID", "Method", "result", "error", "__proto__", "constructor"),
        fc.jsonValue({ maxDepth: 2 }),
      )
      .map(([r, key, value]) => ({
        text: objectText([...toEntries(r), [key, json(value)]]),
        expect: { valid: false } as const,
      })),
  );

const member = (inBatch: boolean): fc.Arbitrary<Member> =>
  fc.oneof({ weight: 3, arbitrary: validMember }, { weight: 2, arbitrary: invalidMember(inBatch) });

const batchOf = (members: ReadonlyArray<Member>): string => `[${members.map((m) => m.text).join(",")}]`;

/** What a request body should be answered with, response by response. */
interface Expected {
  readonly id: unknown;
  readonly outcome: Outcome;
  /** The echo method's result, when known. */
  readonly result?: unknown;
}

const expectedOf = (m: Member, mode: Mode): Expected | undefined => {
  if (m.expect === undefined) return undefined;
  if (!m.expect.valid) return { id: null, outcome: -32600 };
  const { id, method, params } = m.expect;
  const outcome = expectedOutcome(method, params, mode);
  return method === "echo" ? { id, outcome, result: argsOf(params) } : { id, outcome };
};

/** Throws, showing both sides, unless `got` deeply equals `wanted` (Node's strict deep equality). */
const same = (what: string, got: unknown, wanted: unknown): void => {
  if (!isDeepStrictEqual(got, wanted)) {
    throw new globalThis.Error(`${what}: got ${inspect(got, { depth: 6 })}, expected ${inspect(wanted, { depth: 6 })}`);
  }
};

/**
 * Checks an answer against the expected responses, in order. Plain comparisons rather than
 * `expect`: this runs up to 200,000 times per property run, and the failure message says enough.
 */
const check = (answer: Answer, expected: ReadonlyArray<Expected> | Expected | undefined): void => {
  const kind =
    expected === undefined
      ? "nothing"
      : !Array.isArray(expected)
        ? "single"
        : expected.length === 0
          ? "nothing"
          : "batch";
  same("the kind of answer", answer.kind, kind);
  if (kind === "nothing") return;
  const wanted = Array.isArray(expected) ? (expected as ReadonlyArray<Expected>) : [expected as Expected];
  const got: WireResponse[] = responsesOf(answer);
  same(
    "the responses' ids and outcomes, in order",
    got.map((r) => [r.id, outcomeOf(r)]),
    wanted.map((e) => [e.id, e.outcome]),
  );
  wanted.forEach((e, i) => {
    if (e.result !== undefined && e.outcome === "success") {
      same(`the result of response ${i}`, (got[i] as { result?: unknown }).result, e.result);
    }
  });
};

// ---------------------------------------------------------------------------------------------
// Request bodies of every kind
// ---------------------------------------------------------------------------------------------

/** Damages a text: cuts it, drops one character or inserts one. */
const damaged = (text: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc
    .tuple(text, fc.nat(), fc.constantFrom("cut", "drop", "insert"), fc.string({ minLength: 1, maxLength: 1 }))
    .map(([s, n, how, c]) => {
      const at = s.length === 0 ? 0 : n % s.length;
      return how === "cut"
        ? s.slice(0, at)
        : how === "drop"
          ? s.slice(0, at) + s.slice(at + 1)
          : s.slice(0, at) + c + s.slice(at);
    });

const singleText = member(false).map((m) => m.text);
const batchText = fc.array(member(true), { maxLength: 8 }).map(batchOf);

/** Request text: arbitrary strings (lone surrogates included), JSON, requests, batches, damaged ones. */
const anyText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.string(),
  fc.json(),
  singleText,
  batchText,
  damaged(fc.oneof(singleText, batchText)),
  fc.constantFrom("", " ", "[]", "[[]]", "{}", "null", "1", '"text"', "\ufeff{}", "[" + "[".repeat(50)),
);

/** Request bytes: arbitrary ones, UTF-8 of any text, damaged UTF-8, and views into a larger buffer. */
const anyBytes: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 64 }),
  anyText.map((s) => Buffer.from(s, "utf8")),
  fc.tuple(fc.oneof(singleText, batchText), fc.nat(), fc.integer({ min: 0, max: 255 })).map(([s, n, byte]) => {
    const bytes = Buffer.from(s, "utf8");
    if (bytes.length > 0) bytes[n % bytes.length] = byte;
    return bytes;
  }),
  fc.tuple(fc.oneof(singleText, batchText), fc.nat({ max: 7 })).map(([s, pad]) => {
    const inner = Buffer.from(s, "utf8");
    const outer = new Uint8Array(inner.length + 2 * pad).fill(0x7b);
    outer.set(inner, pad);
    return new Uint8Array(outer.buffer, pad, inner.length);
  }),
);

const anyBody: fc.Arbitrary<string | Uint8Array> = fc.oneof(anyText, anyBytes);

// ---------------------------------------------------------------------------------------------
// The properties
// ---------------------------------------------------------------------------------------------

/** Dispatch options: `debug` either way, a batch limit or none, a context or none. */
const anyOptions: fc.Arbitrary<ResponseOptions> = fc.record(
  {
    debug: fc.boolean(),
    maxBatchSize: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
    context: fc.oneof(fc.constant(undefined), fc.jsonValue({ maxDepth: 1 })),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<ResponseOptions>;

/** Throws unless `text` is "" or JSON text. */
const assertJsonOrNothing = (text: unknown): void => {
  if (typeof text !== "string") throw new globalThis.Error(`expected text, got a ${typeof text}`);
  if (text !== "") JSON.parse(text);
};

describe("properties", () => {
  test(
    "1. for any string or bytes, no dispatch function throws or rejects, and the JSON ones answer '' or JSON",
    async () => {
      await holds(
        fc.asyncProperty(anyBody, anyOptions, async (body, o) => {
          assertJsonOrNothing(dispatch(body, methods, o));
          assertJsonOrNothing(await asyncDispatch(body, methods, o));
          dispatchToSerializable(body, methods, o);
          dispatchToResponse(body, methods, o);
          await asyncDispatchToSerializable(body, methods, o);
          await asyncDispatchToResponse(body, methods, o);
        }),
      );
    },
    TIMEOUT,
  );

  test(
    "2. every response of every output form is a valid JSON-RPC 2.0 response",
    async () => {
      await holds(
        fc.asyncProperty(anyBody, anyOptions, async (body, o) => {
          // A serializer of the caller's own sees the response objects that toDict builds.
          const viaDict: JsonOptions = { ...o, serializer: (response) => JSON.stringify(response) };
          readText(dispatch(body, methods, o));
          readText(await asyncDispatch(body, methods, o));
          readText(dispatch(body, methods, viaDict));
          readText(await asyncDispatch(body, methods, viaDict));
          readAnswer(dispatchToSerializable(body, methods, o));
          readAnswer(await asyncDispatchToSerializable(body, methods, o));
          readAnswer(toSerializable(dispatchToResponse(body, methods, o) as Response | Response[] | undefined));
          readAnswer(
            toSerializable((await asyncDispatchToResponse(body, methods, o)) as Response | Response[] | undefined),
          );
        }),
      );
    },
    TIMEOUT,
  );

  test(
    "3. a batch gets one response per non-notification member, in order, with its id and expected outcome",
    async () => {
      const body = fc.oneof(
        { weight: 3, arbitrary: fc.array(member(true), { maxLength: 12 }).map((ms) => ({ batch: true, ms })) },
        { weight: 1, arbitrary: member(false).map((m) => ({ batch: false, ms: [m] })) },
      );
      await holds(
        fc.asyncProperty(body, async ({ batch, ms }) => {
          const text = batch ? batchOf(ms) : (ms[0] as Member).text;
          const expected = (mode: Mode): ReadonlyArray<Expected> | Expected | undefined => {
            if (!batch) return expectedOf(ms[0] as Member, mode);
            if (ms.length === 0) return { id: null, outcome: -32600 };
            return ms.map((m) => expectedOf(m, mode)).filter((e): e is Expected => e !== undefined);
          };
          check(readText(dispatch(text, methods)), expected("sync"));
          check(readText(await asyncDispatch(text, methods)), expected("async"));
        }),
      );
    },
    TIMEOUT,
  );

  test(
    "4. sync and async dispatch answer identically for plain methods, whatever the options",
    async () => {
      await holds(
        fc.asyncProperty(anyBody, anyOptions, async (body, o) => {
          same(
            "asyncDispatch vs dispatch",
            await asyncDispatch(body, plainMethods, o),
            dispatch(body, plainMethods, o),
          );
          // Node's deep equality rather than jest's: a "constructor" member (params echoed back)
          // confuses jest's type check, not Node's, which compares prototypes.
          same(
            "asyncDispatchToSerializable vs dispatchToSerializable",
            await asyncDispatchToSerializable(body, plainMethods, o),
            dispatchToSerializable(body, plainMethods, o),
          );
          same(
            "asyncDispatchToResponse vs dispatchToResponse",
            await asyncDispatchToResponse(body, plainMethods, o),
            dispatchToResponse(body, plainMethods, o),
          );
        }),
      );
    },
    TIMEOUT,
  );

  describe("5. with debug false, nothing thrown reaches the output", () => {
    /** Methods that each throw, or make something else throw, an error whose message is `marker`. */
    const leaky = (marker: string): { [name: string]: Method } => {
      const secret = (): globalThis.Error => new globalThis.Error(marker);
      const throwing = new t.Type<number, number, unknown>(
        "Throwing",
        (u): u is number => typeof u === "number",
        () => {
          throw secret();
        },
        t.identity,
      );
      return {
        throws: () => {
          throw secret();
        },
        throwsTypeError: () => {
          throw new TypeError(marker);
        },
        throwsString: () => {
          throw marker;
        },
        throwsObject: () => {
          throw { message: marker, stack: marker };
        },
        async: async () => {
          throw secret();
        },
        rejects: () => Promise.reject(secret()),
        thenThrows: (() => ({
          then: () => {
            throw secret();
          },
        })) as unknown as Method,
        badResult: (() => ({
          _tag: "Right",
          get right(): never {
            throw secret();
          },
        })) as unknown as Method,
        badToJSON: () =>
          Success({
            toJSON: () => {
              throw secret();
            },
          }),
        codec: withParams(throwing, () => Success(1)),
        ok: () => Success("fine"),
      };
    };
    const leakyNames = Object.keys(leaky("x"));
    const marker = fc
      .string({ minLength: 10, maxLength: 20, unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789") })
      .map((s) => `SECRET_${s}`);
    const calls = fc.array(
      fc.record({
        method: fc.constantFrom(...leakyNames),
        params: fc.option(paramsText, { nil: undefined }),
        id: fc.option(idText, { nil: undefined }),
      }),
      { minLength: 1, maxLength: 8 },
    );
    const asBody = ([single, list]: [boolean, Req[]]): string =>
      single ? objectText(toEntries(list[0] as Req)) : `[${list.map((r) => objectText(toEntries(r))).join(",")}]`;
    /** The stack frames of an Error thrown here name this file. */
    const FILE = "properties.test";
    const leaks = (text: string, secret: string): boolean =>
      text.includes(secret) || text.includes(FILE) || /\n\s+at /.test(text);

    /** One output form, as text to search; `serializer` and `postProcess` throw for id 0. */
    type Form = (
      body: string,
      ms: { [name: string]: Method },
      debugOff: { debug?: false },
      serializer: (response: unknown) => string,
      postProcess: (response: Response) => Response,
    ) => string | Promise<string>;
    const FORMS: { readonly [name: string]: Form } = {
      dispatch: (body, ms, off) => dispatch(body, ms, off),
      asyncDispatch: (body, ms, off) => asyncDispatch(body, ms, off),
      "dispatch, serializer": (body, ms, off, serializer) => dispatch(body, ms, { ...off, serializer }),
      "asyncDispatch, serializer": (body, ms, off, serializer) => asyncDispatch(body, ms, { ...off, serializer }),
      dispatchToSerializable: (body, ms, off) => textsIn(dispatchToSerializable(body, ms, off)),
      asyncDispatchToSerializable: async (body, ms, off) => textsIn(await asyncDispatchToSerializable(body, ms, off)),
      "dispatchToResponse, postProcess": (body, ms, off, _s, postProcess) =>
        textsIn(dispatchToResponse(body, ms, { ...off, postProcess })),
      "asyncDispatchToResponse, postProcess": async (body, ms, off, _s, postProcess) =>
        textsIn(await asyncDispatchToResponse(body, ms, { ...off, postProcess })),
    };

    test(
      "methods, codecs, toJSON, serializers and postProcess throwing marked errors",
      async () => {
        await holds(
          fc.asyncProperty(
            marker,
            fc.tuple(fc.boolean(), calls).map(asBody),
            fc.constantFrom<{ debug?: false }>({}, { debug: false }),
            // Each run searches two or three of the output forms, so every form gets a share of the runs.
            fc.subarray(Object.keys(FORMS), { minLength: 2, maxLength: 3 }),
            async (secret, body, debugOff, forms) => {
              fc.pre(!leaks(body, secret));
              const ms = leaky(secret);
              const serializer = (response: unknown): string => {
                if ((response as { id?: unknown }).id === 0) throw new globalThis.Error(secret);
                return JSON.stringify(response);
              };
              const postProcess = (response: Response): Response => {
                if (E.isRight(response) && response.right.id === 0) throw new RangeError(secret);
                return response;
              };
              for (const form of forms) {
                const output = await (FORMS[form] as Form)(body, ms, debugOff, serializer, postProcess);
                if (leaks(output, secret)) throw new globalThis.Error(`${form} leaked ${secret}: ${output}`);
              }
            },
          ),
        );
      },
      TIMEOUT,
    );

    test("control: the same check sees the marker when debug is true", async () => {
      const secret = "SECRET_control0123";
      const body = '[{"jsonrpc":"2.0","method":"throws","id":1},{"jsonrpc":"2.0","method":"badToJSON","id":2}]';
      expect(leaks(dispatch(body, leaky(secret)), secret)).toBe(false);
      const output = dispatch(body, leaky(secret), { debug: true });
      expect(leaks(output, secret)).toBe(true);
      expect(output).toBe(
        `[{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"${secret}"},"id":1},` +
          `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"${secret}"},"id":2}]`,
      );
      expect(await asyncDispatch('{"jsonrpc":"2.0","method":"rejects","id":1}', leaky(secret), { debug: true })).toBe(
        `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"${secret}"},"id":1}`,
      );
    });
  });

  test("the model itself: a hand-written batch gets the answers the property expects", async () => {
    // Guards the generators and `check` against agreeing with anything: a known batch, known answers.
    const text =
      '[{"jsonrpc":"2.0","method":"echo","params":[1],"id":"a"},{"jsonrpc":"2.0","method":"throws"},' +
      '{"jsonrpc":"1.0","method":"echo","id":2},{"jsonrpc":"2.0","method":"toString","id":3},' +
      '{"jsonrpc":"2.0","method":"async","id":4},{"jsonrpc":"2.0","method":"fakeLeft","id":5}]';
    const expected = (mode: Mode): Expected[] => [
      { id: "a", outcome: "success", result: [1] },
      { id: null, outcome: -32600 },
      { id: 3, outcome: -32601 },
      { id: 4, outcome: mode === "async" ? "success" : -32603 },
      { id: 5, outcome: -32603 },
    ];
    check(readText(dispatch(text, methods)), expected("sync"));
    check(readText(await asyncDispatch(text, methods)), expected("async"));
    expect(() => check(readText(dispatch(text, methods)), expected("async"))).toThrow();
    expect(() => readText('{"jsonrpc":"2.0","error":{},"id":1}')).toThrow(/not a JSON-RPC 2.0 response/);
    expect(() => readText('{"jsonrpc":"2.0","id":1}')).toThrow(/not a JSON-RPC 2.0 response/);
    expect(() => readText('{"jsonrpc":"2.0","result":1,"error":null,"id":1}')).toThrow(/not a JSON-RPC/);
    expect(() => readText('{"jsonrpc":"2.0","error":{"code":1.5,"message":"x"},"id":1}')).toThrow(/not a JSON/);
    expect(() => readText("[]")).toThrow(/empty/);
  });
});

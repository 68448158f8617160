/**
 * Type tests of issue 24's client side: a contract entry with `stream` (and a table's
 * `async function*`) makes an `RpcStream`, whose values are typed by the stream codec; `open`,
 * `foldStream`, `withOptions`, `batch` and `notify` keep the types. jest (transpile only) does not
 * check types: `tsc -p tsconfig.json --noEmit` does, and fails if an assignment below does not
 * compile or a `// @ts-expect-error` line has no error. The checks live in `typeOnly` bodies
 * (compiled, never run); one test runs what they type, cheaply (the runtime suite is
 * tests/streams-client.test.ts).
 */
import * as E from "fp-ts/Either";
import { pipe } from "fp-ts/function";
import * as TE from "fp-ts/TaskEither";
import * as t from "io-ts";
import { DateFromISOString } from "io-ts-types";
import { z } from "zod";
import { contract, implement, Success } from "../src";
import {
  batch,
  client,
  foldStream,
  local,
  notify,
  open,
  withOptions,
  type CallError,
  type ClientError,
  type DeclaredError,
  type RpcCall,
  type RpcNotification,
  type RpcStream,
  type StreamRun,
} from "../src/client";

/** `true` exactly when A and B are the same type. */
type Equals<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equals<A, B>): Equals<A, B> => proof;
/** Compiles `body` (so its `@ts-expect-error` lines are checked) without running it. */
const typeOnly = (body: () => void): void => void body;

const api = contract({
  count: { params: t.tuple([t.number]), stream: t.number, result: t.string },
  days: { stream: DateFromISOString, result: t.number },
  words: { stream: z.string().min(1), result: z.number() },
  failing: { stream: t.number, result: t.string, errors: [{ code: 404, message: "Not found", data: t.number }] },
  add: { params: t.tuple([t.number, t.number]), result: t.number },
});
const methods = implement(api, {
  count: async function* (to) {
    for (let i = 1; i <= to; i++) yield i;
    return E.right(`counted to ${to}`);
  },
  days: async function* () {
    yield new Date(0);
    return E.right(1);
  },
  words: async function* () {
    yield "one";
    return E.right(1);
  },
  failing: async function* () {
    yield 1;
    return E.left({ code: 404, message: "Not found", data: 1 });
  },
  add: (a, b) => E.right(a + b),
});
const calls = client(api, local(methods));

const table = {
  ticks: async function* (n: number) {
    for (let i = 0; i < n; i++) yield { at: new Date(i), i };
    return Success("ticked");
  },
  add: (a: number, b: number) => Success(a + b),
};
const plain = client<typeof table>(local(table));

test("types: what a stream's values, fold and result are", () => {
  typeOnly(() => {
    // An entry with `stream` makes an RpcStream of the stream codec's decoded type.
    same<Equals<ReturnType<typeof calls.count>, RpcStream<number, string>>, true>(true);
    same<Equals<ReturnType<typeof calls.days>, RpcStream<Date, number>>, true>(true);
    // A Standard Schema stream: its output type.
    same<Equals<ReturnType<typeof calls.words>, RpcStream<string, number>>, true>(true);
    // Declared errors type the Left, as for any call.
    same<
      Equals<ReturnType<typeof calls.failing>, RpcStream<number, string, CallError<DeclaredError<404, number>>>>,
      true
    >(true);
    // An entry without `stream` is unchanged: an RpcCall, not iterable.
    same<Equals<ReturnType<typeof calls.add>, RpcCall<number>>, true>(true);
    // @ts-expect-error open() of a call that does not stream
    open(calls.add(1, 2));
    // @ts-expect-error a plain call is not an AsyncIterable
    const iterable: AsyncIterable<number> = calls.add(1, 2);
    void iterable;

    void (async () => {
      for await (const n of calls.count(3)) {
        const ok: number = n;
        // @ts-expect-error a value of the wrong type: the entry streams numbers
        const wrong: string = n;
        void [ok, wrong];
      }
      for await (const day of calls.days()) day.getTime();
    });

    const run = open(calls.count(3));
    same<Equals<typeof run, StreamRun<number, string, ClientError>>, true>(true);
    void (async () => {
      const step = await run.next();
      if (step.done === true) same<Equals<typeof step.value, E.Either<ClientError, string>>, true>(true);
      else same<Equals<typeof step.value, number>, true>(true);
      const ended: E.Either<ClientError, string> = (await run.return()).value;
      const result: E.Either<ClientError, string> = await run.result;
      void [ended, result];
    });

    // foldStream: a TaskEither of the fold and the result.
    const _summed = pipe(
      calls.count(3),
      foldStream(0, (sum, n: number) => sum + n),
    );
    same<Equals<typeof _summed, TE.TaskEither<ClientError, readonly [number, string]>>, true>(true);
    // @ts-expect-error folding with the wrong accumulator: the initial value is a number, `f` folds strings
    foldStream(0, (text: string, n: number) => text + String(n));
    const joinWords = foldStream("", (text, word: string) => text + word);
    // @ts-expect-error folding values of another type: the stream's values are numbers, `f` takes strings
    joinWords(calls.count(3));
    joinWords(calls.words());
    const sumNumbers = foldStream(0, (sum, n: number) => sum + n);
    // @ts-expect-error foldStream of a call that does not stream
    sumNumbers(calls.add(1, 2));

    // withOptions keeps a stream a stream; batch and notify send it as the plain call it also is.
    const timed: RpcStream<number, string> = pipe(calls.count(3), withOptions({ timeoutMs: 100 }));
    void (async () => {
      const [_counted, _sum] = await batch([timed, calls.add(1, 2)])();
      same<Equals<typeof _counted, E.Either<ClientError, string>>, true>(true);
      same<Equals<typeof _sum, E.Either<ClientError, number>>, true>(true);
    });
    const told: RpcNotification = notify(calls.count(3));
    void told;

    // A table's client: an async function* streams the JSON form of what it yields.
    same<Equals<ReturnType<typeof plain.ticks>, RpcStream<{ at: string; i: number }, string>>, true>(true);
    same<Equals<ReturnType<typeof plain.add>, RpcCall<number>>, true>(true);
    // @ts-expect-error a table's plain method does not stream
    open(plain.add(1, 2));
  });
  expect(true).toBe(true);
});

test("what the types say runs: the values, the fold, the batch", async () => {
  const values: number[] = [];
  for await (const n of calls.count(2)) values.push(n);
  expect(values).toEqual([1, 2]);
  expect(
    await pipe(
      calls.count(3),
      foldStream(0, (sum, n: number) => sum + n),
    )(),
  ).toEqual(E.right([6, "counted to 3"]));
  expect(await batch([calls.count(1), calls.add(1, 2)])()).toEqual([E.right("counted to 1"), E.right(3)]);
  const ticks: Array<{ at: string; i: number }> = [];
  for await (const tick of plain.ticks(1)) ticks.push(tick);
  expect(ticks).toEqual([{ at: "1970-01-01T00:00:00.000Z", i: 0 }]);
});

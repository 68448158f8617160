/**
 * A streaming method shares the event loop (issue 32, item 1): a generator that never waits on I/O
 * (values already in memory) resumes in microtasks alone, and before the drain gave the event loop
 * a turn, nothing else in the process ran while it did: no other request was answered, and no
 * disconnect, cancel or time-out was seen, so an endless one never stopped. On every wire, on real
 * sockets (and through `local`): a second client is answered before the method has yielded
 * `BOUND` more values (a count, never a clock), and then a disconnect, a cancel or a `timeout`
 * stage stops it, its `finally` run, long before the `LIMIT` at which the probe ends by itself
 * (which only a loop that never turns reaches: without the mend, these fail there instead of
 * hanging the test process).
 *
 * Then a property over generators that never wait, wait sometimes, throw, read or ignore their
 * signal, over every wire and stop. A fixed seed and a few runs in `npm test`; `PROPS_SEED` (a
 * number, or `random`) and `PROPS_RUNS` for more:
 * `PROPS_SEED=random PROPS_RUNS=200 npx jest tests/streams-fairness.test.ts`.
 */
import fc from "fast-check";
import {
  BOUND,
  THROW_WITHIN,
  closeNats,
  connectionWire,
  fairCase,
  httpWire,
  LIMIT,
  localWire,
  localPlainWire,
  natsWire,
  NEVER_WAITS,
  TIMEOUT_MS,
  type Behaviour,
  type Stop,
  type Wire,
} from "./helpers/fairness";
import { recordLogs } from "./support";

jest.setTimeout(60_000);

const RUNS = Number(process.env["PROPS_RUNS"] ?? "") || 24;
const SEED =
  process.env["PROPS_SEED"] === "random"
    ? Math.floor(Math.random() * 2 ** 31)
    : Number(process.env["PROPS_SEED"] ?? "") || 20261129;

/** Every wire, twice: stopped by its client (`stops`), and stopped by a `timeout` stage. */
const makers: ReadonlyArray<readonly [string, (timeoutMs?: number) => Promise<Wire> | Wire]> = [
  ["HTTP JSON", (ms) => httpWire(false, ms)],
  ["HTTP event stream", (ms) => httpWire(true, ms)],
  ["connection lsp, values sent", (ms) => connectionWire("lsp", true, ms)],
  ["connection lsp, no token", (ms) => connectionWire("lsp", false, ms)],
  ["connection mcp, values sent", (ms) => connectionWire("mcp", true, ms)],
  ["connection mcp, no token", (ms) => connectionWire("mcp", false, ms)],
  ["NATS plain", (ms) => natsWire(false, ms ?? TIMEOUT_MS)],
  ["NATS streamed", (ms) => natsWire(true, ms ?? TIMEOUT_MS)],
  ["local", (ms) => localWire(ms)],
  ["local, plain call", (ms) => localPlainWire(ms)],
];

const wires = new Map<string, { readonly stopped: Wire; readonly timed: Wire }>();
let logs: ReturnType<typeof recordLogs>;

beforeAll(async () => {
  logs = recordLogs();
  for (const [name, make] of makers) wires.set(name, { stopped: await make(), timed: await make(TIMEOUT_MS) });
});

afterAll(async () => {
  for (const { stopped, timed } of wires.values()) await Promise.all([stopped.close(), timed.close()]);
  await closeNats();
  logs.restore();
});

const wire = (name: string): { readonly stopped: Wire; readonly timed: Wire } => wires.get(name)!;

describe.each(makers.map(([name]) => name))("%s: a generator that never waits shares the event loop", (name) => {
  const stops = (): readonly Stop[] => wire(name).stopped.stops;

  test("a second client is answered while it runs, and a time-out stops it (its finally runs)", async () => {
    const { probe, pingedWithin, answer } = await fairCase(wire(name).timed, NEVER_WAITS, undefined);
    expect(pingedWithin).toBeLessThan(BOUND);
    expect(probe.finallyRan).toBe(true);
    expect(probe.count).toBeLessThan(LIMIT);
    expect(answer).not.toContain("exhausted");
  });

  test("its client's disconnect or cancel stops it at its next yield (its finally runs)", async () => {
    for (const stop of stops()) {
      const { probe, pingedWithin } = await fairCase(wire(name).stopped, NEVER_WAITS, stop);
      expect([stop, pingedWithin < BOUND]).toEqual([stop, true]);
      expect([stop, probe.finallyRan, probe.count < LIMIT]).toEqual([stop, true, true]);
    }
  });
});

describe("a property: any generator, any wire, any stop", () => {
  const behaviour: fc.Arbitrary<Behaviour> = fc.record({
    wait: fc.constantFrom("never" as const, "sometimes" as const),
    throwAt: fc.option(fc.integer({ min: 0, max: THROW_WITHIN }), { nil: undefined }),
    readsSignal: fc.boolean(),
  });
  const plan = fc.record({
    wire: fc.constantFrom(...makers.map(([name]) => name)),
    behaviour,
    stop: fc.constantFrom("disconnect" as const, "cancel" as const, "timeout" as const),
  });

  test("the second client is answered within the bound, and the generator ends (finally run) long before its limit", async () => {
    await fc.assert(
      fc.asyncProperty(plan, async ({ wire: name, behaviour, stop }) => {
        const { stopped, timed } = wire(name);
        // A stop the wire does not have is its time-out.
        const by = stop !== "timeout" && stopped.stops.includes(stop) ? stop : undefined;
        const { probe, pingedWithin } = await fairCase(by === undefined ? timed : stopped, behaviour, by);
        expect(pingedWithin).toBeLessThan(BOUND);
        expect(probe.finallyRan).toBe(true);
        expect(probe.count).toBeLessThan(LIMIT);
        if (behaviour.throwAt !== undefined && probe.threw) expect(probe.count).toBe(behaviour.throwAt);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

/**
 * Call-backs both ways, nested six deep (A's method calls B's, which calls A's, ...), 24 started
 * at once from each side, on a real TCP socket with maxInFlight 2: every call is answered. Each
 * call of a side awaiting its answer lends a slot (flow-control's `fits`); with that loan capped at
 * maxInFlight, each side's 4 slots were held by methods whose call-backs waited behind fresh
 * requests on the other side, and nothing was ever answered.
 *
 * REPRO (not mended): lending a slot for every call awaited (no cap) passes this, but then every
 * queued request starts, up to maxOutgoing, and tests/connection-vscode-load.test.ts (10,000
 * requests whose methods call back) gets -32000 overloaded answers. docs/connections.md states the
 * limit. Run: npx jest --roots='<rootDir>/repro' --testPathPattern repro/nested-callbacks
 */
import * as E from "fp-ts/Either";
import { Success } from "../src";
import { connect, type Connection } from "../src/connection";
import { bounded, tcpPair } from "../tests/helpers/real-channels";

describe.each(["newline", "contentLength"] as const)("%s", (framing) => {
  test("call-backs both ways, 6 deep, 24 at once from each side, maxInFlight 2, a small waiting room: every call answered", async () => {
    const real = await tcpPair(framing);
    const peers: Connection[] = [];
    const signal = new AbortController().signal;
    let nextId = 1;
    const methodsOf = (other: () => Connection) => ({
      down: async (depth: number, pad: string) => {
        if (depth === 0) return Success(0);
        const answer = await other().transport(
          JSON.stringify({ jsonrpc: "2.0", method: "down", params: [depth - 1, pad], id: `n${nextId++}` }),
          { signal },
        )();
        if (E.isLeft(answer)) return Success(-1000);
        const json = (typeof answer.right === "string" ? JSON.parse(answer.right) : answer.right.json) as {
          result: number;
        };
        return Success(json.result + 1);
      },
    });
    try {
      peers.push(
        connect(real.channels[0], { methods: methodsOf(() => peers[1]!), maxInFlight: 2, maxWaitingLength: 200_000 }),
      );
      peers.push(
        connect(real.channels[1], { methods: methodsOf(() => peers[0]!), maxInFlight: 2, maxWaitingLength: 200_000 }),
      );
      const pad = "q".repeat(3000);
      const calls = [0, 1].flatMap((side) =>
        Array.from({ length: 24 }, () =>
          peers[side]!.transport(
            JSON.stringify({ jsonrpc: "2.0", method: "down", params: [6, pad], id: `t${nextId++}` }),
            { signal },
          )(),
        ),
      );
      const answers = await bounded(Promise.all(calls), "every call answered", 30_000);
      for (const answer of answers) {
        expect(
          E.isRight(answer) && (typeof answer.right === "string" ? JSON.parse(answer.right) : answer.right.json),
        ).toMatchObject({ result: 6 });
      }
    } finally {
      for (const peer of peers) peer.close();
      await real.dispose();
    }
  });
});

/**
 * The real connection fits: a connection of `@nats-io/transport-node` goes where `serveNats` and
 * `natsTransport` (the BUILT package's declarations, ESM and CommonJS) ask for one, type-checked as
 * a user's project with `tsc`. The NATS packages' own declarations need `skipLibCheck` under
 * `exactOptionalPropertyTypes`, and this repository's tsconfig has neither, so the files are
 * written here to a project of their own under .tmp/ (inside the package, so that `rpcserver`
 * resolves by name and `@nats-io/*` from node_modules). Each `@ts-expect-error` must be needed:
 * one that is not fails the compile (TS2578). What tsc reports does not depend on the Node that runs
 * it: the runtime matrix runs this file once, on the npm Node only (scripts/test-runtimes.mjs, ONCE).
 */
import { execFile } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { bounded, requireBuild, ROOT } from "./helpers/processes";

const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const DIR = join(ROOT, ".tmp", `nats-types-${process.pid}`);

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    lib: ["ES2022"],
    module: "NodeNext",
    moduleResolution: "NodeNext",
    types: ["node"],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    noEmit: true,
  },
  files: ["esm.mts", "cjs.cts"],
};

/** ES modules: a service and a client on the connection `connect` resolves to, and what must not compile. */
const ESM = `import { connect } from "@nats-io/transport-node";
import * as t from "io-ts";
import { contract, Success, withContext } from "rpcserver";
import { client } from "rpcserver/client";
import { natsTransport, serveNats, type NatsService } from "rpcserver/nats";

const nc = await connect({ servers: "nats://127.0.0.1:4222" });
const identity = { name: "calc", version: "1.0.0", subject: "rpc.calc" };
const service: NatsService = await serveNats(nc, { add: (a: number, b: number) => Success(a + b) }, identity);
export const taken: number = service.figures().messages;
const { withCodecs } = withContext<{ token: string }>();
const whoami = withCodecs({ result: t.string }, (caller) => Success(caller.token));
await serveNats(nc, { whoami }, { ...identity, context: (message) => ({ token: message.headers?.get("Authorization") ?? "" }) });
// @ts-expect-error: the methods need a context, and no context function makes one
await serveNats(nc, { whoami }, identity);
// @ts-expect-error: a server's URL is no connection
await serveNats("nats://127.0.0.1:4222", {}, identity);
const api = contract({ add: { params: t.tuple([t.number, t.number]), result: t.number } });
const transport = natsTransport(nc, "rpc.calc", { timeoutMs: 1_000, headers: { Authorization: "Bearer x" } });
export const sum = await client(api, transport).add(1, 2)();
// @ts-expect-error: connection options are no connection
natsTransport({ servers: "nats://127.0.0.1:4222" }, "rpc.calc");
// Options from values that may be undefined: each is its default.
const unset: number | undefined = undefined;
natsTransport(nc, "rpc.calc", { timeoutMs: unset, headers: undefined, maxAnswerBytes: unset, inboxPrefix: undefined }).close();
// @ts-expect-error: a header's value is a string
natsTransport(nc, "rpc.calc", { headers: { n: 1 } });
transport.close();
await service.stop();
await nc.drain();
`;

/** CommonJS: the .d.cts declarations take the same connection. */
const CJS = `import { connect } from "@nats-io/transport-node";
import { Success } from "rpcserver";
import { natsTransport, serveNats } from "rpcserver/nats";

export const start = async (): Promise<void> => {
  const nc = await connect({ servers: "nats://127.0.0.1:4222" });
  await serveNats(nc, { add: (a: number, b: number) => Success(a + b) }, { name: "calc", version: "1.0.0", subject: "rpc.calc" });
  natsTransport(nc, "rpc.calc").close();
  // @ts-expect-error: a subject is no connection
  natsTransport("rpc.calc", "rpc.calc");
};
`;

interface Compiled {
  readonly code: number;
  readonly output: string;
}

/** Runs tsc on the project in DIR, listing the files it read. */
const compile = (): Promise<Compiled> =>
  bounded(
    new Promise<Compiled>((resolve) => {
      execFile(process.execPath, [TSC, "-p", DIR, "--listFiles"], { cwd: DIR, encoding: "utf8" }, (error, stdout) =>
        resolve({ code: error === null ? 0 : Number(error.code), output: stdout }),
      );
    }),
    "tsc to type-check the NATS project",
    50_000,
  );

let compiled: Compiled;

beforeAll(async () => {
  requireBuild();
  mkdirSync(DIR, { recursive: true });
  writeFileSync(join(DIR, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
  writeFileSync(join(DIR, "esm.mts"), ESM);
  writeFileSync(join(DIR, "cjs.cts"), CJS);
  compiled = await compile();
}, 60_000);

afterAll(() => rmSync(DIR, { recursive: true, force: true }));

test("a connection of @nats-io/transport-node fits serveNats and natsTransport, ESM and CommonJS; each @ts-expect-error is needed", () => {
  const problems = compiled.output.split("\n").filter((line) => line.includes("error TS"));
  expect(problems).toEqual([]);
  expect(compiled.code).toBe(0);
});

test("rpcserver/nats resolves by name to the built declarations, and the connection to the real NATS package", () => {
  const read = compiled.output.split("\n").map((file) => relative(ROOT, file.trim()));
  expect(read).toEqual(
    expect.arrayContaining([
      "dist/cjs/nats.d.cts",
      "dist/esm/nats.d.ts",
      "node_modules/@nats-io/transport-node/lib/mod.d.ts",
    ]),
  );
  expect(read.filter((file) => file.startsWith("node_modules/@nats-io/nats-core/lib/")).length).toBeGreaterThan(0);
  expect(read.filter((file) => file.startsWith("src/") || file.startsWith("types/"))).toEqual([]);
});

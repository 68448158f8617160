/**
 * rpcserver/mcp attacked as the field will, on real sockets and pipes: the server
 * (tests/fixtures/mcp-hostile-server.mjs, built from dist) in a child process, so that one that
 * starved its event loop would not starve the test's. Over Streamable HTTP (node:http, the glue of
 * examples/mcp/everything.mjs): endless and bursting progress, clients that leave or never read,
 * forged and replayed answers to the server's requests, bodies that are not what they should be.
 * Over stdio: garbage, cancellation, EOF mid-call, a client that never reads.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { request, type ClientRequest, type IncomingMessage } from "node:http";
import { join } from "node:path";
import { usingFixture } from "./helpers/processes";

const ROOT = join(__dirname, "..");
const SERVER = "tests/fixtures/mcp-hostile-server.mjs";
const BOTH = "application/json, text/event-stream";

type Message = {
  readonly id?: unknown;
  readonly method?: string;
  readonly params?: { readonly progressToken?: unknown; readonly progress?: number };
  readonly result?: { readonly content: ReadonlyArray<{ readonly text: string }> };
  readonly error?: { readonly code: number };
};

const call = (id: number | string, method: string, params?: unknown): Record<string, unknown> => ({
  jsonrpc: "2.0",
  id,
  method,
  ...(params === undefined ? {} : { params }),
});
const toolCall = (id: number, name: string, token?: string, args: unknown = {}): Record<string, unknown> =>
  call(id, "tools/call", {
    name,
    arguments: args,
    ...(token === undefined ? {} : { _meta: { progressToken: token } }),
  });

// What the server logs (the throwing tool's line) is expected: read, not shown.
const fixture = usingFixture(SERVER);

/** A POST on a socket of its own: the request, and its response once its head arrives. */
const open = (
  body: string,
  accept = BOTH,
  headers: Record<string, string> = {},
): { readonly req: ClientRequest; readonly response: Promise<IncomingMessage> } => {
  const req = request({
    host: "127.0.0.1",
    port: fixture.port(),
    path: "/mcp",
    method: "POST",
    agent: false,
    headers: { "Content-Type": "application/json", Accept: accept, ...headers },
  });
  const response = new Promise<IncomingMessage>((settle, fail) => {
    req.once("response", settle);
    req.once("error", fail);
  });
  req.end(body);
  // A test that leaves before the head arrives awaits nothing of it.
  response.catch(() => undefined);
  return { req, response };
};

const textOf = async (res: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

const post = async (
  body: unknown,
  accept = "application/json",
  headers: Record<string, string> = {},
): Promise<{ readonly status: number; readonly text: string }> => {
  const res = await open(typeof body === "string" ? body : JSON.stringify(body), accept, headers).response;
  return { status: res.statusCode ?? 0, text: await textOf(res) };
};

const answerOf = async (body: unknown): Promise<Message> => JSON.parse((await post(body)).text) as Message;

/** The messages of an event stream, as they come. */
async function* events(res: IncomingMessage): AsyncGenerator<Message> {
  let rest = "";
  for await (const chunk of res) {
    const parts = (rest + (chunk as Buffer).toString("utf8")).split("\n\n");
    rest = parts.pop() ?? "";
    for (const part of parts) {
      const data = part
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trim())
        .join("\n");
      if (data !== "") yield JSON.parse(data) as Message;
    }
  }
}

const stats = async (): Promise<{
  yielded: number;
  stopped: number;
  hanging: number;
  aborted: number;
  asked: unknown[];
}> => {
  const answered = await answerOf(toolCall(900, "stats"));
  return JSON.parse(answered.result?.content[0]?.text ?? "") as Awaited<ReturnType<typeof stats>>;
};

/** Asks `stats` until `done` holds of them (the test's time-out, if it never does). */
const statsUntil = async (done: (seen: Awaited<ReturnType<typeof stats>>) => boolean) => {
  for (;;) {
    const seen = await stats();
    if (done(seen)) return seen;
    await new Promise((settle) => setImmediate(settle));
  }
};

describe("Streamable HTTP, on node:http", () => {
  test("an endless tool's progress leaves the event loop to others, and a client that leaves stops it", async () => {
    const before = await stats();
    const { req, response } = open(JSON.stringify(toolCall(1, "endless", "e")));
    const stream = events(await response);
    expect((await stream.next()).value).toEqual({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "e", progress: 1 },
    });
    expect(await answerOf(call(2, "ping"))).toEqual({ jsonrpc: "2.0", result: {}, id: 2 });
    req.destroy();
    await statsUntil((seen) => seen.stopped === before.stopped + 1);
  });

  test("a client that never reads: the tool waits for it, what it yielded bounded by the sockets' buffers", async () => {
    const before = await stats();
    const { req, response } = open(JSON.stringify(toolCall(1, "endless", "slow")));
    (await response).pause();
    // Linux grows a connection's buffers while it is used, so the count creeps before it stops: its
    // bound is what both ends' kernel buffers can hold at their largest, in events of the smallest
    // size (about 110 bytes each), twice over; a tool the kit did not hold passes it in a few rounds.
    const most = (file: string): number => Number(readFileSync(file, "utf8").trim().split(/\s+/)[2] ?? NaN);
    const kernel = (() => {
      try {
        return most("/proc/sys/net/ipv4/tcp_wmem") + most("/proc/sys/net/ipv4/tcp_rmem");
      } catch {
        return 16 * 1024 * 1024;
      }
    })();
    const bound = before.yielded + (2 * kernel) / 100;
    let last = -1;
    let seen = before;
    // Until the count stands still between two looks, or for at most 200 rounds of 20 calls.
    for (let round = 0; round < 200 && seen.yielded !== last && seen.yielded <= bound; round += 1) {
      last = seen.yielded;
      for (let i = 0; i < 20; i += 1) await answerOf(call(i, "ping"));
      seen = await stats();
    }
    expect(seen.yielded).toBeGreaterThan(before.yielded);
    expect(seen.yielded).toBeLessThanOrEqual(bound);
    expect(seen.stopped).toBe(before.stopped);
    req.destroy();
    await statsUntil((after) => after.stopped === before.stopped + 1);
  });

  test("a tool deaf to its signal is stopped at its next yield when its client leaves (its finally runs)", async () => {
    for (const accept of [BOTH, "application/json"]) {
      const before = await stats();
      const { req } = open(JSON.stringify(toolCall(1, "deaf", "d")), accept);
      await statsUntil((seen) => seen.yielded > before.yielded);
      req.destroy();
      await statsUntil((seen) => seen.stopped === before.stopped + 1);
    }
  });

  test("without a progress token, and to a client that takes JSON alone: others are answered too", async () => {
    const before = await stats();
    const { req } = open(JSON.stringify(toolCall(1, "endless")), "application/json");
    await statsUntil((seen) => seen.yielded > before.yielded);
    expect(await answerOf(call(2, "ping"))).toEqual({ jsonrpc: "2.0", result: {}, id: 2 });
    req.destroy();
    await statsUntil((seen) => seen.stopped === before.stopped + 1);
  });

  test("a burst of concurrent calls with progress: each its own values, in order, then its answer", async () => {
    const COUNT = 200;
    const results = await Promise.all(
      Array.from({ length: 32 }, async (_, i) => {
        const seen: Message[] = [];
        for await (const message of events(
          await open(JSON.stringify(toolCall(i, "many", `p${i}`, { count: COUNT }))).response,
        ))
          seen.push(message);
        return seen;
      }),
    );
    results.forEach((seen, i) => {
      expect(seen.slice(0, -1).map((m) => [m.params?.progressToken, m.params?.progress])).toEqual(
        Array.from({ length: COUNT }, (_, k) => [`p${i}`, k + 1]),
      );
      expect(seen.at(-1)).toEqual({
        jsonrpc: "2.0",
        result: { content: [{ type: "text", text: `counted to ${COUNT}` }] },
        id: i,
      });
    });
  });

  test("a client that leaves a call that never ends aborts its signal", async () => {
    const before = await stats();
    const { req } = open(JSON.stringify(toolCall(1, "hang")));
    await statsUntil((seen) => seen.hanging === before.hanging + 1);
    req.destroy();
    await statsUntil((seen) => seen.aborted === before.aborted + 1);
  });

  test("an answer to an elicitation is taken whatever its content holds (a field named method)", async () => {
    const { response } = open(JSON.stringify(toolCall(1, "ask")));
    const stream = events(await response);
    const asked = (await stream.next()).value as Message;
    expect(asked.method).toBe("elicitation/create");
    const answer = { action: "accept", content: { method: "card" } };
    expect((await post({ jsonrpc: "2.0", id: asked.id, result: answer })).status).toBe(202);
    expect((await stream.next()).value).toEqual({
      jsonrpc: "2.0",
      result: { content: [{ type: "text", text: JSON.stringify(answer) }] },
      id: 1,
    });
  });

  test("forged and replayed answers: a wrong id and a foreign Origin change nothing; after the call, a replay is 202 and taken by nothing", async () => {
    const { response } = open(JSON.stringify(toolCall(1, "ask")));
    const stream = events(await response);
    const asked = (await stream.next()).value as Message;
    const real = { jsonrpc: "2.0", id: asked.id, result: { action: "accept", content: { who: "real" } } };
    expect((await post({ ...real, id: `${String(asked.id)}0`, result: { action: "decline" } })).status).toBe(202);
    expect((await post({ ...real, id: 1, result: { action: "decline" } })).status).toBe(202);
    expect(
      (await post({ ...real, result: { action: "decline" } }, "application/json", { Origin: "https://evil.example" }))
        .status,
    ).toBe(403);
    expect((await post(real)).status).toBe(202);
    expect(((await stream.next()).value as Message).result?.content[0]?.text).toBe(
      JSON.stringify({ action: "accept", content: { who: "real" } }),
    );
    const asked_ = (await stats()).asked.length;
    expect((await post({ ...real, result: { action: "decline" } })).status).toBe(202);
    expect((await stats()).asked.length).toBe(asked_);
  });

  test("an elicitation the client never answers ends when the client leaves: the tool gets a Left", async () => {
    const { req, response } = open(JSON.stringify(toolCall(1, "ask")));
    const stream = events(await response);
    const asked = (await stream.next()).value as Message;
    req.destroy();
    await statsUntil((seen) => seen.asked.includes("Left: cancelled before the client answered"));
    // The answer that comes after finds nothing waiting.
    expect((await post({ jsonrpc: "2.0", id: asked.id, result: { action: "accept" } })).status).toBe(202);
  });

  test("bodies that are not what they should be", async () => {
    expect(await answerOf("{not json")).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 }, id: null });
    const big = await post(JSON.stringify(call(1, "ping", { pad: "x".repeat(2 * 1024 * 1024) })));
    expect(big.status).toBe(413);
    expect(await answerOf(call(1, "nope/nothing"))).toMatchObject({ error: { code: -32601 }, id: 1 });
    // No sessions: a call before `initialize` is answered.
    expect(await answerOf(toolCall(1, "many", undefined, { count: 1 }))).toMatchObject({ id: 1, result: {} });
    expect(
      (await post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 424242 } }, BOTH)).status,
    ).toBe(202);
    expect(await answerOf(toolCall(1, "many", undefined, { count: "x" }))).toMatchObject({
      result: { isError: true, content: [{ text: expect.stringContaining("Invalid arguments") }] },
    });
    expect(await answerOf(toolCall(1, "throws"))).toMatchObject({
      result: { isError: true, content: [{ text: "boom" }] },
    });
    expect(await answerOf(toolCall(1, "notEither"))).toMatchObject({ result: { isError: true } });
  });
});

/** The server over stdio, its messages line by line. */
const stdio = () => {
  const server = spawn(process.execPath, [SERVER, "stdio"], { cwd: ROOT });
  let stderr = "";
  server.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const waiting: Array<(message: Message) => void> = [];
  const seen: Message[] = [];
  let rest = "";
  server.stdout.on("data", (chunk: Buffer) => {
    const parts = (rest + chunk.toString("utf8")).split("\n");
    rest = parts.pop() ?? "";
    for (const part of parts) {
      const message = JSON.parse(part) as Message;
      const next = waiting.shift();
      if (next !== undefined) next(message);
      else seen.push(message);
    }
  });
  const next = (): Promise<Message> =>
    seen.length > 0 ? Promise.resolve(seen.shift() as Message) : new Promise((settle) => waiting.push(settle));
  const send = (line: string): void => void server.stdin.write(`${line}\n`);
  const exited = new Promise<string>((settle) => server.once("exit", () => settle(stderr)));
  return { server, next, send, exited };
};

describe("stdio, on a connection", () => {
  test("garbage lines are answered -32700 and the connection goes on; a cancelled call's signal aborts", async () => {
    const { server, next, send, exited } = stdio();
    send("this is not json");
    expect(await next()).toMatchObject({ error: { code: -32700 }, id: null });
    send(JSON.stringify(toolCall(1, "hang")));
    send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 999 } }));
    send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }));
    send(JSON.stringify(toolCall(2, "stats")));
    let answer = await next();
    while ((JSON.parse(answer.result?.content[0]?.text ?? "") as { aborted: number }).aborted === 0) {
      send(JSON.stringify(toolCall(2, "stats")));
      answer = await next();
    }
    server.stdin.end();
    expect(await exited).toContain("closed");
  });

  test("a tool deaf to its signal is stopped at its next yield when its call is cancelled (its finally runs), with a progress token or without", async () => {
    const { server, next, send, exited } = stdio();
    /** The tools' stats, the progress and answers of other calls read past. */
    const statsNow = async (): Promise<{ yielded: number; stopped: number }> => {
      send(JSON.stringify(toolCall(900, "stats")));
      for (;;) {
        const message = await next();
        if (message.id === 900) return JSON.parse(message.result?.content[0]?.text ?? "") as never;
      }
    };
    const until = async (done: (seen: { yielded: number; stopped: number }) => boolean): Promise<void> => {
      while (!done(await statsNow()));
    };
    for (const [id, token] of [
      [1, "d"],
      [2, undefined],
    ] as const) {
      const before = await statsNow();
      send(JSON.stringify(toolCall(id, "deaf", token)));
      await until((seen) => seen.yielded > before.yielded);
      send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } }));
      await until((seen) => seen.stopped === before.stopped + 1);
    }
    server.stdin.end();
    expect(await exited).toContain("closed");
  });

  test("EOF mid-call (one call hanging, one waiting for an elicitation's answer): the process ends", async () => {
    const { server, next, send, exited } = stdio();
    send(JSON.stringify(call(1, "ping")));
    await next();
    send(JSON.stringify(toolCall(2, "hang")));
    send(JSON.stringify(toolCall(3, "ask")));
    expect((await next()).method).toBe("elicitation/create");
    server.stdin.end();
    expect(await exited).toContain("closed");
  });

  test("a client that stops reading mid-stream: its EOF still closes the connection and ends the process", async () => {
    const { server, next, send, exited } = stdio();
    send(JSON.stringify(toolCall(1, "endless", "t")));
    expect((await next()).method).toBe("notifications/progress");
    server.stdout.pause();
    server.stdin.end();
    expect(await exited).toContain("closed");
  });
});

/**
 * The in-process side of the NATS tests (tests/nats.test.ts, tests/nats-client.test.ts): a real
 * nats-server, a connection that serves (`serveNats` of the sources) and one that calls, the
 * methods (each taking a context made from the message's headers) with their contract for
 * rpcserver's client, and ways to see every message that reached a reply subject.
 */
import * as t from "io-ts";
import { contract, JsonRpcError, Success, withContext } from "../../src";
import { serveNats, type NatsMessage, type NatsService } from "../../src/nats";
import { connect, type TestConnection } from "../fixtures/nats.cjs";
import { startNatsServer, type NatsServer } from "../fixtures/nats-server.cjs";
import { bounded } from "./processes";

/** The methods' context: the request's `Authorization` header. */
export interface Ctx {
  readonly token: string | undefined;
}

/** The context function of the services: from each message's headers. */
export const contextOf = (message: NatsMessage): Ctx => ({ token: message.headers?.get("Authorization") });

const entries = {
  add: { params: t.tuple([t.number, t.number]), result: t.number },
  whoami: { result: t.union([t.string, t.null]) },
  sleep: { params: t.tuple([t.number]), result: t.number },
  hold: { result: t.string },
  note: { params: t.tuple([t.string]) },
  count: { params: t.tuple([t.number]), stream: t.number, result: t.string },
} as const;

/** The methods' contract, for rpcserver's client. */
export const api = contract(entries);

/** What `note` was called with, in order. */
export const notes: string[] = [];

/** `hold` answers once `release()` is called; `holding()` resolves once `n` calls of it are waiting. */
export const gate = (() => {
  let open = (): void => undefined;
  let opened = new Promise<void>((resolve) => (open = resolve));
  let waiting = 0;
  let onEnter = (): void => undefined;
  return {
    wait: async (): Promise<void> => {
      waiting += 1;
      onEnter();
      await opened;
    },
    holding: (n = 1): Promise<void> =>
      bounded(
        new Promise<void>((resolve) => {
          onEnter = () => waiting >= n && resolve();
          onEnter();
        }),
        `${n} calls of hold`,
      ),
    release: (): void => {
      open();
      waiting = 0;
      opened = new Promise<void>((resolve) => (open = resolve));
    },
  };
})();

const { withCodecs } = withContext<Ctx>();

/** The methods, each taking the context first (`withContext`). */
export const methods = {
  add: withCodecs(entries.add, (_ctx, a, b) => Success(a + b)),
  whoami: withCodecs(entries.whoami, (ctx) => Success(ctx.token ?? null)),
  sleep: withCodecs(entries.sleep, async (_ctx, ms) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return Success(ms);
  }),
  hold: withCodecs(entries.hold, async () => {
    await gate.wait();
    return Success("released");
  }),
  note: withCodecs(entries.note, (_ctx, text) => {
    notes.push(text);
    return Success(null);
  }),
  count: withCodecs(entries.count, async function* (_ctx, to) {
    for (let i = 1; i <= to; i += 1) yield i;
    return Success(`counted to ${to}`);
  }),
};

/** The running parts: the server, the serving and calling connections, and the service on SUBJECT. */
export interface Setup {
  readonly server: NatsServer;
  readonly serving: TestConnection;
  readonly calling: TestConnection;
  readonly service: NatsService;
}

export const SUBJECT = "rpc.unit";

/** Starts a nats-server, connects twice, and serves `methods` as the service "unit" on SUBJECT. */
export const setUp = async (): Promise<Setup> => {
  const server = await startNatsServer();
  const [serving, calling] = await Promise.all([connect(server.url), connect(server.url)]);
  const service = await serveNats(serving, methods, {
    name: "unit",
    version: "0.1.0",
    subject: SUBJECT,
    context: contextOf,
  });
  return { server, serving, calling, service };
};

/**
 * Serves `methods` as the service "guarded" on `subject`, with a context function that throws: a
 * `JsonRpcError` (-32001 Unauthorized) without an `Authorization` header, a plain `Error` (the
 * context function broke) with an `X-Crash` header.
 */
export const serveGuarded = (setup: Setup, subject: string): Promise<NatsService> =>
  serveNats(setup.serving, methods, {
    name: "guarded",
    version: "0.1.0",
    subject,
    context: (message) => {
      if (message.headers?.get("X-Crash")) throw new Error("the context function broke");
      if (!message.headers?.get("Authorization")) throw new JsonRpcError(-32001, "Unauthorized", { need: "token" });
      return contextOf(message);
    },
  });

/** Ends what `setUp` started (each part only if it was started). */
export const tearDown = async (setup: Partial<Setup> | undefined): Promise<void> => {
  await setup?.service?.stop();
  await Promise.all([setup?.serving?.close(), setup?.calling?.close()]);
  await setup?.server?.stop();
};

/** Resolves once `done()` holds, polled every 5 ms (bounded). */
export const until = (done: () => boolean, what: string): Promise<void> =>
  bounded(
    new Promise<void>((resolve) => {
      const check = (): unknown => (done() ? resolve() : setTimeout(check, 5));
      check();
    }),
    what,
  );

/** A message as the tests compare it: its text, and its headers by name (those asked for). */
export interface Seen {
  readonly text: string;
  readonly headers: Record<string, string>;
}

const seen = (message: NatsMessage, names: readonly string[]): Seen => ({
  text: message.string(),
  headers: Object.fromEntries(
    names.flatMap((name) => (message.headers?.get(name) ? [[name, message.headers.get(name)]] : [])),
  ),
});

/**
 * Every message that reached a reply subject of its own after publishing `body` to `subject`, up
 * to and past the first one without an `Rpc-Value` header (the answer): once it has come, both
 * connections are flushed, so that anything the server sent after it has arrived too.
 */
export const exchange = async (
  setup: Setup,
  subject: string,
  body: string,
  headers?: Parameters<TestConnection["publish"]>[2],
): Promise<Seen[]> => {
  const reply = `_INBOX.test.${Math.random().toString(36).slice(2)}`;
  const messages: Seen[] = [];
  let answered = (): void => undefined;
  const answer = new Promise<void>((resolve) => (answered = resolve));
  const subscription = setup.calling.subscribe(reply, {
    callback: (_error, message) => {
      messages.push(seen(message, ["Rpc-Value", "Rpc-Value-Count", "Nats-Service-Error-Code", "Nats-Service-Error"]));
      if (!message.headers?.get("Rpc-Value")) answered();
    },
  });
  await setup.calling.flush();
  setup.calling.publish(subject, body, { ...headers, reply });
  await bounded(answer, `an answer on ${subject}`);
  await setup.serving.flush();
  await setup.calling.flush();
  subscription.unsubscribe();
  return messages;
};

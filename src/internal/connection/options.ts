/**
 * What `connect` takes and gives: its options (what to serve, how to cancel, the bounds of flow
 * control), the types that check a context against the methods served, the `Connection` it
 * returns, and the reading of the options into settings, checked once per connection.
 *
 * @module
 */
import type { Transport } from "../client/transport";
import type { Server } from "../contract/implement";
import type { GivenContext, MethodsFor } from "../core/dispatch-context";
import type { NoContext } from "../core/context-marks";
import type { Methods } from "../core/methods";
import type { JsonOptions, Validator } from "../core/options";
import type { AnyStage } from "../core/stages";
import { NOCONTEXT } from "../core/sentinels";

/**
 * How a connection cancels requests, both ways:
 *
 * - `"lsp"` (the Language Server Protocol, 3.17): the notification `$/cancelRequest` with params
 *   `{ id }`. A cancelled request must still be answered: it is, at once, with -32800 "Request
 *   cancelled", and its method's signal aborts (its later answer is dropped).
 * - `"mcp"` (the Model Context Protocol): the notification `notifications/cancelled` with params
 *   `{ requestId, reason? }`. A cancelled request is not answered; its method's signal aborts.
 *
 * Cancelling an unknown or finished request is ignored, as both protocols say.
 *
 * @since 5.0.10
 * @category connection
 */
export type Cancellation = "lsp" | "mcp";

/**
 * Options of {@link connect}: what to serve (as `asyncDispatch` takes it), how to cancel, and the
 * bounds of flow control (docs/connections.md has a table of what happens past each).
 *
 * @example
 * import { connect, type ConnectOptions } from "rpcserver/connection";
 * const options: ConnectOptions = { cancellation: "mcp", maxInFlight: 16, maxOutgoing: 256 };
 *
 * @since 5.0.10
 * @category connection
 */
export interface ConnectOptions extends Omit<JsonOptions, "deserializer"> {
  /** What this side serves. Default: nothing (every request -32601): a connection that only calls. */
  readonly methods?: Methods | undefined;
  /**
   * A `server(...)` app to serve, as it is: its methods and stages (any `stages` given here run
   * after its own), and its context type, which `context` is checked against. Instead of `methods`.
   */
  readonly server?: AnyServer | undefined;
  /**
   * The context of every incoming request (this connection's: who is on the other side). A
   * plain-object context gains the request's `signal`, which aborts when the request is cancelled
   * or the connection closes. Default: none.
   */
  readonly context?: unknown;
  /**
   * The cancellation convention. Default `"lsp"`. It also says where a streaming method's values go:
   * LSP's `$/progress` on the request's `partialResultToken` or `workDoneToken`, or MCP's
   * `notifications/progress` on its `_meta.progressToken` (docs/streams.md).
   */
  readonly cancellation?: Cancellation | undefined;
  /**
   * Incoming requests and notifications served at once (a batch counts each member). Past it,
   * messages wait their turn in order, and a channel that can pause stops reading while much does
   * (unless as many of this side's calls await answers as requests are served: a method that calls
   * back gets its answer). Default 64.
   */
  readonly maxInFlight?: number | undefined;
  /**
   * The total length (UTF-16 code units; bytes, for ASCII JSON) of the incoming messages waiting
   * for a slot: past it the peer is taken as hostile and the connection closes, with a reason
   * naming this bound. Also of the values held for this side's busy consumers: past it, the call
   * that would hold more fails `tooLarge`. Default 64 Mi.
   */
  readonly maxWaitingLength?: number | undefined;
  /** Outgoing messages held while the channel is full; past it the peer is taken as not reading and the connection closes. Default 1024. */
  readonly maxQueued?: number | undefined;
  /**
   * This side's requests awaiting answers. A call past it fails at once with
   * `TransportError` `overloaded` (its `limit` is this), and nothing is sent. Default 1024.
   */
  readonly maxOutgoing?: number | undefined;
  /**
   * The longest message taken: UTF-16 code units of its text, or bytes where the channel reads
   * bytes (`byteChannel`'s framing bounds each message by it before text is made, and never holds
   * a longer one whole). A longer one is answered -32002 and skipped; the connection goes on.
   * Default 16 Mi.
   */
  readonly maxMessageLength?: number | undefined;
  /** The largest batch served (past it: one -32600, nothing run). Default 1024 on a connection, where `asyncDispatch` has none. */
  readonly maxBatchSize?: number | null | undefined;
}

/**
 * What a connection adds to a plain-object context, for every request: `peer`, the connection
 * itself (to call the other side back: `client(api, ctx.peer.transport)`), and `signal`, which
 * aborts when the request is cancelled (with the reason the other side gave) or the connection
 * closes. Declare it as a server's context; `connect`'s `context` then leaves both out.
 *
 * @example
 * import * as E from "fp-ts/Either";
 * import * as TE from "fp-ts/TaskEither";
 * import { pipe } from "fp-ts/function";
 * import * as t from "io-ts";
 * import { contract, implement, server } from "rpcserver";
 * import { client } from "rpcserver/client";
 * import { connect, messagePort, type ConnectionContext } from "rpcserver/connection";
 * const editor = contract({ config: { result: t.string } });
 * const api = contract({ configured: { result: t.string } });
 * // `configured` asks the editor, on the same connection, for its config.
 * const app = server(api)
 *   .context<ConnectionContext<{ user: string }>>()
 *   .implement({
 *     configured: (ctx) =>
 *       pipe(
 *         client(editor, ctx.peer.transport).config(),
 *         TE.mapLeft((e) => ({ code: 1, message: `editor: ${e._tag}` })),
 *       ),
 *   });
 * const { port1, port2 } = new MessageChannel();
 * const language = connect(messagePort(port1), { server: app, context: { user: "ada" } });
 * const ide = connect(messagePort(port2), { methods: implement(editor, { config: () => E.right("tabs") }) });
 * await client(api, ide.transport).configured()(); // { _tag: "Right", right: "tabs" }
 * ide.close();
 * language.close();
 *
 * @since 5.0.10
 * @category connection
 */
export type ConnectionContext<C extends object = Record<never, never>> = C & {
  readonly peer: Connection;
  readonly signal: AbortSignal;
};

/** Any `server(...)` app: only its context type is read. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyServer = Server<any, any, any>;

/** The context a server's app is dispatched with. */
type InOf<S> = S extends Server<infer _M, infer In, infer _Cur> ? In : NoContext;

/**
 * What `connect`'s `context` must be for methods expecting `In`: `In` less what the connection
 * adds itself (`peer`, `signal`).
 */
type GivenFor<In> = In extends object ? { [K in keyof In as K extends "peer" | "signal" ? never : K]: In[K] } : In;

/** What the methods receive for a `context` option `C`: a plain object gains `peer` and `signal`. */
type Served<C> = WithPeer<GivenContext<C>>;
type WithPeer<G> = 0 extends 1 & G
  ? G
  : [G] extends [NoContext]
    ? NoContext
    : G extends object
      ? ConnectionContext<G>
      : G;

/** Names, in a compile error's first line, what `connect` was not given. */
interface MissingContext<C> {
  /** The context the served methods expect (less `peer` and `signal`, which the connection adds). */
  readonly context: C;
}

/** A server's context checked against the `context` option `C`: required when it takes one, and fitting. */
export type ServerCheck<C, S> = [S] extends [never]
  ? unknown
  : [InOf<S>] extends [NoContext]
    ? unknown
    : [C] extends [NoContext]
      ? MissingContext<GivenFor<InOf<S>>>
      : { readonly context: GivenFor<InOf<S>> };

/**
 * `connect`'s options as it types them: `C` is the `context` given, `S` the server. Methods are
 * typed by the context they will receive, so a table whose methods take a context that was not
 * given (or another) does not compile; a server's context is checked the same way.
 *
 * @example
 * import { Success } from "rpcserver";
 * import { connect, messagePort } from "rpcserver/connection";
 * const methods = { whoami: (ctx: { user: string }) => Success(ctx.user) };
 * // Without `context`, or with a context that is not a `{ user: string }`, this does not compile.
 * const { port1 } = new MessageChannel();
 * const peer = connect(messagePort(port1), { methods, context: { user: "ada" }, maxInFlight: 8 });
 * peer.close();
 *
 * @since 5.0.10
 * @category connection
 */
export type ConnectOptionsFor<C, S> = Omit<ConnectOptions, "methods" | "server" | "context"> & {
  readonly context?: C;
  readonly server?: S | undefined;
  readonly methods?: MethodsFor<Served<NoInfer<C>>> | undefined;
};

/**
 * A peer on a connection.
 *
 * @example
 * import { connect, messagePort, type Connection } from "rpcserver/connection";
 * const peer: Connection = connect(messagePort(new MessageChannel().port1));
 * peer.load(); // { incoming: 0, outgoing: 0, queued: 0 }
 * peer.close();
 *
 * @since 5.0.10
 * @category connection
 */
export interface Connection {
  /** The outgoing side, as a client transport: `client(contract, peer.transport)`. */
  readonly transport: Transport;
  /** Resolves, with the reason, once the connection has closed. */
  readonly closed: Promise<unknown>;
  /** Closes the connection: in-flight incoming requests' signals abort, outgoing calls fail with `closed`. */
  readonly close: (reason?: unknown) => void;
  /** What is in flight now: incoming requests being served or waiting, outgoing requests awaiting answers, messages queued to send. All zero once closed. */
  readonly load: () => { readonly incoming: number; readonly outgoing: number; readonly queued: number };
}

const DEFAULTS = {
  maxInFlight: 64,
  maxWaitingLength: 64 * 1024 * 1024,
  maxQueued: 1024,
  maxOutgoing: 1024,
  maxMessageLength: 16 * 1024 * 1024,
  maxBatchSize: 1024,
} as const;

const positive = (name: string, value: number | undefined, fallback: number): number => {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0)
    throw new RangeError(`connect: ${name} must be a positive integer, got ${String(value)}`);
  return value;
};

/**
 * `connect`'s options read and checked (a bad one is the caller's exception, thrown before the
 * channel starts), with each bound's default: made once per connection.
 */
export const settingsOf = (given: ConnectOptions): Settings => {
  if (given.server !== undefined && given.methods !== undefined) {
    throw new TypeError("connect: give `server` or `methods`, not both");
  }
  const {
    server: app,
    methods = app?.methods ?? {},
    cancellation = "lsp",
    maxInFlight: givenInFlight,
    maxWaitingLength: givenWaiting,
    maxQueued: givenQueued,
    maxOutgoing: givenOutgoing,
    maxMessageLength: givenLength,
    maxBatchSize = DEFAULTS.maxBatchSize,
    stages = [],
    context = NOCONTEXT,
    ...rest
  } = given;
  const maxInFlight = positive("maxInFlight", givenInFlight, DEFAULTS.maxInFlight);
  const maxWaitingLength = positive("maxWaitingLength", givenWaiting, DEFAULTS.maxWaitingLength);
  const maxQueued = positive("maxQueued", givenQueued, DEFAULTS.maxQueued);
  const maxOutgoing = positive("maxOutgoing", givenOutgoing, DEFAULTS.maxOutgoing);
  const maxMessageLength = positive("maxMessageLength", givenLength, DEFAULTS.maxMessageLength);
  if (cancellation !== "lsp" && cancellation !== "mcp") {
    throw new TypeError(`connect: cancellation must be "lsp" or "mcp", got ${String(cancellation)}`);
  }
  return {
    app,
    methods,
    maxBatchSize,
    context,
    rest,
    stages,
    cancellation,
    maxInFlight,
    maxWaitingLength,
    maxQueued,
    maxOutgoing,
    maxMessageLength,
  };
};

/**
 * `connect`'s options as read by {@link settingsOf}. Written out rather than inferred: an inferred
 * type would name `Validator` and `AnyStage` through whatever module TypeScript finds first, which
 * in the declarations was the public entry (an internal file must never point back up).
 */
export interface Settings {
  readonly app: AnyServer | undefined;
  readonly methods: Methods;
  readonly maxBatchSize: number | null;
  readonly context: unknown;
  readonly rest: {
    readonly serializer?: ((response: unknown) => string) | undefined;
    readonly validator?: Validator | undefined;
    readonly debug?: boolean | undefined;
  };
  readonly stages: ReadonlyArray<AnyStage>;
  readonly cancellation: Cancellation;
  readonly maxInFlight: number;
  readonly maxWaitingLength: number;
  readonly maxQueued: number;
  readonly maxOutgoing: number;
  readonly maxMessageLength: number;
}

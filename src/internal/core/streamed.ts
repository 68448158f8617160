/**
 * Sending a streamed value from the server, one mechanism for every wire. A request that carries
 * tokens gets a {@link Streamed}: its sink, whose values go out as notifications (shaped by
 * ./progress-wire) through the wire's {@link Outlet}, which decides when a value is taken
 * (back-pressure): a connection's channel (connection/outlet.ts), an HTTP event stream
 * (http/answer.ts) or NATS messages (internal/nats), the last two through ./served-body.
 *
 * @module
 */
import {
  answeredAlready,
  emptied,
  requestCancelled,
  UNSENT,
  valueNotification,
  WORK_DONE_END,
  workDoneBegin,
  workDoneNotification,
  type Tokens,
  type Write,
} from "./progress-wire";
import type { Request } from "./request";
import type { Response } from "./response";
import { streamTo } from "./stream";

/**
 * Where a request's messages about its values go, in order. The wire decides what each becomes (a
 * message on a channel, an HTTP event, a NATS message) and when a value is taken.
 */
export interface Outlet {
  /**
   * A value's notification: `undefined` once the wire took it, else a wait that resolves once it
   * has (back-pressure: a connection's channel drained, an event stream's reader pulled it), or
   * rejects if it never will.
   */
  value(text: string): Promise<void> | undefined;
  /** Any other message about a value (LSP's work-done begin or end), in order, with no wait. */
  message(text: string): void;
}

/** A wire, as its requests' sinks see it: its serializer, its outlet, and whether it stopped (its client gone, its connection closed). */
export interface Wire {
  readonly write: Write;
  readonly outlet: Outlet | undefined;
  readonly stopped: boolean;
}

/**
 * One request's values on a wire: its sink, each value's notification handed to the wire's outlet
 * (its method waits at its yield while the wire has not taken it: the outlet's wait is the sink's),
 * LSP's work-done `begin` with the first value and `end` once the request is done, and its response
 * as the wire wants it (LSP's emptied result).
 */
export class Streamed {
  private sent = 0;
  /** LSP's work-done `begin` went out, and its `end` not yet. */
  private begun = false;
  /** Why its sink refuses: the request cancelled (-32800), or its response made. */
  private refused: "cancelled" | "answered" | undefined;

  private constructor(
    private readonly wire: Wire,
    private readonly method: string,
    private readonly tokens: Tokens,
  ) {}

  /** `request`'s sink on `wire`, given to it now; none without tokens (its values are dropped). */
  static open(wire: Wire, request: Request, tokens: Tokens | undefined): Streamed | undefined {
    if (tokens === undefined) return undefined;
    const streamed = new Streamed(wire, request.method, tokens);
    streamTo(request, (value) => streamed.push(value));
    return streamed;
  }

  /**
   * One value: its notification, handed to the wire (nothing for {@link UNSENT}). A value its
   * serializer refuses is the method's exception.
   */
  private push(value: unknown): Promise<void> | undefined {
    if (this.refused !== undefined || this.wire.stopped) {
      return Promise.reject(this.wire.stopped || this.refused === "cancelled" ? requestCancelled() : answeredAlready());
    }
    if (value === UNSENT) return undefined;
    let text: string;
    try {
      text = valueNotification(this.wire.write, this.tokens, this.sent + 1, value);
    } catch (thrown) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      return Promise.reject(thrown);
    }
    this.sent += 1;
    if (!this.begun && this.tokens.workDone !== undefined) {
      this.begun = true;
      this.workDone(workDoneBegin(this.method));
    }
    return this.wire.outlet?.value(text);
  }

  /** LSP's work-done begin or end: sent as it comes (one its serializer cannot write is left out). */
  private workDone(value: Record<string, unknown>): void {
    const text = workDoneNotification(this.wire.write, this.tokens.workDone as string | number, value);
    if (text !== undefined) this.wire.outlet?.message(text);
  }

  /**
   * The request is cancelled (or its connection closed): its sink refuses from now on. A wait for
   * the wire is left as it is: whoever cancels ends the request's stream too (`endStream`), which
   * stops its method at once even while it waits at a yield for its sink.
   */
  cancel(): void {
    this.refused ??= "cancelled";
  }

  /** The request is done, however it ended: its sink refuses what comes after, and LSP's `end` follows its `begin`, once. */
  end(): void {
    this.refused ??= "answered";
    if (!this.begun) return;
    this.begun = false;
    if (!this.wire.stopped) this.workDone(WORK_DONE_END);
  }

  /** Its response, as the wire sends it: LSP 3.17's emptied result once partial results went out. */
  answer(response: Response): Response {
    return this.tokens.empties ? emptied(this.tokens, this.sent, response) : response;
  }
}

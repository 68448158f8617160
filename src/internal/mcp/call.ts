/**
 * A tool's call as the one stream the core drains: {@link ToolCall} is the iterator `tools/call`
 * returns when a tool's answer is not ready at once, whose values are what the tool sends while it
 * runs, in the order it sends them (its progress: what its `async function*` yields; over HTTP, its
 * log messages and requests to the client too, from its outbox), and whose end is the call's
 * result. It drains nothing itself: the core's stream drain (core/pipeline/streaming.ts) asks for
 * each value once the wire has taken the one before, gives the event loop its turns, and stops the
 * tool's generator (`return()`, so its `finally` runs) when the call is cancelled or its client
 * leaves, whether or not the tool reads its signal.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import { messageOf } from "../core/describe";
import { isThenable } from "../core/guards";
import { UNSENT, type WireMessage } from "../core/progress-wire";
import type { ToolResult } from "./protocol";
import { failed, isGenerator, Running, type Progress, type Started } from "./tools";

/** The call's end, as `tools/call` answers it. */
type Answer = E.Either<never, ToolResult>;
type Step = IteratorResult<unknown, Answer>;

const CANCELLED = "the call was cancelled";

/**
 * One `tools/call` under way, as an async iterator (`next`, `return`, `Symbol.asyncIterator`: what
 * the core drains), fed by the tool: its messages ({@link ToolCall.push}, its outbox's), and its run
 * ({@link ToolCall.begin}): a generator's steps, each asked for only when the drain asks (so the
 * tool never runs more than one value ahead of what the wire has taken), or its answer to come.
 */
export class ToolCall {
  /** Messages the tool sent that the drain has not taken yet, in order. */
  private readonly queue: WireMessage[] = [];
  /** The drain's `next()`, waiting (the queue is then empty). */
  private waiting: ((step: Step) => void) | undefined;
  /** A step the tool took while the drain was busy: taken after the messages sent before it. */
  private ready: Step | undefined;
  /** The tool's generator, once there is one. */
  private source: AsyncGenerator<Progress, unknown> | undefined;
  /** What the tool gives before its generator is known (its arguments decode later) or instead of one (its answer). */
  private later: Promise<AsyncGenerator<Progress, unknown> | ToolResult> | undefined;
  /** The run, which makes the generator's end (its return value, or its throw) the call's result. */
  private running: Running | undefined;
  /** A step of the tool is under way. */
  private busy = false;
  /** The call is over (answered, or stopped): what the tool sends after goes nowhere. */
  private over = false;

  /**
   * `progress`: whether the call asked for progress (a `progressToken`); a value yielded without
   * one is a step of the stream that sends nothing ({@link UNSENT}). `sent`: what the answer waits
   * for (a connection's notifications on their way), `undefined` for nothing.
   */
  constructor(
    private readonly progress: boolean,
    private readonly sent: () => Promise<void> | undefined,
  ) {}

  /** Whether the tool sent nothing yet: an answer it gave at once needs no stream then. */
  get idle(): boolean {
    return this.queue.length === 0;
  }

  /** How many messages it sent that the drain has not taken (its reader has not read). */
  get backlog(): number {
    return this.queue.length;
  }

  /** A message of the tool's (a log, a request to the client), after those it sent before. */
  readonly push = (message: WireMessage): void => {
    if (this.over) return;
    const { waiting } = this;
    if (waiting === undefined) this.queue.push(message);
    else {
      this.waiting = undefined;
      waiting({ done: false, value: message });
    }
  };

  /** The tool's run: its generator's steps, its answer to come, or its answer. */
  begin(started: Started): this {
    if (started instanceof Running) {
      this.running = started;
      if (isGenerator(started.first)) this.source = started.first;
      else this.later = started.first;
    } else if (isThenable(started)) this.later = started;
    else this.end(started);
    return this;
  }

  next(): Promise<Step> {
    const message = this.queue.shift();
    if (message !== undefined) return Promise.resolve({ done: false, value: message });
    const { ready } = this;
    if (ready !== undefined) {
      this.ready = undefined;
      return Promise.resolve(ready);
    }
    return new Promise((resolve) => {
      this.waiting = resolve;
      if (!this.busy) this.step();
    });
  }

  /**
   * The drain stops the call (a cancel, the client gone, a sink that failed): the tool's generator
   * is stopped at its next yield, or at once if it waits at one, its `finally` run; a generator not
   * begun yet never runs. What it sends after goes nowhere.
   */
  async return(): Promise<IteratorResult<unknown, undefined>> {
    this.over = true;
    this.queue.length = 0;
    this.ready = undefined;
    await this.source?.return(E.left(CANCELLED));
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Asks the tool for its next step: its generator's next value or its end, or what it gives later. */
  private step(): void {
    this.busy = true;
    const { source, running } = this;
    if (source !== undefined && running !== undefined) {
      source.next().then(
        (step) =>
          step.done === true
            ? this.end(running.finish(step.value))
            : this.take({ done: false, value: this.progress ? step.value : UNSENT }),
        (thrown: unknown) => this.end(running.failed(thrown)),
      );
      return;
    }
    const later = this.later as NonNullable<ToolCall["later"]>;
    this.later = undefined;
    later.then(
      (got) => {
        if (!isGenerator(got)) return this.end(got);
        this.source = got;
        // Stopped while its arguments were decoded: it never runs.
        if (this.over) return void got.return(E.left(CANCELLED)).finally(() => this.end(failed(CANCELLED)));
        this.step();
      },
      // It never rejects (a tool's throw is its isError result already): were it to, the call still answers.
      (thrown: unknown) => this.end(running === undefined ? failed(messageOf(thrown)) : running.failed(thrown)),
    );
  }

  /** The tool's result: the call's end, once what it sent is on its way. */
  private end(result: ToolResult | Promise<ToolResult>): void {
    const sent = this.sent();
    if (sent === undefined && !isThenable(result)) return this.take({ done: true, value: E.right(result) });
    void Promise.all([result, sent]).then(([answer]) => this.take({ done: true, value: E.right(answer) }));
  }

  /** A step of the tool's, for the drain: now if it waits, else once it has taken the messages sent before. */
  private take(step: Step): void {
    this.busy = false;
    if (step.done === true) this.over = true;
    const { waiting } = this;
    if (waiting === undefined) this.ready = step;
    else {
      this.waiting = undefined;
      waiting(step);
    }
  }
}

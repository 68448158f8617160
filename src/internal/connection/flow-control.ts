/**
 * Flow control: what is in flight is bounded both ways, and a peer is slowed, not dropped.
 *
 * - Incoming: a message takes slots (one, or a batch's members) up to `maxInFlight`; each of this
 *   side's calls awaiting an answer lends a slot (see `fits`). Past the slots, messages wait in
 *   order (a FIFO of their text), and nothing starts while the channel is full.
 * - Reading pauses while much waits (past min(1 Mi, maxWaitingLength / 2) units, resuming at half
 *   of it); a pause that sees nothing served for `STALL_MS` reads on, since the answers and
 *   cancellations the methods wait on may be behind what waits. Only a peer that fills the waiting
 *   room past `maxWaitingLength` is closed.
 * - Outgoing: messages queue while the channel is full; this side's own past `maxQueued` are
 *   refused (`overloaded`, see `roomForOwn`), and a queue past every bound (a peer that does not
 *   read) closes the connection.
 * - Values for this side's streamed calls (./streamed-calls) held for consumers still taking an
 *   earlier one pause reading too, past `VALUES_HIGH_WATER` and while every call awaiting its
 *   answer holds some (see `valuesPause`).
 *
 * @module
 */
import { isRecord, isThenable } from "../core/guards";
import { close } from "./closing";
import { run } from "./incoming";
import { isId, requestIds, UNPARSED } from "./messages";
import type { Incoming, PeerState } from "./state";

/**
 * How long a pause may see nothing served before it reads on: the answers and cancellations the
 * methods in flight wait on may be behind what waits, and which message they wait on cannot be
 * known (a call shared by many methods, a cancellation, a notification). Rules without a timer
 * were tried (issue 33, item 5) and left peers waiting for ever: see repro/.
 */
const STALL_MS = 1000;

/**
 * Values held for consumers that have not taken them (all streamed calls together) past which
 * reading pauses; it goes on at half of it. A consumer may wait on something the other side sends
 * (a call-back) while a few values are held: pausing at the first would hide it.
 */
export const VALUES_HIGH_WATER = 16;

// ------------------------------------------------------------------------------- sending

/**
 * Sends a message, or queues it while the channel is full. Answers are bounded by what is served
 * (nothing more starts while the channel is full), and this side's own messages by `maxQueued`
 * (refused past it): a queue past both is a peer that does not read, and the only case that closes.
 */
export const send = (state: PeerState, text: string): void => {
  if (state.closed) return;
  state.sent += 1;
  if (state.full) {
    state.queue.push(text);
    if (state.queue.length > state.maxQueued + state.maxInFlight + state.maxOutgoing) {
      close(state, new Error(`the peer does not read: ${state.queue.length} messages queued`));
    }
    return;
  }
  state.full = !state.channel.send(text);
};

/** Whether this side may send a message of its own now (a call or notification): not past `maxQueued`. */
export const roomForOwn = (state: PeerState): boolean => !state.full || state.queue.length < state.maxQueued;

/** The channel can take more: what queued is sent, and what waits may start. */
export const drain = (state: PeerState): void => {
  state.full = false;
  while (!state.full && state.queue.length > 0) state.full = !state.channel.send(state.queue.shift() as string);
  if (state.full) return;
  // Methods streaming values go on first (./outlet): what they send was queued before what may start now.
  state.drained?.resume();
  admit(state);
};

// ------------------------------------------------------------------------------- slots

/**
 * Whether a message of `weight` slots may start now: not while the channel is full (its answer
 * would only queue), and within the limit, to which each of this side's calls awaiting an answer
 * lends a slot (up to the limit again): a method waiting on the other side computes nothing, and
 * without the loan, methods calling back in both directions would hold every slot and wait on
 * each other. (One larger than the limit starts alone.)
 */
const fits = (state: PeerState, weight: number): boolean =>
  !state.full &&
  (state.inFlight === 0 ||
    state.inFlight + weight <= state.maxInFlight + Math.min(state.outgoing.size, state.maxInFlight));

/** A message's answer is out (or there is none): its slots are free for the next. */
const done = (state: PeerState, weight: number, text: string): void => {
  if (state.closed) return;
  if (text !== "") send(state, text);
  state.inFlight -= weight;
  state.progressed = true;
  admit(state);
};

/** Serves one message (its text, its value or `UNPARSED`, the slots it takes): no object made for it. */
const serve = (state: PeerState, text: string, parsed: unknown, weight: number): void => {
  state.inFlight += weight;
  const answer = run(state, text, parsed);
  if (isThenable(answer)) void answer.then((written) => done(state, weight, written));
  else done(state, weight, answer);
};

/** Starts waiting messages while slots allow (a loop, not a recursion: a long queue of quick methods). */
export const admit = (state: PeerState): void => {
  if (state.admitting) return;
  state.admitting = true;
  const { waiting } = state;
  for (let next = waiting.peek(); next !== undefined && !state.closed; next = waiting.peek()) {
    if (next.cancelled !== true && !fits(state, next.weight)) break;
    waiting.shift();
    state.waitingLength -= next.text.length;
    if (next.cancelled === true) continue;
    if (next.id !== undefined && state.waitingById.get(next.id) === next) state.waitingById.delete(next.id);
    if (next.members !== undefined) {
      for (const id of next.members) if (state.waitingInBatch.get(id) === next) state.waitingInBatch.delete(id);
    }
    serve(state, next.text, next.parsed, next.weight);
  }
  state.admitting = false;
  // A stalled pause read on until what waited was served: once it is, pausing works again.
  if (waiting.length === 0) state.stuck = false;
  flow(state);
};

/**
 * Serves an incoming message (its text, and its value or `UNPARSED`) now if it fits and nothing
 * waits before it, or puts it at the end of the waiting room (its text only); past
 * `maxWaitingLength` of waiting text, the peer is taken as hostile and the connection closes.
 */
export const enqueue = (state: PeerState, text: string, parsed: unknown): void => {
  const weight = Array.isArray(parsed) && parsed.length <= state.env.maxBatchSize ? Math.max(parsed.length, 1) : 1;
  if (state.waiting.length === 0 && fits(state, weight)) return serve(state, text, parsed, weight);
  const id = isRecord(parsed) && "method" in parsed && isId(parsed["id"]) ? parsed["id"] : undefined;
  const members = Array.isArray(parsed) ? requestIds(parsed) : undefined;
  const message: Incoming = { text, parsed: UNPARSED, weight, id, members };
  state.waiting.push(message);
  state.waitingLength += text.length;
  if (id !== undefined) state.waitingById.set(id, message);
  if (members !== undefined) for (const member of members) state.waitingInBatch.set(member, message);
  if (state.waitingLength > state.maxWaitingLength) {
    return close(
      state,
      new Error(
        `the peer sends past the in-flight limit: ${state.waitingLength} units of messages wait, over maxWaitingLength (${state.maxWaitingLength})`,
      ),
    );
  }
  flow(state);
};

// ------------------------------------------------------------------------------- pausing

/** Watches a pause for `STALL_MS`. */
const look = (state: PeerState): void => {
  state.watch = setTimeout(stalled, STALL_MS, state);
  (state.watch as { unref?: () => void }).unref?.();
};

/**
 * Whether the values held for this side's streamed calls pause reading: more than
 * `VALUES_HIGH_WATER` of them, or more text than `highWater` (half of each once paused), and only
 * while every call awaiting its answer holds some. A consumer may wait on another call of this
 * connection (one call per value it takes): that call's answer must be read, so while one awaits
 * that holds none, reading goes on, and the held values are bounded by `maxWaitingLength` alone.
 */
const valuesPause = (state: PeerState): boolean =>
  state.outgoing.size <= state.holdingCalls &&
  (state.paused
    ? state.valuesHeld > VALUES_HIGH_WATER / 2 || state.heldLength > state.highWater / 2
    : state.valuesHeld > VALUES_HIGH_WATER || state.heldLength > state.highWater);

/**
 * Reading pauses while much waits (back-pressure: the other side's writes slow down), and goes on
 * once half of it is served; so it does for values held for slow consumers (`valuesPause`).
 * Answers to this side's calls and cancellations may be behind what waits: a pause that sees
 * nothing served for a while (every method in flight waiting on such a message) reads on, up to
 * `maxWaitingLength`, so that they are read.
 */
export const flow = (state: PeerState): void => {
  const pause =
    !state.closed &&
    !state.stuck &&
    (state.waitingLength > (state.paused ? state.highWater / 2 : state.highWater) ||
      (state.valuesHeld > 0 && valuesPause(state)));
  if (pause === state.paused) return;
  state.paused = pause;
  if (pause) {
    state.progressed = false;
    look(state);
    state.channel.pause?.();
  } else {
    if (state.watch !== undefined) clearTimeout(state.watch);
    state.watch = undefined;
    state.channel.resume?.();
  }
};

/** A pause's watch is up: it looks again if something was served, else reads on (`stuck`). */
const stalled = (state: PeerState): void => {
  state.watch = undefined;
  if (!state.paused || state.closed) return;
  // A consumer slow to take its values is no stall: nothing read could help it (every call
  // awaiting its answer holds values, which come before that answer).
  if (state.progressed || (state.valuesHeld > 0 && valuesPause(state))) {
    state.progressed = false;
    return look(state);
  }
  state.stuck = true;
  flow(state);
};

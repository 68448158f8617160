/**
 * Framing: where one JSON-RPC message ends and the next begins in a byte stream (stdio, a socket,
 * a child process's pipes). Two framings are in use: newline-delimited JSON (MCP's stdio transport,
 * many tools) and LSP's `Content-Length` headers (`vscode-jsonrpc`). Both are pure functions of
 * the bytes, with no I/O and no Node import, and both are bounded: a message longer than the
 * connection's `maxMessageLength` (in bytes here) is skipped and reported, never buffered whole.
 *
 * This file holds what both share: the types, the default bound and its check; each framing is in
 * a file of its own (./newline-delimited, ./content-length).
 *
 * @module
 */

/**
 * What a decoder reports as it reads: each whole message, a message skipped for its size (the
 * stream is still in step: the connection survives), and a framing it cannot follow (the stream is
 * out of step: the connection must close).
 *
 * @since 5.0.10
 * @category connection
 */
export interface FrameEvents {
  /** One whole message, as text. */
  readonly message: (text: string) => void;
  /** A message of `bytes` bytes, over the limit of `max` bytes, skipped: the stream is still in step. */
  readonly oversize: (bytes: number, max: number) => void;
  /** The stream is out of step (why): nothing more is read. */
  readonly broken: (reason: string) => void;
}

/**
 * A framing: a decoder (bytes in, events out) and an encoder (one message's text to the text of
 * its frame, written as UTF-8: a stream converts text in native code, faster than a TextEncoder).
 *
 * @example
 * import { newlineDelimited } from "rpcserver/connection";
 * const texts: string[] = [];
 * const feed = newlineDelimited().decoder({ message: (t) => texts.push(t), oversize: () => {}, broken: () => {} });
 * feed(new TextEncoder().encode('{"a":1}\n{"b"'));
 * feed(new TextEncoder().encode(':2}\n'));
 * texts; // ['{"a":1}', '{"b":2}']
 *
 * @since 5.0.10
 * @category connection
 */
export interface Framing {
  /**
   * A reader of one stream: feed it the chunks as they come; it reports through `events`. `maxBytes`
   * is the connection's `maxMessageLength` (a framing made with a bound of its own keeps that one).
   */
  readonly decoder: (events: FrameEvents, maxBytes?: number) => (chunk: Uint8Array) => void;
  /** One message's frame, as text to write as UTF-8. */
  readonly encode: (text: string) => string;
}

/** The largest message a framing passes on by default: 16 MiB. */
export const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

export const NEWLINE = 0x0a;
export const CR = 0x0d;

/**
 * Refuses a `maxBytes` that is not a positive integer, naming the framing. Given to the framing, it
 * is the deprecated bound of its own; undefined, the connection's `maxMessageLength` is the bound.
 */
export const checkMax = (who: string, maxBytes: number | undefined): void => {
  if (maxBytes !== undefined && (!Number.isInteger(maxBytes) || maxBytes <= 0)) {
    throw new RangeError(`${who}: maxBytes must be a positive integer, got ${String(maxBytes)}`);
  }
};

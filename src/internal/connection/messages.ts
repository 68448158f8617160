/**
 * Messages as a connection routes them: the JSON shapes it tells apart (a response to one of its
 * calls, an id, the request ids of a batch) and the mark of a message that is not JSON.
 *
 * @module
 */
import { isRecord } from "../core/guards";
import type { Id } from "../core/request";

/** A message that is not JSON. */
export const UNPARSED = Symbol("unparsed");

export type Json = Record<string, unknown>;

/** A response (to one of our calls): an object with an id and a result or an error, and no method. */
export const isResponse = (value: unknown): value is Json =>
  isRecord(value) && !("method" in value) && "id" in value && ("result" in value || "error" in value);

export const isId = (value: unknown): value is string | number =>
  typeof value === "string" || typeof value === "number";

/** The ids of the requests in a batch. */
export const requestIds = (batch: readonly unknown[]): Id[] => {
  const ids: Id[] = [];
  for (const member of batch) {
    if (isRecord(member) && "method" in member && isId(member["id"])) ids.push(member["id"]);
  }
  return ids;
};

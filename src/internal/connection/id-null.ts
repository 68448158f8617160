/**
 * Id-null matching: an error response with `id: null` says the other side could not read one of
 * our messages (too large, not a request, a batch too big) without saying which. Where it can be
 * told which pending message it is about, that message's calls are answered by it; where it
 * cannot, none is, and they settle by their own answers, their timeouts or the close.
 *
 * @module
 */
import { isRecord } from "../core/guards";
import { ERROR_INVALID_REQUEST, ERROR_MESSAGE_TOO_LARGE } from "../core/codes";
import type { Outgoing } from "./state";

/**
 * The one pending message an error with `id: null` is about, when it can be told: a -32002 whose
 * `data.length` is exactly one pending message's length (in UTF-16 units, or UTF-8 bytes, as a
 * framing counts), a -32600 whose `data.size` (a batch over the peer's `maxBatchSize`) is exactly
 * one pending batch's members, or else the only message
 * pending when nothing was sent after it (the error could otherwise be about an answer or a
 * notification of ours). Otherwise none: the calls settle by their own answers, their timeouts or
 * the close.
 */
export const aboutWhich = (pending: ReadonlySet<Outgoing>, error: unknown, sent: number): Outgoing | undefined => {
  const code = isRecord(error) ? error["code"] : undefined;
  const data = isRecord(error) ? error["data"] : undefined;
  const length = code === ERROR_MESSAGE_TOO_LARGE && isRecord(data) ? data["length"] : undefined;
  const size = code === ERROR_INVALID_REQUEST && isRecord(data) ? data["size"] : undefined;
  const fits =
    typeof length === "number"
      ? (each: Outgoing) => each.length === length || each.bytes === length
      : typeof size === "number" && size > 0
        ? (each: Outgoing) => each.members === size
        : undefined;
  if (fits === undefined) {
    const only = pending.size === 1 ? pending.values().next().value : undefined;
    return only !== undefined && only.sentAt === sent ? only : undefined;
  }
  let found: Outgoing | undefined;
  for (const each of pending) {
    if (!fits(each)) continue;
    if (found !== undefined) return undefined;
    found = each;
  }
  return found;
};

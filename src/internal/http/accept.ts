/**
 * HTTP content negotiation, as much as the servers here need: whether an `Accept` header names a
 * media type itself. Shared by `answerHttp` (./answer: does the client ask for an event stream?)
 * and the development server's inspector page (node/inspector-route.ts).
 *
 * @module
 */

/** The media type of an event stream. */
export const EVENT_STREAM = "text/event-stream";

/**
 * Does `accept` name `type` itself (a `*\/*` or `text/*` does not: a client that did not ask gets
 * what it got before), with a quality above 0?
 */
export const accepts = (accept: string | null | undefined, type: string): boolean => {
  if (typeof accept !== "string" || !accept.toLowerCase().includes(type)) return false;
  return accept.split(",").some((range) => {
    const [named = "", ...parameters] = range.split(";");
    if (named.trim().toLowerCase() !== type) return false;
    const quality = parameters.find((parameter) => parameter.trim().toLowerCase().startsWith("q="));
    return quality === undefined || Number(quality.trim().slice(2)) > 0;
  });
};

/**
 * Does an `Accept` header ask for an event stream? It must name `text/event-stream` itself (a
 * `*\/*` does not: a client that did not ask gets JSON, as before), with a quality above 0.
 */
export const acceptsEvents = (accept: string | null | undefined): boolean => accepts(accept, EVENT_STREAM);

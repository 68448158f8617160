/**
 * The inspector route of the servers here (the development server, `fetchHandler`): which requests
 * get the inspector page (a browser's GET, of `/` on the development server), and the headers it is
 * served with. Everything else keeps its answer: POST is
 * dispatched, and a GET whose `Accept` does not name `text/html` (curl's and `fetch`'s default,
 * any type, does not), a GET of another path, a HEAD and every other method get 405 as before.
 *
 * @module
 */
import { accepts } from "./accept";
import { INSPECTOR_HEADERS, inspectorPage } from "../inspector/page";

/** The one path the page is served at: the server's root, the URL its listening line prints. */
const PAGE_PATH = "/";

/**
 * The page's headers: the inspector's own, and `Vary: Accept`, since the same URL answers a
 * browser with the page and anything else with JSON-RPC or 405.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = { ...INSPECTOR_HEADERS, Vary: "Accept" };

/**
 * Does `Accept` name `text/html` itself, with a quality above 0? Browsers send it when they
 * navigate to a page; any type (curl's, `fetch`'s and HTTP libraries' default) does not count, so
 * they keep their 405, as they would with no inspector.
 */
export const acceptsHtml = (accept: string | undefined): boolean => accepts(accept, "text/html");

/** Is this a GET of the page's path, `/` (any query): the page or 405, as its `Accept` says? */
export const isPagePath = (method: string | undefined, url: string | undefined): boolean =>
  method === "GET" && (url ?? "").split("?", 1)[0] === PAGE_PATH;

/** Is this request a browser's GET of the page: GET of `/` (any query), `Accept` naming `text/html`? */
export const isPageRequest = (
  method: string | undefined,
  url: string | undefined,
  accept: string | undefined,
): boolean => isPagePath(method, url) && acceptsHtml(accept);

/**
 * `headers` with `Accept` added to their `Vary`: for the 405 of a GET of the page's path whose
 * `Accept` is not a browser's, since the same URL answers a browser with the page (a cache must
 * not give either answer for the other).
 */
export const varyingByAccept = <H extends Readonly<Record<string, string | number>>>(
  headers: H,
): H & { Vary: string } => {
  const vary = headers["Vary"];
  return { ...headers, Vary: vary === undefined ? "Accept" : `${String(vary)}, Accept` };
};

/**
 * The page of a server whose `rpc.discover` title is `title` (`serve` checks it is a string),
 * calling `url`, where it is served: the development server's root, or the path a fetch handler
 * is mounted on.
 */
export const servedPage = (title: unknown, url: string = PAGE_PATH): string =>
  inspectorPage({ url, ...(typeof title === "string" ? { title: `${title} (inspector)` } : {}) });

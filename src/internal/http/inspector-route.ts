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

/** The one path the page is served at: the server's root, the URL its listening line prints. */
const PAGE_PATH = "/";

/**
 * The inspector part's page and headers: imported statically by the development server, which
 * serves the page from its start, and with `import()` by a fetch handler on a browser's first GET
 * of it, so that the page (about 54 kB) is a chunk of its own that an app bundling `rpcserver/fetch`
 * or `rpcserver/mcp` for a browser or a Worker loads only when the page is asked for.
 */
export type InspectorModule = Pick<typeof import("../inspector/page"), "inspectorPage" | "INSPECTOR_HEADERS">;

/** The page served: its headers and its HTML. */
export interface ServedPage {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

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
 * is mounted on. Its headers are the inspector's own and `Vary: Accept`, since the same URL answers
 * a browser with the page and anything else with JSON-RPC or 405.
 */
export const servedPage = (inspector: InspectorModule, title: unknown, url: string = PAGE_PATH): ServedPage => ({
  headers: { ...inspector.INSPECTOR_HEADERS, Vary: "Accept" },
  body: inspector.inspectorPage({ url, ...(typeof title === "string" ? { title: `${title} (inspector)` } : {}) }),
});

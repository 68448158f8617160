/**
 * rpcserver/inspector: the development server's inspector page, for a route of your own. The page
 * reads your service's `rpc.discover` document and lets a developer call its methods from a form
 * (see docs/inspector.md); the development server (`serve`, the `rpcserver` command) serves it at
 * `/` already. Browser-safe and dependency-free: the page is a string.
 *
 * @example
 * import { INSPECTOR_HEADERS, inspectorPage } from "rpcserver/inspector";
 * // In development, beside your JSON-RPC route (POST /rpc), with Express:
 * // if (process.env.NODE_ENV !== "production") {
 * //   const page = inspectorPage({ url: "/rpc" });
 * //   app.get("/rpc/inspector", (req, res) => res.set(INSPECTOR_HEADERS).send(page));
 * // }
 * const page = inspectorPage({ url: "/rpc" });
 * page.includes('<meta name="rpcserver-url" content="/rpc">'); // true
 *
 * @module
 */
export { INSPECTOR_HEADERS, inspectorPage, type InspectorPageOptions } from "./internal/inspector/page";

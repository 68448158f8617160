/**
 * `rpc.discover` on the HTTP servers here (the development server, `fetchHandler`): the table they
 * dispatch to, with the discovery method added unless the option `openrpc` is `false`, its
 * document's info checked once, when the server is made.
 *
 * @module
 */
import type { Methods } from "../core/methods";
import { DEFAULT_INFO, openRpcDocument, withDiscovery } from "../documents/openrpc";
import type { OpenRpcInfo } from "../documents/openrpc-types";

/**
 * The methods a server dispatches to: `methods` with `rpc.discover`, whose document's info is
 * `openrpc`'s over the defaults, and `servers()`'s (the development server's URL, once it listens);
 * or `methods` as they are, with `openrpc: false`. A bad title or version is `who`'s `TypeError`
 * now, rather than -32603 at each `rpc.discover`.
 */
export const discoverable = (
  methods: Methods,
  openrpc: Partial<OpenRpcInfo> | false | undefined,
  who: string,
  servers: () => OpenRpcInfo["servers"] = () => undefined,
): Methods => {
  if (openrpc === false) return methods;
  const info = (): OpenRpcInfo => {
    const at = servers();
    return { ...DEFAULT_INFO, ...(at === undefined ? {} : { servers: at }), ...openrpc };
  };
  try {
    openRpcDocument({}, info());
  } catch {
    throw new TypeError(`${who}: openrpc's title and version must be strings`);
  }
  return withDiscovery(methods, info);
};

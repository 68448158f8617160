/**
 * The `requestState` of an `input_required` result (2026-07-28 era), which the client sends back
 * as is with its answers: what the server carries from one round to the next (the answers so far),
 * bound to the method and what it names, with an expiry, and to its user when the server names one
 * (an HMAC of the name under the same key: the state shows no user's name, and no one without the
 * key can make the tag of another), and signed (HMAC-SHA-256, by WebCrypto, so any runtime) with a
 * key every process of the server shares. A state forged, altered, expired, too long, for another
 * call or another user is refused: the client holds it, so it is the client's word until checked.
 *
 * @module
 */
import { isRecord } from "../core/guards";
import type { JsonObject } from "./protocol";

/** The longest state read (bytes of its text): past it, refused unread. */
export const MAX_STATE_LENGTH = 64 * 1024;

/** How long a state holds, from its making. */
const LIFETIME_MS = 10 * 60 * 1000;

/** What a state carries: the call it belongs to (method and name or URI), its answers so far, and its expiry. */
export interface StateContent {
  readonly call: string;
  readonly answers: JsonObject;
}

/** WebCrypto's key (its type named through the global `crypto`: no DOM library here). */
type HmacKey = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const base64url = (bytes: Uint8Array): string => {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
};

const fromBase64url = (text: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    return Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
};

/** Why a state cannot be made or checked here: no WebCrypto (Node 18 has it behind a flag). */
export const NO_WEBCRYPTO =
  "input_required needs WebCrypto (globalThis.crypto.subtle): Node 19 or later, or Node 18 with --experimental-global-webcrypto";

/** The runtime's WebCrypto, or a throw naming what is missing. */
const webCrypto = (): typeof globalThis.crypto => {
  // Typed as always there; on Node 18 without its flag it is not.
  const found = globalThis.crypto as typeof globalThis.crypto | undefined;
  if (found?.subtle === undefined) throw new Error(NO_WEBCRYPTO);
  return found;
};

/**
 * The signer and checker of states under one key: a text (any length; what every process of the
 * server is given), or none, for a key made at random for this process alone (then a state holds
 * only on the process that made it). The key is made when a state is first made or read: a server
 * that never asks its client anything needs no WebCrypto.
 */
export const stateKeeper = (secret: string | undefined) => {
  if (secret === "") throw new TypeError("mcpServer: stateKey must be a text of at least one character");
  let key: Promise<HmacKey> | undefined;
  const keyOf = (): Promise<HmacKey> => {
    if (key !== undefined) return key;
    const crypto = webCrypto();
    const raw = secret !== undefined ? encoder.encode(secret) : crypto.getRandomValues(new Uint8Array(32));
    key = crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    return key;
  };
  /** A user's tag: their name's HMAC under the key (`undefined`: no user named). */
  const tagOf = async (owner: string | undefined): Promise<string | undefined> =>
    owner === undefined
      ? undefined
      : base64url(
          new Uint8Array(await webCrypto().subtle.sign("HMAC", await keyOf(), encoder.encode(`owner:${owner}`))),
        );
  return {
    /** The state of `content` for `owner` (if named), signed: `payload.signature`, both base64url. */
    sign: async (content: StateContent, owner?: string): Promise<string> => {
      const payload = encoder.encode(
        JSON.stringify({ ...content, owner: await tagOf(owner), expires: Date.now() + LIFETIME_MS }),
      );
      const signature = new Uint8Array(await webCrypto().subtle.sign("HMAC", await keyOf(), payload));
      return `${base64url(payload)}.${base64url(signature)}`;
    },
    /** The content of a state, if it is this server's, unaltered, unexpired, for `call` and for `owner`: else why not. */
    open: async (
      state: unknown,
      call: string,
      owner?: string,
    ): Promise<{ readonly answers: JsonObject } | { readonly refused: string }> => {
      if (typeof state !== "string" || state.length > MAX_STATE_LENGTH)
        return { refused: "requestState is not a state of this server" };
      const [payloadText = "", signatureText = "", ...rest] = state.split(".");
      const payload = fromBase64url(payloadText);
      const signature = fromBase64url(signatureText);
      if (rest.length > 0 || payload === undefined || signature === undefined) {
        return { refused: "requestState is not a state of this server" };
      }
      const valid = await webCrypto().subtle.verify("HMAC", await keyOf(), signature, payload);
      if (!valid) return { refused: "requestState is not a state of this server (its signature does not hold)" };
      const content: unknown = JSON.parse(decoder.decode(payload));
      if (!isRecord(content) || !isRecord(content["answers"]) || typeof content["expires"] !== "number") {
        return { refused: "requestState is not a state of this server" };
      }
      if (content["expires"] < Date.now()) return { refused: "requestState has expired" };
      if (content["call"] !== call) return { refused: "requestState is another call's" };
      if (content["owner"] !== (await tagOf(owner))) return { refused: "requestState is another user's" };
      return { answers: content["answers"] };
    },
  };
};

/** A server's signer and checker of states. */
export type StateKeeper = ReturnType<typeof stateKeeper>;

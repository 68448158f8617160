/**
 * The content helpers: a tool's result or a prompt's message built from text, images, audio,
 * embedded resources and resource links, without spelling MCP's JSON by hand.
 *
 * @module
 */
import type { Content, ContentAnnotations, ResourceContents } from "./protocol";

const annotated = <T extends object>(block: T, annotations: ContentAnnotations | undefined): T =>
  annotations === undefined ? block : { ...block, annotations };

/**
 * A text content block.
 *
 * @example
 * import { text } from "rpcserver/mcp";
 * text("hello"); // { type: "text", text: "hello" }
 *
 * @since 5.0.10
 * @category mcp
 */
export const text = (value: string, annotations?: ContentAnnotations): Content =>
  annotated({ type: "text" as const, text: value }, annotations);

/**
 * An image content block: its bytes in base64 and their MIME type.
 *
 * @example
 * import { image } from "rpcserver/mcp";
 * image("iVBORw0KGgo=", "image/png"); // { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }
 *
 * @since 5.0.10
 * @category mcp
 */
export const image = (data: string, mimeType: string, annotations?: ContentAnnotations): Content =>
  annotated({ type: "image" as const, data, mimeType }, annotations);

/**
 * An audio content block: its bytes in base64 and their MIME type.
 *
 * @example
 * import { audio } from "rpcserver/mcp";
 * audio("UklGRg==", "audio/wav"); // { type: "audio", data: "UklGRg==", mimeType: "audio/wav" }
 *
 * @since 5.0.10
 * @category mcp
 */
export const audio = (data: string, mimeType: string, annotations?: ContentAnnotations): Content =>
  annotated({ type: "audio" as const, data, mimeType }, annotations);

/**
 * An embedded resource: its contents (text, or a base64 `blob`) carried in the message.
 *
 * @example
 * import { embedded } from "rpcserver/mcp";
 * embedded({ uri: "test://a", mimeType: "text/plain", text: "A" });
 * // { type: "resource", resource: { uri: "test://a", mimeType: "text/plain", text: "A" } }
 *
 * @since 5.0.10
 * @category mcp
 */
export const embedded = (resource: ResourceContents, annotations?: ContentAnnotations): Content =>
  annotated({ type: "resource" as const, resource }, annotations);

/**
 * A link to a resource the client may read (`resources/read`), not its contents.
 *
 * @example
 * import { resourceLink } from "rpcserver/mcp";
 * resourceLink("file:///notes.txt", "notes", { mimeType: "text/plain" });
 * // { type: "resource_link", uri: "file:///notes.txt", name: "notes", mimeType: "text/plain" }
 *
 * @since 5.0.10
 * @category mcp
 */
export const resourceLink = (
  uri: string,
  name: string,
  more: { readonly title?: string; readonly description?: string; readonly mimeType?: string } = {},
): Content => ({ type: "resource_link", uri, name, ...more });

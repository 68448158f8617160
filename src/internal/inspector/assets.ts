/**
 * The inspector page's script and style sheet, and the hashes its Content-Security-Policy names
 * them by. Their sources are src/internal/inspector/page/ (browser TypeScript and CSS); the build
 * assembles them (scripts/inspector-page.cjs) and gives this module as four string constants, in
 * the built package (rollup.config.mjs) and in the tests (scripts/jest-inspector-assets.cjs). Here,
 * only their types: this file's body is never run.
 *
 * @module
 */

/** The page's one script: the parts of page/ in one function's scope, without their types and comments. */
export declare const SCRIPT: string;

/** The SHA-256 of `SCRIPT`'s UTF-8 bytes, in base64, as a Content-Security-Policy names it (`sha256-…`). */
export declare const SCRIPT_SHA256: string;

/** The page's style sheet (page/style.css). */
export declare const STYLE: string;

/** The SHA-256 of `STYLE`, as `SCRIPT_SHA256` is `SCRIPT`'s. */
export declare const STYLE_SHA256: string;

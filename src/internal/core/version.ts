/**
 * The package version.
 *
 * @example
 * import { __version__ } from "rpcserver";
 * __version__; // "5.0.10"
 *
 * @since 5.0.10
 * @category version
 */
export const __version__ = "5.0.10";

/** The package version, the TypeScript spelling of {@link __version__}. @since 5.0.10 @category version */
export const VERSION = __version__;

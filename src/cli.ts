/**
 * The `rpcserver` command's bin (package.json's `bin`; the build gives dist/esm/cli.js its shebang
 * and executable bit). Unlike the other entries, which only re-export, this one runs the command
 * when loaded, with the process's arguments, and exports nothing; the command itself (`main`) is
 * internal/node/cli.ts.
 *
 * @module
 */
import { messageOf } from "./internal/core/describe";
import { CliError, EXIT_FAILURE, main } from "./internal/node/cli";

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (thrown: unknown) => {
    process.stderr.write(`${thrown instanceof CliError ? thrown.message : `rpcserver: ${messageOf(thrown)}`}\n`);
    // exit() rather than exitCode: the module may hold the event loop open (timers, sockets).
    process.exit(thrown instanceof CliError ? thrown.exitCode : EXIT_FAILURE);
  },
);

/**
 * stdio: JSON-RPC over standard input and output, the transport of language servers and of tools
 * that a parent process drives. Two framings:
 *
 * - newline-delimited JSON (the default): one message per line, each answer on a line of its own;
 * - `--content-length`: LSP-style, each message preceded by a `Content-Length: <bytes>` header and a
 *   blank line (`\r\n\r\n`), and each answer framed the same way.
 *
 *     npm run build && printf '%s\n' '{"jsonrpc":"2.0","method":"whoami","id":1}' | RPC_TOKEN=token-of-ada node examples/integrations/stdio.mjs
 *     npm run build && printf 'Content-Length: 54\r\n\r\n{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}' | node examples/integrations/stdio.mjs --content-length
 *
 * Messages are dispatched as they arrive, concurrently, so answers may come out of order (the peer
 * matches them by id); a notification gets nothing. The caller is the parent process: its token,
 * in the RPC_TOKEN environment variable, names the user that reaches every method as the context.
 * Standard output carries only answers: anything else (the `log` method, errors) goes to stderr.
 * When standard input ends, the process answers what it has started, then exits.
 */
import { asyncDispatch } from "rpcserver";
import { MAX_BATCH_SIZE, methods, userFromToken } from "./methods.mjs";

const context = { user: userFromToken(process.env.RPC_TOKEN) };
const contentLength = process.argv.includes("--content-length");

const NEWLINE = 0x0a;
const HEADER_END = Buffer.from("\r\n\r\n");

/** Dispatches one message and writes its answer, if any, in the framing of the input. */
const handle = async (bytes) => {
  const text = await asyncDispatch(bytes, methods, { context, maxBatchSize: MAX_BATCH_SIZE });
  if (text === "") return;
  process.stdout.write(contentLength ? `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}` : `${text}\n`);
};

/** Takes every complete line off `buffer`; returns what is left (an incomplete line). */
const lines = (buffer) => {
  let start = 0;
  for (let end = buffer.indexOf(NEWLINE); end !== -1; end = buffer.indexOf(NEWLINE, start)) {
    const line = buffer.subarray(start, end);
    start = end + 1;
    if (line.toString("latin1").trim() !== "") void handle(line); // blank lines (and a lone \r) are skipped
  }
  return buffer.subarray(start);
};

/** Takes every complete `Content-Length` frame off `buffer`; returns what is left. */
const frames = (buffer) => {
  for (;;) {
    const headerEnd = buffer.indexOf(HEADER_END);
    if (headerEnd === -1) return buffer;
    const header = buffer.subarray(0, headerEnd).toString("latin1");
    const length = /^content-length:\s*(\d+)\s*$/im.exec(header)?.[1];
    if (length === undefined) {
      // Without a length the next message cannot be found: give up, as language servers do.
      console.error(`stdio: a header without Content-Length: ${JSON.stringify(header)}; stopping`);
      process.exitCode = 1;
      process.stdin.destroy();
      return Buffer.alloc(0);
    }
    const start = headerEnd + HEADER_END.length;
    if (buffer.length < start + Number(length)) return buffer;
    void handle(buffer.subarray(start, start + Number(length)));
    buffer = buffer.subarray(start + Number(length));
  }
};

let pending = Buffer.alloc(0);
process.stdin.on("data", (chunk) => {
  pending = (contentLength ? frames : lines)(Buffer.concat([pending, chunk]));
});
process.stdin.on("end", () => {
  if (pending.length === 0) return;
  if (contentLength) console.error(`stdio: input ended inside a message (${pending.length} bytes left unread)`);
  else lines(Buffer.concat([pending, Buffer.from("\n")])); // a last line without its \n
});

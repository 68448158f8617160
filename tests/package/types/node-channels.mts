// What a Node program does with rpcserver/connection's channels, compiled against the PACKED package
// by the type matrix (tests/runtime/types-matrix.mjs): TypeScript 5, 6 and 7 against @types/node 20,
// 22, 24 and the newest, under NodeNext and bundler resolution. No cast anywhere: `@types/node` 25
// and later refused every byteChannel() line below (issue 22), and a user's only way through was
// `as unknown as`.
import { spawn } from "node:child_process";
import { connect as tcp, createServer, type Socket } from "node:net";
import { MessageChannel, Worker } from "node:worker_threads";
import * as E from "fp-ts/lib/Either.js";
import * as t from "io-ts";
import { contract, implement, server } from "rpcserver";
import { client, local, type ClientError } from "rpcserver/client";
import {
  connect,
  contentLength,
  messagePort,
  newlineDelimited,
  byteChannel,
  type Connection,
} from "rpcserver/connection";

/** One contract types the server, the client over local() and every connection below. */
const api = contract({
  add: { params: t.tuple([t.number, t.number]), result: t.number },
  greet: { params: t.type({ name: t.string }), result: t.string },
});
const methods = implement(api, {
  add: (a, b) => E.right(a + b),
  greet: ({ name }) => E.right(`hi, ${name}`),
});

// A stdio server (MCP's, an LSP's): the first line of every such program.
const stdio: Connection = connect(byteChannel(process.stdin, process.stdout, contentLength()), { methods });

// A child process's pipes, the parent's side of the same.
const child = spawn(process.execPath, ["server.mjs"], { stdio: ["pipe", "pipe", "inherit"] });
const toChild: Connection = connect(byteChannel(child.stdout, child.stdin), { methods });
const childCalc = client(api, toChild.transport);
const sum: Promise<E.Either<ClientError, number>> = childCalc.add(1, 2)();

// A net.Socket, both ends: the server's accepted sockets and a client's.
const listening = createServer((socket: Socket) => {
  connect(byteChannel(socket, socket, newlineDelimited()), { methods });
}).listen(0);
const socket: Socket = tcp(4000, "127.0.0.1");
const overTcp = client(api, connect(byteChannel(socket, socket)).transport);
const greeting: Promise<E.Either<ClientError, string>> = overTcp.greet({ name: "ann" })();
// @ts-expect-error greet takes { name: string }
overTcp.greet({ name: 1 });

// worker_threads: a MessageChannel's port and a Worker.
const { port1 } = new MessageChannel();
const overPort: Connection = connect(messagePort(port1), { methods, cancellation: "mcp" });
const worker: Connection = connect(messagePort(new Worker(new URL("./worker.mjs", import.meta.url))));

// The same contract in-process, and served with a typed context.
const inProcess: Promise<E.Either<ClientError, number>> = client(api, local(methods)).add(2, 3)();
const app = server(api)
  .context<{ user: string }>()
  .implement({ add: (_ctx, a, b) => E.right(a + b), greet: (ctx, { name }) => E.right(`${ctx.user}: ${name}`) });
const answered: Promise<string> = app.dispatch('{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}', {
  user: "ann",
});

// @ts-expect-error a readable alone is not a channel: byteChannel() needs somewhere to write
byteChannel(process.stdin);
// @ts-expect-error a string is not a stream
byteChannel("stdin", process.stdout);

export { stdio, sum, listening, greeting, overPort, worker, inProcess, answered };

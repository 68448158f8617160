// rpcserver/server is the Node entry: its serve resolves to node:http's Server. Without Node's types
// this file must NOT compile; package.test.ts expects its errors, which shows that the check of the
// portable consumers can fail.
import { serve } from "rpcserver/server";

export const server = serve("localhost", 0);

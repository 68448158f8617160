/**
 * The contracts of the WebSocket example: what the server serves (`app`), and what the page serves
 * (`page`), for the server's pushes. Both ends import this file.
 */
import * as t from "io-ts";
import { contract } from "rpcserver";

export const app = contract({
  add: { params: t.tuple([t.number, t.number]), result: t.number, summary: "Adds two numbers" },
  subscribe: {
    params: t.type({ topic: t.string, count: t.number }),
    result: t.null,
    summary: "Pushes `count` news items on `topic` to the caller, as notifications",
  },
});

export const page = contract({
  news: { params: t.type({ topic: t.string, n: t.number }), summary: "One news item (a notification)" },
});

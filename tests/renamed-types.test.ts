/**
 * The names renamed in issue 33 (item 10: one name, one thing) and their deprecated aliases, kept
 * until 6.0 (CHANGELOG.md, "Renamed"). Type-level: `tsc -p tsconfig.json --noEmit` checks that each
 * old type is the new one exactly, and that the two former `HttpOptions` are not the same type
 * (which is why they were renamed); the runtime assertions check the value aliases and the old
 * entry. The old entry as the BUILT package exports it: tests/package.test.ts.
 */
import * as root from "../src";
import type { AnswerHttpOptions, HttpOptions as RootHttpOptions } from "../src";
import * as http from "../src/http";
import * as transport from "../src/transport";
import type { HttpOptions as ClientHttpOptions, HttpTransportOptions } from "../src/client";
import { byteChannel, streams } from "../src/connection";

/** `true` exactly when A and B are the same type. */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equals<A, B>): Equals<A, B> => proof;

describe("the deprecated type aliases are the new types", () => {
  test("rpcserver's HttpOptions is AnswerHttpOptions, both ways", () => {
    expect(same<RootHttpOptions, AnswerHttpOptions>(true)).toBe(true);
    const options: RootHttpOptions = { accept: "text/event-stream", maxBatchSize: 2 };
    const back: AnswerHttpOptions = options;
    const again: RootHttpOptions = back;
    expect(again).toBe(options);
  });

  test("rpcserver/client's HttpOptions is HttpTransportOptions, both ways", () => {
    expect(same<ClientHttpOptions, HttpTransportOptions>(true)).toBe(true);
    const options: ClientHttpOptions = { maxAnswerBytes: 1024 };
    const back: HttpTransportOptions = options;
    const again: ClientHttpOptions = back;
    expect(again).toBe(options);
  });

  test("the two former HttpOptions were two different things", () => {
    // @ts-expect-error answerHttp's options are not the http transport's
    same<AnswerHttpOptions, HttpTransportOptions>(true);
    // @ts-expect-error the transport takes no `accept`: answerHttp does
    const client: HttpTransportOptions = { accept: "text/event-stream" };
    // @ts-expect-error answerHttp takes no `maxAnswerBytes`: the transport does
    const server: AnswerHttpOptions = { maxAnswerBytes: 1024 };
    expect([client, server]).toHaveLength(2);
  });

  test("rpcserver/transport's types are rpcserver/http's", () => {
    expect(same<transport.HttpAnswer, http.HttpAnswer>(true)).toBe(true);
    expect(same<transport.HttpStreamAnswer, http.HttpStreamAnswer>(true)).toBe(true);
    expect(same<transport.AnswerHttpOptions, http.AnswerHttpOptions>(true)).toBe(true);
    expect(same<transport.HttpOptions, http.AnswerHttpOptions>(true)).toBe(true);
  });
});

describe("the deprecated value aliases are the new values", () => {
  test("rpcserver/connection's streams is byteChannel", () => {
    expect(streams).toBe(byteChannel);
  });

  test("rpcserver/transport exports the same functions as rpcserver/http", () => {
    expect(Object.keys(transport).sort()).toEqual(Object.keys(http).sort());
    expect(transport.toHttp).toBe(http.toHttp);
    expect(http.toHttp).toBe(root.toHttp);
  });
});

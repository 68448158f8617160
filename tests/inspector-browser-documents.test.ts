/**
 * Issue 26, the inspector page in headless Chromium against servers of this process (from the
 * sources: no build needed), with the documents and answers it must handle, found by the names a
 * screen reader uses, under the page's own Content-Security-Policy (a console error fails the
 * test), as in tests/inspector-browser.test.ts:
 *
 * - a method whose params are one whole value (an array of any length, a record), sent as that
 *   value; a method whose form cannot be built, chosen all the same with a request of its own; a
 *   document that cannot be shown, leaving the raw editor;
 * - what a hostile or broken service may send: objects where strings belong, a `$ref` that is not
 *   valid %-encoding, values and schemas nested 2,000 deep, `$ref`s that multiply into thousands
 *   of fields, event streams with CR line ends or without their answer;
 * - and a slow `rpc.discover`, which the page's opening waits for without compiling a string in
 *   the page (its policy refuses that).
 */
import * as t from "io-ts";
import { withParams } from "../src/methods";
import { Success } from "../src/result";
import {
  chromiumSuite,
  choose,
  field,
  focused,
  region,
  requestText,
  run,
  said,
  send,
  suffix,
  type Page,
} from "./helpers/chromium";

const suite = chromiumSuite();

/** The inspector page at `url`, once it has read the service's description; `failing`: see OpenOptions. */
const openPage = (url: string, failing?: readonly string[]): Promise<Page> =>
  suite.open(url, failing === undefined ? {} : { failing });

describe("documents and answers the page must handle", () => {
  /** A document of `methods`, answered by rpc.discover (after `delay` ms), beside the methods' handlers. */
  const described = (methods: unknown[], handlers: Record<string, () => unknown> = {}, delay = 0) =>
    suite.started.start({
      methods: {
        ...handlers,
        "rpc.discover": async () => {
          await new Promise((resolve) => setTimeout(resolve, delay));
          return Success({ openrpc: "1.2.6", info: { title: "t", version: "1" }, methods });
        },
      },
    });
  const nest = (depth: number): unknown => Array.from({ length: depth }).reduce<unknown>((value) => [value], 1);

  run(`a page that reads a slow rpc.discover opens (its wait polls without a string)${suffix}`, async () => {
    const page = await openPage(await described([{ name: "m", params: [] }], {}, 500));
    expect(await said(page, "The service describes 1 method")).toBe("The service describes 1 method");
  });

  run(
    `params that are one whole value (an array of any length, a record) are sent as that value${suffix}`,
    async () => {
      const url = await suite.started.start({
        methods: {
          sum: withParams(t.array(t.number), (...numbers: number[]) => Success(numbers.reduce((a, b) => a + b, 0))),
          dict: withParams(t.record(t.string, t.number), (value: Record<string, number>) => Success(value)),
        },
      });
      const page = await openPage(url);
      await choose(page, "sum");
      for (const [index, value] of ["1", "2", "3"].entries()) {
        await page.getByRole("button", { name: "Add item to params", exact: true }).click();
        await field(page, `params item ${index + 1}`).fill(value);
      }
      await page.getByRole("button", { name: "Remove params item 2", exact: true }).click();
      expect(await focused(page)).toBe("Remove params item 2"); // the item that took its place
      expect(JSON.parse(await requestText(page))).toMatchObject({ method: "sum", params: [1, 3] });
      await send(page);
      await said(page, "sum: result 4");
      await page.getByRole("button", { name: "Remove params item 2", exact: true }).click();
      await page.getByRole("button", { name: "Remove params item 1", exact: true }).click();
      expect(await focused(page)).toBe("Add item to params");

      await choose(page, "dict");
      await field(page, "params").fill('{"x": 1, "y": 2}');
      await send(page);
      await said(page, 'dict: result {"x":1,"y":2}');
    },
  );

  run(`a method whose form cannot be built is chosen with a raw request of its own${suffix}`, async () => {
    const enumParam = [{ name: "level", schema: { enum: ["low", "high"] } }];
    const url = await described(
      [
        { name: "first", params: [] },
        { name: "pick", params: enumParam },
      ],
      {
        first: () => Success("first ran"),
        pick: () => Success("pick ran"),
      },
    );
    const page = await openPage(url, []);
    await page.evaluate("window.failing = ['select']"); // the enum's select cannot be made
    await choose(page, "pick");
    expect(await said(page, "pick: no form (planted failure)")).toContain("write its request by hand");
    expect(await page.getByRole("button", { name: "pick", exact: true }).getAttribute("aria-current")).toBe("true");
    expect(JSON.parse(await requestText(page))).toMatchObject({ method: "pick", params: [] });
    expect(await focused(page)).toBe("Request (JSON)");
    await send(page);
    await said(page, 'pick: result "pick ran"');
  });

  run(`a document that cannot be shown leaves the raw editor, saying why${suffix}`, async () => {
    const page = await openPage(await described([{ name: "m", params: [] }]), ["ul"]);
    expect(await page.getByRole("navigation", { name: "Methods" }).innerText()).toContain(
      "No methods to list: the service's description could not be shown (planted failure).",
    );
  });

  run(`values that are not strings where strings belong, a bad $ref: shown as JSON${suffix}`, async () => {
    const odd = { toString: 1 };
    const method = {
      name: "m",
      tags: [{ name: odd }],
      params: [{ name: "p", schema: { $ref: "#/components/schemas/%E0%A4%A" } }],
      errors: [{ code: 1, message: odd }],
      examples: [{ name: odd, params: [] }],
    };
    const url = await suite.started.startRaw((request, res) => {
      const body =
        request.method === "rpc.discover" ? { result: { methods: [method] } } : { error: { code: 1, message: odd } };
      res
        .writeHead(200, { "Content-Type": "application/json" })
        .end(JSON.stringify({ jsonrpc: "2.0", ...body, id: request.id }));
    });
    const page = await openPage(url);
    expect(await page.getByRole("heading", { name: '{"toString":1}', exact: true }).count()).toBe(1);
    expect(await page.getByRole("region", { name: "Declared" }).innerText()).toContain('1 {"toString":1}');
    expect(await field(page, "p").count()).toBe(1);
    await send(page);
    await said(page, 'm: error 1 {"toString":1}');
    expect(await region(page).locator("dl.error").innerText()).toMatch(/Message\s+\{"toString":1\}/);
  });

  run(`values and schemas nested 2,000 deep are shown, cut at 100 levels, and sent whole${suffix}`, async () => {
    const deepSchema = Array.from({ length: 2000 }).reduce<unknown>((items) => ({ type: "array", items }), {});
    const example = [{ name: "e", params: [{ name: "p", value: nest(2000) }] }];
    const url = await described(
      [
        { name: "deep", params: [], result: { name: "r", schema: deepSchema } },
        { name: "echo", params: [{ name: "p", schema: {} }], examples: example },
      ],
      { deep: () => Success(nest(2000)), echo: () => Success(nest(2000)) },
    );
    const page = await openPage(url);
    await choose(page, "deep");
    expect(await page.getByRole("region", { name: "Declared" }).innerText()).toContain("…");
    await send(page);
    await said(page, "deep: result [[[");
    expect(await region(page).locator("pre").first().innerText()).toContain("…");
    await choose(page, "echo");
    expect(JSON.stringify((JSON.parse(await requestText(page)) as { params: unknown }).params)).toBe(
      JSON.stringify([nest(2000)]),
    );
  });

  run(`a form stops at 500 fields: $refs that multiply into more make JSON editors${suffix}`, async () => {
    const properties = (schema: unknown) => Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`p${i}`, schema]));
    const url = await suite.started.startRaw((request, res) => {
      const components = {
        schemas: {
          A: { type: "object", properties: properties({ $ref: "#/components/schemas/B" }) },
          B: { type: "object", properties: properties({ type: "string" }) },
        },
      };
      const methods = [{ name: "amp", params: [{ name: "x", schema: { $ref: "#/components/schemas/A" } }] }];
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", result: { methods, components }, id: request.id }));
    });
    const page = await openPage(url);
    expect(await page.locator("#params").getByText("More than 500 fields").count()).toBe(1);
    expect(await page.locator("#params textarea").count()).toBe(1);
    expect(await page.locator("#params input, #params select").count()).toBe(0);
    await field(page, "x").fill('{"p0": {"p1": "v"}}');
    expect(JSON.parse(await requestText(page))).toMatchObject({ params: [{ p0: { p1: "v" } }] });
  });

  run(`event streams: CR line ends; values then no answer: the answer never came${suffix}`, async () => {
    const value = (n: number, end: string) =>
      `data: {"jsonrpc":"2.0","method":"$/progress","params":{"token":1,"value":${n}}}${end}${end}`;
    let cut = false;
    const url = await suite.started.startRaw((request, res) => {
      const methods = [{ name: "s", params: [] }];
      if (request.method === "rpc.discover") {
        res.writeHead(200, { "Content-Type": "application/json" });
        return void res.end(JSON.stringify({ jsonrpc: "2.0", result: { methods }, id: request.id }));
      }
      res.writeHead(200, { "Content-Type": "text/event-stream" }).write(value(1, "\r") + value(2, "\r"));
      res.end(cut ? "" : `data: ${JSON.stringify({ jsonrpc: "2.0", result: 5, id: request.id })}\r\r`);
    });
    const page = await openPage(url);
    await send(page);
    await said(page, "s: result 5");
    expect(await region(page).getByRole("list", { name: "Streamed values" }).innerText()).toBe("1\n2");
    cut = true;
    await send(page);
    expect(await said(page, "s: the answer never came")).toMatch(/^s: the answer never came after 2 streamed values /);
    expect(await region(page).innerText()).not.toContain("notification");
  });
});

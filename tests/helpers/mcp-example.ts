/**
 * What examples/mcp's server lists (examples/mcp/app.mjs): its three tools, `add`'s input schema
 * from its io-ts codec. Each client that drives it (the SDK's, the Inspector's CLI) must see these.
 */
export const EXAMPLE_TOOLS: unknown[] = [
  expect.objectContaining({
    name: "add",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
  }),
  expect.objectContaining({ name: "sleep" }),
  expect.objectContaining({ name: "count" }),
];

/**
 * `validateOpenRPCDocument` of `@open-rpc/schema-utils-js`, in a child process: the package needs
 * an ES module (`@open-rpc/spec-types`) that Node's `require` loads but jest's module system cannot.
 * The child is a tool, not the runtime under test: it runs on the Node that runs npm (which can
 * `require` an ES module), also when the runtime matrix runs the suite on Node 18, which cannot.
 */
import { execFileSync } from "node:child_process";
import { ROOT } from "./processes";

const toolNode = process.env["npm_node_execpath"] ?? process.execPath;

/** `"true"` for a valid document, else the validator's message. */
export const validateOpenRPCDocument = (document: unknown): string => {
  const script = `
    const { validateOpenRPCDocument } = require("@open-rpc/schema-utils-js");
    let text = "";
    process.stdin.on("data", (chunk) => (text += chunk)).on("end", () => {
      const result = validateOpenRPCDocument(JSON.parse(text));
      process.stdout.write(result === true ? "true" : String(result && result.message ? result.message : result));
    });`;
  return execFileSync(toolNode, ["-e", script], { cwd: ROOT, input: JSON.stringify(document), encoding: "utf8" });
};

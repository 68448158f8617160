/**
 * scripts/jest-install-gate.cjs: which test files must wait, under npm test, for the install of the
 * runtimes, Chromium and nats-server. A file wrongly let through would race the install; these
 * cases pin the rule on fixtures whose only difference is what they name.
 */
import { join } from "node:path";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { needsInstall } = require("../scripts/jest-install-gate.cjs") as { needsInstall: (path: string) => boolean };
const fixture = (name: string): string => join(__dirname, "fixtures", "install-gate", name);

test("a file that names nothing the install brings, even through its imports, need not wait", () => {
  expect(needsInstall(fixture("plain.ts"))).toBe(false);
});

test("a file whose import names what the install brings waits, though its own text does not", () => {
  expect(needsInstall(fixture("through-helper.ts"))).toBe(true);
});

test("the suite's files that start a nats-server, a browser or another runtime wait; one that does none does not", () => {
  for (const name of ["nats-scale", "inspector-browser", "integrations", "deploy-docs", "contract-nested"]) {
    expect({ name, waits: needsInstall(join(__dirname, `${name}.test.ts`)) }).toEqual({ name, waits: true });
  }
  expect(needsInstall(join(__dirname, "validation.test.ts"))).toBe(false);
});

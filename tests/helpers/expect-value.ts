/**
 * The assertion that a TSDoc example's `// value` comment becomes (tests/helpers/tsdoc-examples.ts):
 * the statement's value, awaited when it is a Promise, deep-equals the value the comment shows.
 */
import { deepStrictEqual } from "node:assert";

export const expectValue = async (actual: unknown, expected: unknown, where: string): Promise<void> => {
  const value: unknown = actual instanceof Promise ? await actual : actual;
  try {
    deepStrictEqual(value, expected);
  } catch (failure) {
    throw new Error(`the example at ${where} shows ${JSON.stringify(expected)} but gives ${describe(value)}`, {
      cause: failure,
    });
  }
};

const describe = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
};

/**
 * The Response output form with `postProcess`, shared by the sync and async `*ToResponse` front
 * ends. (The other forms are `toSerializable` in `response.ts` and `writeAll` in `serializer.ts`.)
 *
 * @module
 * @internal
 */
import type { Env } from "./options";
import { serverError } from "./pipeline";
import type { Response } from "./response";

/** What the `*ToResponse` functions return: a Response (or what `postProcess` makes of it) per request. */
export type Processed<T> = T | T[] | undefined;

/** The Responses with `postProcess` applied to each; if it throws, the raw -32000 Response instead. */
export const processed = <T>(
  env: Env,
  postProcess: ((response: Response) => T) | undefined,
  responses: Response | Response[] | undefined,
): Processed<T> => {
  if (postProcess === undefined || responses === undefined) return responses as Processed<T>;
  try {
    return Array.isArray(responses) ? responses.map((response) => postProcess(response)) : postProcess(responses);
  } catch (thrown) {
    // postProcess is the caller's code: its failure is reported as a Response it did not shape.
    return serverError(env, thrown) as unknown as T;
  }
};

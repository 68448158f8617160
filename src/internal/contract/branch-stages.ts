/**
 * Stages of a branch or of one method: a server given as a branch of another
 * (`implement({ admin: adminServer })`), or as one method (`implement({ ban: banServer })`), brings
 * stages for its own methods alone. They join the enclosing server's list, after its own (the order
 * written), each scoped: it runs for a call whose method is under the branch's name (or is the
 * method's) and passes any other on untouched.
 *
 * @module
 */
import * as E from "fp-ts/Either";
import { isAround, type AnyStage, type Around, type Call } from "../core/stages";
import { joinName, nameUnder } from "./names";

/**
 * What a scoped stage stands for: the branch (or method) and the stage as written (a branch in a
 * branch, or a method in one, is scoped once, by its full name).
 */
const scopes = new WeakMap<object, { readonly where: string; readonly exact: boolean; readonly stage: AnyStage }>();

/** `stage`, run only for calls of methods under branch `where` (`exact`: of method `where` alone). @internal */
export const scoped = (where: string, stage: AnyStage, exact = false): AnyStage => {
  const inner = scopes.get(stage);
  if (inner !== undefined) return scoped(joinName(where, inner.where), inner.stage, inner.exact);
  const applies = exact
    ? (call: Call): boolean => call.request.method === where
    : (call: Call): boolean => nameUnder(where, call.request.method) !== undefined;
  const made: AnyStage = isAround(stage)
    ? ({
        _tag: "Around",
        asyncOnly: stage.asyncOnly,
        around: (F) => (next) => {
          const around = stage.around(F)(next);
          return (call) => (applies(call) ? around(call) : next(call));
        },
      } satisfies Around)
    : (call: Call<never>): unknown => (applies(call) ? stage(call) : E.right(call));
  scopes.set(made, { where, exact, stage });
  return made;
};

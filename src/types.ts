/**
 * rpcserver/types: the type-level helpers the library's own signatures compute with. A program
 * rarely writes them: they are what the compiler shows when it explains a type (a context a stage
 * refuses, a contract's refusal, the arguments a handler receives), and what a library built on
 * this one may name. The types a program writes in its own signatures (`Method`, `Methods`,
 * `Result`, `Response`, `Expects`, `NoContext`, `WithSignal`, `Contract`, `Handlers`, `Options`,
 * ...) are in the main entry.
 *
 * This entry holds types only: importing it loads nothing at run time.
 *
 * @example
 * import * as t from "io-ts";
 * import type { ContextOf, HandlerArgs } from "rpcserver/types";
 * type C = ContextOf<{ context: { token: string } }>; // { token: string }
 * type A = HandlerArgs<{ params: t.TupleC<[t.NumberC, t.NumberC]> }, C>; // [context: { token: string }, number, number]
 *
 * @module
 */

// The context a dispatch's methods receive, as its options and stages turn it.
export type {
  AddsSignal,
  After,
  ExpectedContext,
  Refused,
  StagesNotATuple,
  TypedAround,
  TypedStages,
} from "./internal/core/context-marks";
export type {
  CheckedStages,
  ContextOf,
  DispatchContext,
  MethodsFor,
  NoOptions,
  PostProcessed,
  StagesFit,
  TypedOptions,
} from "./internal/core/dispatch-context";

// A method's arguments and its context mark.
export type { ExpectsNone, ParamsArgs } from "./internal/core/methods";

// What a schema gives and takes.
export type { ResultOfSchema, WireOfSchema } from "./internal/core/schema";

// What a contract checks, and what its client and handlers take.
export type { CallArgsOf, Checked, ContractRefusal } from "./internal/contract/contract";
export type { BranchNames, BranchOf, LeafNames } from "./internal/contract/names";
export type { HandlerArgs } from "./internal/contract/implement";

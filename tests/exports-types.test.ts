/**
 * What the type-level entry (rpcserver/types) and the main entry export, as TypeScript reports it of
 * the sources: compile-only, so it runs once (scripts/test-runtimes.mjs, ONCE), not on every Node of
 * the runtime matrix as the rest of tests/exports.test.ts does.
 */
import { join } from "node:path";
import ts from "typescript";

test("the type-level helpers are in rpcserver/types, and no longer in the main entry", () => {
  const src = join(__dirname, "..", "src");
  const program = ts.createProgram([join(src, "index.ts"), join(src, "types.ts")], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
  });
  const checker = program.getTypeChecker();
  const exported = (file: string): string[] => {
    const source = program.getSourceFile(join(src, file));
    const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    return module === undefined ? [] : checker.getExportsOfModule(module).map((symbol) => symbol.name);
  };
  const moved = [
    "AddsSignal",
    "After",
    "BranchNames",
    "BranchOf",
    "CallArgsOf",
    "Checked",
    "CheckedStages",
    "ContextOf",
    "ContractRefusal",
    "DispatchContext",
    "ExpectedContext",
    "ExpectsNone",
    "HandlerArgs",
    "LeafNames",
    "MethodsFor",
    "NoOptions",
    "ParamsArgs",
    "PostProcessed",
    "Refused",
    "ResultOfSchema",
    "StagesFit",
    "StagesNotATuple",
    "TypedAround",
    "TypedOptions",
    "TypedStages",
    "WireOfSchema",
  ];
  expect(exported("types.ts").sort()).toEqual(moved);
  const main = exported("index.ts");
  expect(main.filter((name) => moved.includes(name))).toEqual([]);
  // What users write in their own signatures stays in the main entry.
  for (const name of ["Expects", "NoContext", "WithSignal", "Method", "Methods", "Result", "Response", "Contract"]) {
    expect(main).toContain(name);
  }
  for (const name of ["Handlers", "Options", "Stage", "Call", "MethodsWithoutContext", "ArgsOf", "ResultOf"]) {
    expect(main).toContain(name);
  }
});

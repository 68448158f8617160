// The API reports: the public surface of every entry of the package, written down so that a change
// to it is seen in review, never by accident (run after `npm run build`; it reads dist/esm).
//
//   node scripts/api-report.mjs          check: fails, printing the difference, when an entry's
//                                        surface differs from its committed report (npm run api:check)
//   node scripts/api-report.mjs --local  update the reports in api/ (npm run api)
//
// One report per subpath of the package.json exports map that has types (".", "./main", ...,
// "./types"): API Extractor (@microsoft/api-extractor) reads the subpath's ESM declarations
// (dist/esm/<entry>.d.ts) with the settings of api/api-extractor.json, which say which of its
// messages are silenced and why. The entries share one TypeScript program.
//
// Exits 1 when a report differs, is missing, or names an entry the exports map no longer has.
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { CompilerState, Extractor, ExtractorConfig } from "@microsoft/api-extractor";
import ts from "typescript";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const API = join(ROOT, "api");
const CONFIG = join(API, "api-extractor.json");
const local = process.argv.includes("--local");

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

/** Each subpath with ESM types, its declaration file and its report's name ("rpcserver-client.api.md"). */
const entries = Object.entries(pkg.exports)
  .map(([subpath, target]) => [subpath, target?.import?.types])
  .filter(([, types]) => typeof types === "string")
  .map(([subpath, types]) => ({
    subpath,
    dts: join(ROOT, types),
    report: `${subpath === "." ? pkg.name : `${pkg.name}-${subpath.slice(2).replace(/\//g, "-")}`}.api.md`,
  }));

const missing = entries.filter((entry) => !existsSync(entry.dts));
if (missing.length > 0) {
  console.error(
    `api-report: ${missing.map((entry) => relative(ROOT, entry.dts)).join(", ")} missing; run \`npm run build\` first`,
  );
  process.exit(1);
}

const failures = [];
const base = ExtractorConfig.loadFile(CONFIG);

// First, the declarations compile as a user's compiler reads them, with skipLibCheck off: a
// declaration marked `@internal` that a kept one refers to is stripped (stripInternal) and leaves a
// dangling name, which API Extractor meets as an internal error rather than a message.
{
  const { options } = ts.convertCompilerOptionsFromJson(
    { ...base.compiler.overrideTsconfig.compilerOptions, skipLibCheck: false },
    ROOT,
  );
  const diagnostics = ts.getPreEmitDiagnostics(
    ts.createProgram(
      entries.map((entry) => entry.dts),
      options,
    ),
  );
  if (diagnostics.length > 0) {
    const host = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => ROOT, getNewLine: () => "\n" };
    console.error(ts.formatDiagnostics(diagnostics, host));
    console.error(
      "api-report: the built declarations do not compile (above). A name missing from a .d.ts is often one " +
        "marked @internal that a public declaration refers to: stripInternal removed it.",
    );
    process.exit(1);
  }
}
const configOf = (entry) =>
  ExtractorConfig.prepare({
    configObject: {
      ...base,
      mainEntryPointFilePath: entry.dts,
      apiReport: { ...base.apiReport, reportFileName: entry.report },
    },
    configObjectFullPath: CONFIG,
    packageJsonFullPath: join(ROOT, "package.json"),
  });

const configs = entries.map(configOf);
// One program for every entry: they share their declarations (dist/esm/internal).
const compilerState = CompilerState.create(configs[0], { additionalEntryPoints: entries.map((entry) => entry.dts) });

for (const [index, entry] of entries.entries()) {
  const result = Extractor.invoke(configs[index], {
    localBuild: local,
    compilerState,
    printApiReportDiff: true,
    messageCallback: (message) => {
      // The version notice and the per-entry progress lines: noise once per entry. With --local,
      // "updated" below says what API Extractor's own "you have changed the API" lines say.
      if (message.logLevel === "info" || message.logLevel === "verbose") message.handled = true;
      if (local && /^console-api-report-(copied|created)$/.test(message.messageId)) message.handled = true;
    },
  });
  const where = `api/${entry.report} (${entry.subpath})`;
  if (local) {
    console.log(`${result.apiReportChanged ? "updated  " : "unchanged"} ${where}`);
    if (result.errorCount > 0) failures.push(`${where}: ${result.errorCount} error(s)`);
  } else if (!result.succeeded) {
    failures.push(
      result.apiReportChanged
        ? `${where}: the surface differs from the committed report (above)`
        : `${where}: ${result.errorCount} error(s), ${result.warningCount} warning(s) (above)`,
    );
  } else {
    console.log(`ok ${where}`);
  }
}

// A report whose entry is gone from the exports map is stale: the surface lost a whole subpath.
const expected = new Set(entries.map((entry) => entry.report));
for (const file of readdirSync(API).filter((name) => name.endsWith(".api.md") && !expected.has(name))) {
  if (local) {
    rmSync(join(API, file));
    console.log(`removed   api/${file} (no such entry in the exports map)`);
  } else {
    failures.push(`api/${file}: no such entry in the exports map (remove it with \`npm run api\`)`);
  }
}

if (failures.length > 0) {
  console.error(`\napi-report: FAILED\n${failures.map((failure) => `  - ${failure}`).join("\n")}`);
  if (!local) console.error("If the change is meant: `npm run api`, and commit api/ with it.");
  process.exit(1);
}
console.log(`\napi-report: ${local ? "reports written" : "ok"} (${entries.length} entries)`);

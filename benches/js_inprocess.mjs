#!/usr/bin/env node
// certify of a JavaScript reducer function in process (reducer-kit's npm
// package, certify(fn)) against the same function behind the runner
// protocol in persistent mode (a small Node wire program calling it), on the
// same cases, in one run each.
//
// Run it after `bash js/ci.sh`, which leaves the package installed in
// target/js-ci/project (with js/test/reducers.mjs beside it), and with a
// release build of the command line:
//
//   cargo build --release && node benches/js_inprocess.mjs [--cases N] [--repeat R] [--function F] [--bin BIN]
//
// The function is js/test/reducers.mjs's suffixOpenAi (policy suffix, format
// openai), which passes every level: no shrinking in either run; or lastN,
// which fails and is shrunk. The wire program reads and writes JSON with the
// package's parse and answerText, the converters certify uses, so that both
// runs judge the same answers. Both runs have one worker (--jobs 1). Prints
// one line per run and the ratio (benches/README.md has the figure).

import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = dirname(dirname(fileURLToPath(import.meta.url)));
const args = { cases: 2000, repeat: 1, function: "suffixOpenAi", bin: join(repo, "target/release/reducer-kit") };
for (let i = 2; i < process.argv.length; i += 2) {
  const key = process.argv[i].replace(/^--/, "");
  if (!(key in args)) {
    console.error(`unknown option ${process.argv[i]}; the options are --cases, --repeat, --function, --bin`);
    process.exit(2);
  }
  args[key] = typeof args[key] === "number" ? Number(process.argv[i + 1]) : process.argv[i + 1];
}
const project = join(repo, "target/js-ci/project");
const packageDir = join(project, "node_modules/reducer-kit");
if (!existsSync(packageDir) || !existsSync(join(project, "test/reducers.mjs"))) {
  console.error(`no installed package in ${project}: run bash js/ci.sh first`);
  process.exit(2);
}
if (!existsSync(args.bin)) {
  console.error(`no command line at ${args.bin}: cargo build --release, or --bin BIN`);
  process.exit(2);
}
const kit = await import(pathToFileURL(join(packageDir, "index.js")));
const reducers = await import(pathToFileURL(join(project, "test/reducers.mjs")));
const fn = reducers[args.function];
if (typeof fn !== "function") {
  console.error(`no function ${args.function} in js/test/reducers.mjs`);
  process.exit(2);
}

const wire = join(project, "wire.mjs");
writeFileSync(
  wire,
  `import { createInterface } from "node:readline";
import { answerText, errorText, parse } from "reducer-kit";
import { ${args.function} as fn } from "./test/reducers.mjs";

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  let out;
  try {
    out = answerText(line, fn(parse(line)));
  } catch (e) {
    out = errorText(line, e);
  }
  process.stdout.write(out + "\\n");
}
`,
);

function best(runs, f) {
  let time = Infinity;
  let out;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    out = f();
    time = Math.min(time, (performance.now() - started) / 1000);
  }
  return [time, out];
}

const [tIn, report] = best(args.repeat, () =>
  kit.certifySync(fn, { policy: "suffix", format: "openai", cases: args.cases }),
);
const [tWire, certificate] = best(args.repeat, () => {
  const out = spawnSync(
    args.bin,
    ["certify", "--policy", "suffix", "--format", "openai", "--persistent", "--cases", String(args.cases), "--jobs", "1", "--", process.execPath, wire],
    { encoding: "utf8", maxBuffer: 1 << 28 },
  );
  if (out.status !== 0 && out.status !== 1) {
    console.error(`the wire run failed (exit ${out.status}):\n${out.stdout.slice(-3000)}${out.stderr.slice(-2000)}`);
    process.exit(1);
  }
  return out.stdout.trim().split("\n").at(-2);
});
if (certificate !== report.certificate) {
  console.error(`the runs differ:\n  ${certificate}\n  ${report.certificate}`);
  process.exit(1);
}
const cases = report.casesRun;
console.log(`in process (certify(fn), 1 worker): ${tIn.toFixed(3)} s, ${cases} cases, ${((1e6 * tIn) / cases).toFixed(0)} us per case`);
console.log(`persistent wire program, --jobs 1:  ${tWire.toFixed(3)} s, ${((1e6 * tWire) / cases).toFixed(0)} us per case`);
console.log(`wire / in process: ${(tWire / tIn).toFixed(2)}x`);
console.log(report.certificate);

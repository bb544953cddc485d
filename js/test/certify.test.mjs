// certify(fn) in process: the whole battery against a JavaScript function
// (the installed package, js/ci.sh).

import { test } from "node:test";
import assert from "node:assert/strict";
import { assertCertified, certify, certifySync, parse, ReducerKitError, stringify, JsonNumber } from "reducer-kit";
import { lastN, referenceSuffix, suffixOpenAi } from "./reducers.mjs";

let naive;
async function naiveReport() {
  naive ??= await certify(lastN, { policy: "suffix", format: "openai" });
  return naive;
}

test("a plain last-N function fails with a counterexample of at most 4 messages", async () => {
  const r = await naiveReport();
  assert.ok(!r.passed && r.failed);
  assert.ok(r.levels.protocol && !r.levels.safety);
  assert.ok(r.failingClauses.includes("no-orphan-result"), r.failingClauses);
  const cx = r.counterexamples.find((c) => c.clause === "no-orphan-result");
  assert.ok(cx.messages.length <= 4, cx.text);
  assert.notEqual(cx.validInput, false);
  assert.notDeepEqual(cx.actual, cx.expected);
  assert.ok(cx.text.includes("every result in the output has its call in an earlier output message"), cx.text);
  assert.ok(r.clauses["no-orphan-result"].defects > 0);
  assert.equal(r.json.mode, "in-process");
  assert.ok(r.certificate.startsWith("certificate: reducer-kit "));
  assert.ok(r.certificate.includes("policy suffix format openai"), r.certificate);
});

test("stopAfterFirst stops a failing run at its first defect; assertCertified stops so by default", async () => {
  const stopped = await certify(lastN, { policy: "suffix", format: "openai", stopAfterFirst: true });
  assert.ok(stopped.failed && stopped.counterexamples.length > 0);
  const first = stopped.json.stoppedAtFirstDefect;
  assert.equal(first.case, stopped.json.firstDefect.case);
  assert.ok(first.notRun > 1900 && stopped.casesRun < 50, JSON.stringify([first, stopped.casesRun]));
  await assert.rejects(assertCertified(lastN, { policy: "suffix", format: "openai" }), (e) => {
    assert.equal(e.report.casesRun, stopped.casesRun);
    assert.equal(e.report.json.stoppedAtFirstDefect.notRun, first.notRun);
    return true;
  });
});

test("the HTML report draws each counterexample from the library", async () => {
  const r = await naiveReport();
  const page = r.html();
  assert.ok(page.startsWith("<!DOCTYPE html>"));
  assert.ok(!page.includes("<script"));
  // One section per input: an input failing several clauses is drawn once,
  // and every counterexample keeps its anchor cx-N.
  const drawn = [...new Set(r.counterexamples.map((c) => c.drawnAs))].sort((a, b) => a - b);
  assert.deepEqual(drawn, drawn.map((_, k) => k));
  assert.equal(page.split('<section class="cx"').length - 1, drawn.length);
  assert.equal(page.split(' id="cx-').length - 1, r.counterexamples.length);
  for (const c of r.counterexamples) {
    const heading = c.text.split("\n")[0];
    assert.ok(heading.split(" (")[0].replace("minimal counterexample for ", "").split(", ").includes(c.clause), heading);
  }
  const i = r.counterexamples.findIndex((c) => c.clause === "no-orphan-result");
  const section = page.split(` id="cx-${i + 1}">`)[1].split("</section>")[0];
  assert.ok(section.includes("<code>no-orphan-result</code>"), section);
  assert.ok(section.includes("orphan: no call earlier in the answer"), section);
  assert.ok(section.includes("reproduce: certify(lastN, {"), section);
});

test("the hints are the text report's", async () => {
  const r = await naiveReport();
  const said = r.text.split("\n").filter((l) => l.startsWith("hint: ")).map((l) => l.slice("hint: ".length));
  assert.deepEqual(r.hints, said);
  assert.deepEqual(r.hints, r.json.hints);
});

test("assertCertified throws with the minimal counterexample", async () => {
  await assert.rejects(assertCertified(lastN, { policy: "suffix", format: "openai", cases: 300 }), (e) => {
    const lines = e.message.split("\n");
    assert.ok(lines[0].startsWith("lastN is not certified: certificate: "), lines[0]);
    assert.ok(lines[1].startsWith("minimal counterexample for "), lines[1]);
    for (const field of ["  clause:", "  failure:", "  input:", "  expected (reference):", "  actual (reducer):"]) {
      assert.ok(lines.some((l) => l.startsWith(field)), field);
    }
    const rerun = lines.find((l) => l.startsWith("  reproduce: "));
    assert.ok(rerun.includes('certify(lastN, { policy: "suffix", format: "openai", only: ["'), rerun);
    return true;
  });
});

test("the rerun reruns the case", async () => {
  const cx = (await naiveReport()).counterexamples[0];
  const again = certifySync(lastN, { policy: "suffix", format: "openai", only: [cx.originalId] });
  assert.equal(again.casesRun, 1);
  assert.ok(again.failed && again.failingClauses.includes(cx.clause));
});

test("a correct suffix function passes every level", async () => {
  const started = performance.now();
  const r = await assertCertified(suffixOpenAi, { policy: "suffix", format: "openai" });
  const took = (performance.now() - started) / 1000;
  assert.ok(r.passed && !r.failed);
  assert.deepEqual(r.levels, { protocol: true, safety: true, policy: true, exact: true });
  assert.ok(r.casesRun > 1900, String(r.casesRun));
  assert.equal(r.counterexamples.length, 0);
  assert.ok(r.certificate.includes("levels passed [protocol, safety, policy, exact]"), r.certificate);
  console.log(`certify(suffixOpenAi): ${r.casesRun} cases in ${took.toFixed(2)} s`);
});

test("an async function works, and passes as the sync one does", async () => {
  let calls = 0;
  async function asyncSuffix(request) {
    calls++;
    await new Promise((resolve) => setImmediate(resolve));
    return suffixOpenAi(request);
  }
  // The run goes on in a worker: this thread's event loop keeps turning.
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const r = await certify(asyncSuffix, { policy: "suffix", format: "openai", cases: 200 });
  clearInterval(timer);
  assert.ok(r.passed, r.explain());
  assert.ok(calls > 200);
  assert.ok(ticks > 0);
  // A function that is not declared async but returns a Promise.
  const promising = (request) => Promise.resolve(lastN(request));
  const bad = await certify(promising, { policy: "suffix", format: "openai", cases: 200 });
  assert.ok(bad.failingClauses.includes("no-orphan-result"));
  const cx = bad.counterexamples.find((c) => c.clause === "no-orphan-result");
  assert.ok(cx.messages.length <= 4, cx.text);
});

test("the reference called from JavaScript passes under protocol 2", async () => {
  const r = await certify(referenceSuffix, { policy: "suffix", format: "openai", protocol: 2, cases: 300 });
  assert.ok(r.passed, r.explain());
  assert.equal(r.json.spec, 2);
});

test("a thrown error is an error answer; an answer that is not JSON fails protocol-json", async () => {
  const throws = () => {
    throw new Error("no budget I know");
  };
  const r = certifySync(throws, { policy: "suffix", format: "openai", cases: 20 });
  assert.ok(r.levels.protocol);
  assert.ok(r.failed);
  const nan = (request) => ({ messages: request.messages, score: NaN });
  const j = certifySync(nan, { policy: "suffix", format: "openai", cases: 20 });
  assert.ok(j.failingClauses.includes("protocol-json"), j.failingClauses);
});

test("options the command line refuses are refused with its text", async () => {
  await assert.rejects(certify(lastN, { policy: "nope" }), {
    name: "ReducerKitError",
    message: 'unknown policy "nope"; the policies are: turns, suffix, repair',
  });
  await assert.rejects(certify(lastN, { without: "nope" }), ReducerKitError);
});

test("numbers come back exactly", () => {
  const text = '{"maxMessages":3.0,"messages":[{"role":"user","content":"x","n":1.0,"big":12345678901234567890,"e":1e+2,"f":0.5}]}';
  const v = parse(text);
  assert.equal(v.maxMessages, 3);
  assert.ok(v.messages[0].n instanceof JsonNumber);
  assert.equal(v.messages[0].f, 0.5);
  assert.equal(stringify(v.messages), '[{"role":"user","content":"x","n":1.0,"big":12345678901234567890,"e":1e+2,"f":0.5}]');
  assert.ok(parse('{"maxMessages":3.5000000000000000001,"messages":[]}').maxMessages instanceof JsonNumber);
});

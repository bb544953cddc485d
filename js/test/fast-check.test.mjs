// The fast-check arbitraries (the installed package, js/ci.sh).

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { check, validate } from "reducer-kit";
import { budgets, histories, requests } from "reducer-kit/fast-check";
import { lastN, suffixOpenAi } from "./reducers.mjs";

for (const format of ["canonical", "openai"]) {
  test(`1,000 draws of histories(${format}) are valid`, () => {
    let toolBearing = 0;
    fc.assert(
      fc.property(histories({ format }), (messages) => {
        assert.deepEqual(validate(messages, { format }), []);
        if (JSON.stringify(messages).includes(format === "openai" ? "tool_call" : "functionCall")) toolBearing++;
      }),
      { numRuns: 1000, seed: 1 },
    );
    assert.ok(toolBearing > 50, String(toolBearing));
  });
}

const fails = (request, reducer) =>
  check(request, reducer(request), { policy: "suffix", format: "openai" }).filter((v) => v.failed).map((v) => v.clause);

test("a correct reducer passes every drawn request", () => {
  fc.assert(fc.property(requests({ format: "openai" }), (r) => assert.deepEqual(fails(r, suffixOpenAi), [])), { numRuns: 300, seed: 2 });
});

test("a fast-check property on a buggy reducer finds and shrinks the bug", () => {
  const sizes = [];
  const out = fc.check(
    fc.property(requests({ format: "openai" }), (r) => {
      const failing = fails(r, lastN).includes("no-orphan-result");
      if (failing) sizes.push(r.messages.length);
      return !failing;
    }),
    { numRuns: 2000, seed: 3 },
  );
  assert.ok(out.failed, "the bug was not found");
  const minimal = out.counterexample[0];
  const messages = minimal.messages;
  assert.ok(messages.length <= 6 && messages.length < Math.max(...sizes), JSON.stringify({ sizes: sizes.slice(0, 20), messages }));
  assert.equal(messages.at(-1).role, "tool");
  assert.ok(minimal.maxMessages < messages.length);
});

test("budgets and knobs", () => {
  fc.assert(fc.property(budgets({ maxValue: 5 }), (b) => Number.isInteger(b) && b >= 1 && b <= 5), { numRuns: 100 });
  const bad = fc.sample(budgets({ invalid: true }), { numRuns: 300, seed: 4 });
  assert.ok(bad.some((b) => !Number.isInteger(b)));
  fc.assert(
    fc.property(histories({ format: "openai", without: ["tool-calls"] }), (m) => !JSON.stringify(m).includes("tool_call")),
    { numRuns: 100, seed: 5 },
  );
  assert.throws(() => histories({ nope: true }), /unknown generator knob "nope"/);
});

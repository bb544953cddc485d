// Certify a chat-history reducer from Node's test runner: install the kit's
// npm tarball (today built from this repository, js/README.md "Building
// from source"; after a release, `npm install reducer-kit`), then
// `node --test examples/js/my-reducer.test.mjs`.
//
// myReducer keeps the newest messages of an OpenAI Chat Completions
// conversation but never starts the kept part on a tool result, so that no
// result outlives the assistant message that called its tool: policy suffix
// of the kit's contract (spec/spec.md §4). Chat Completions has no tool
// approvals, and a run in the `openai` format sends none (spec/spec.md
// §9.5): no option is needed. The fast-check property names the clause a
// drawn request breaks.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { assertCertified, check } from "reducer-kit";
import { requests } from "reducer-kit/fast-check";

/** The pinned system prompt and the newest maxMessages other messages, the start moved past tool results. */
export function myReducer({ maxMessages: n, messages }) {
  if (typeof n !== "number" || !(n >= 1) || (Number.isFinite(n) && !Number.isInteger(n))) {
    throw new Error(`maxMessages must be a whole number >= 1, got ${JSON.stringify(n)}`);
  }
  const role = messages.map((m) => String(m.role).toLowerCase());
  const system = role.findIndex((r) => r === "system" || r === "developer");
  const rest = messages.map((_, i) => i).filter((i) => i !== system);
  let start = Math.max(0, rest.length - Math.min(n, rest.length));
  while (start < rest.length && role[rest[start]] === "tool") start++;
  const kept = [...(system >= 0 ? [system] : []), ...rest.slice(start)].sort((a, b) => a - b);
  return kept.map((i) => messages[i]);
}

test("myReducer is a suffix reducer", async () => {
  await assertCertified(myReducer, { policy: "suffix", format: "openai" });
});

test("myReducer leaves no orphan result on any drawn request", () => {
  fc.assert(fc.property(requests({ format: "openai" }), (request) => {
    const verdicts = check(request, myReducer(request), { policy: "suffix", format: "openai" });
    assert.deepEqual(verdicts.filter((v) => v.failed).map((v) => `${v.clause}: ${v.detail}`), []);
  }));
});

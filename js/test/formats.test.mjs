// A run's default cases are those its format carries (spec §9.5): an
// application's trimmer, written as plain JavaScript over the request (the
// ports of examples/reducers/openai_trimmer.py and anthropic_trimmer.py),
// passes every level in process with no option; the shapes outside the
// format run only on request (`with`).

import { test } from "node:test";
import assert from "node:assert/strict";
import { assertCertified, certify, ReducerKitError } from "reducer-kit";

/** The budget as an application takes it: an integer >= 1, else an Error. */
function budgetOf(n) {
  if (!Number.isInteger(n) || n < 1) throw new Error(`maxMessages must be an integer >= 1, got ${JSON.stringify(n)}`);
  return n;
}

/** OpenAI Chat Completions: the system message and the newest messages that fit, never starting on a tool result. */
export function openAiTrimmer({ maxMessages, messages }) {
  const n = budgetOf(maxMessages);
  const pinned = messages.findIndex((m) => m.role === "system" || m.role === "developer");
  const rest = messages.map((_, i) => i).filter((i) => i !== pinned);
  let start = Math.max(0, rest.length - n);
  while (start < rest.length && messages[rest[start]].role === "tool") start++;
  const kept = [...rest.slice(start), ...(pinned >= 0 ? [pinned] : [])].sort((a, b) => a - b);
  const unanswered = new Map();
  const out = [];
  for (const i of kept) {
    const m = messages[i];
    if (m.role === "tool") {
      const open = unanswered.get(m.tool_call_id) ?? 0;
      if (open === 0) continue;
      unanswered.set(m.tool_call_id, open - 1);
    }
    for (const c of m.tool_calls ?? []) unanswered.set(c.id, (unanswered.get(c.id) ?? 0) + 1);
    out.push(m);
  }
  return { messages: out };
}

const blocks = (m) => (typeof m.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m.content) ? m.content : []);

/** Anthropic Messages: the top-level system and the newest messages that fit, never starting on tool results. */
export function anthropicTrimmer(request) {
  const n = budgetOf(request.maxMessages);
  const messages = request.messages;
  let start = Math.max(0, messages.length - n);
  while (start < messages.length && blocks(messages[start]).some((b) => b?.type === "tool_result")) start++;
  const unanswered = new Map();
  const out = [];
  for (const m of messages.slice(start)) {
    const kept = [];
    let dropped = false;
    for (const b of blocks(m)) {
      if (b?.type === "tool_result") {
        const open = unanswered.get(b.tool_use_id) ?? 0;
        if (open === 0) {
          dropped = true;
          continue;
        }
        unanswered.set(b.tool_use_id, open - 1);
      }
      kept.push(b);
    }
    for (const b of blocks(m)) if (b?.type === "tool_use") unanswered.set(b.id, (unanswered.get(b.id) ?? 0) + 1);
    if (!dropped) out.push(m);
    else if (kept.length > 0) out.push({ ...m, content: kept });
  }
  return "system" in request ? { system: request.system, messages: out } : { messages: out };
}

const OUTSIDE = ["role-case", "approvals", "legacy-approvals", "non-double-numbers", "budget-spellings"];

for (const [fn, format] of [[openAiTrimmer, "openai"], [anthropicTrimmer, "anthropic"]]) {
  test(`an ${format} trimmer passes every level with no option`, async () => {
    const r = await assertCertified(fn, { policy: "suffix", format });
    assert.deepEqual(r.levels, { protocol: true, safety: true, policy: true, exact: true });
    assert.deepEqual(r.json.outside, OUTSIDE);
    assert.deepEqual(r.json.with, []);
    assert.ok(r.casesRun > 1900, String(r.casesRun));
    const skipped = r.json.results.filter((c) => c.status === "skip").map((c) => c.skipped);
    assert.ok(skipped.includes(`approval items (approvals): outside a default in-process ${format} run; --with approvals runs it`), skipped.join("\n"));
  });
}

test("the shapes outside the format run on request", async () => {
  const approvals = await certify(openAiTrimmer, { policy: "suffix", format: "openai", with: ["approvals"], cases: 300 });
  assert.ok(!approvals.passed);
  assert.ok(approvals.failingClauses.includes("no-orphan-approval"), approvals.failingClauses);
  assert.ok(approvals.certificate.endsWith("; with approvals"), approvals.certificate);
  // The binding gives a whole budget as a number (3.0 is 3): of the budgets
  // written other than as an integer, only those that are no budget reach
  // the function, and it refuses them.
  const spellings = await certify(openAiTrimmer, { policy: "suffix", format: "openai", with: "budget-spellings", cases: 0 });
  assert.deepEqual(spellings.failingClauses, []);
  assert.equal(spellings.clauses["protocol-budget"].passed, 6);
});

test("with names only what a default run leaves out", async () => {
  await assert.rejects(certify(openAiTrimmer, { format: "openai", with: ["pending"] }), (e) => {
    assert.ok(e instanceof ReducerKitError);
    assert.ok(e.message.startsWith("--with pending: a default in-process openai run has it already"), e.message);
    return true;
  });
});

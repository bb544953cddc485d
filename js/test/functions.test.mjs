// validate / check / reduce / generate on plain arrays: the command line's
// clause ids, details and errors (the installed package, js/ci.sh).

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { check, FORMATS, stringify, generate, generateFromBytes, reduce, ReducerKitError, validate, version } from "reducer-kit";

// A tool round in OpenAI Chat Completions.
export const OPENAI = [
  { role: "system", content: "be brief" },
  { role: "user", content: "weather?" },
  { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "w", arguments: "{}" } }] },
  { role: "tool", tool_call_id: "c1", content: "sunny" },
  { role: "assistant", content: "sunny" },
];
const GEMINI = [{ role: "user", parts: [{ text: "hi" }] }];

/** The command line, when js/ci.sh found one (REDUCER_KIT_BIN): its stdout, stderr and exit code. */
function cli(args, history) {
  const bin = process.env.REDUCER_KIT_BIN;
  if (!bin) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "rk-"));
  writeFileSync(join(dir, "h.json"), JSON.stringify(history));
  const r = spawnSync(bin, [...args, join(dir, "h.json")], { encoding: "utf8" });
  return { stdout: r.stdout.replaceAll(join(dir, "h.json"), "h.json"), stderr: r.stderr.replaceAll(join(dir, "h.json"), "h.json"), code: r.status };
}

test("the version is the kit's", () => {
  assert.match(version, /^\d+\.\d+\.\d+/);
  const bin = process.env.REDUCER_KIT_BIN;
  if (bin) assert.ok(execFileSync(bin, ["--version"], { encoding: "utf8" }).includes(version));
});

test("validate gives the command line's violations", () => {
  const broken = [...OPENAI.slice(0, 2), ...OPENAI.slice(3)];
  const found = validate(broken, { format: "openai" });
  assert.deepEqual(found.map((v) => v.rule), ["result-follows-call"]);
  assert.equal(found[0].index, 2);
  assert.equal(found[0].id, "c1");
  assert.match(found[0].text, /^result-follows-call: message 2, id "c1"/);
  const out = cli(["validate", "--format", "openai"], broken);
  if (out) {
    assert.equal(out.code, 1);
    assert.ok(out.stdout.includes(`h.json: ${found[0].text}`), out.stdout);
  }
  assert.deepEqual(validate(OPENAI, { format: "openai" }), []);
  const pending = OPENAI.slice(0, 3);
  assert.deepEqual(validate(pending, { format: "openai" }).map((v) => v.rule), ["calls-answered"]);
  assert.deepEqual(validate(pending, { format: "openai", allowPending: true }), []);
});

test("a history in another format is refused with the command line's text", () => {
  assert.throws(
    () => validate(GEMINI, { format: "openai" }),
    (e) => {
      assert.ok(e instanceof ReducerKitError && e instanceof Error);
      assert.equal(
        e.message,
        "history: no message has the shape of openai messages (`content` strings or parts, `tool_calls`, `tool_call_id`); they look like gemini: try --format gemini",
      );
      const out = cli(["validate", "--format", "openai"], GEMINI);
      if (out) assert.ok(out.stderr.includes(e.message.split(": ").slice(1).join(": ")), out.stderr);
      return true;
    },
  );
  assert.throws(() => validate(OPENAI, { format: "nope" }), {
    message: "unknown format \"nope\"; the formats are: canonical, openai, anthropic, responses, gemini, bedrock",
  });
  assert.deepEqual(FORMATS, ["canonical", "openai", "anthropic", "responses", "gemini", "bedrock"]);
});

test("reduce is the reference, and a bad budget is the kit's error", () => {
  const kept = reduce(OPENAI, { policy: "suffix", format: "openai", maxMessages: 2 });
  assert.deepEqual(kept, [OPENAI[0], OPENAI[4]]);
  const envelope = reduce({ messages: OPENAI, maxMessages: 3 }, { policy: "turns", format: "openai" });
  assert.ok(Array.isArray(envelope.messages));
  assert.throws(() => reduce(OPENAI, { format: "openai", maxMessages: 2.5 }), (e) => e instanceof ReducerKitError && /maxMessages/.test(e.message));
  assert.throws(() => reduce(OPENAI, { format: "openai" }), ReducerKitError);
});

test("check gives the command line's verdicts", () => {
  const verdicts = check(OPENAI, OPENAI.slice(3), { policy: "suffix", format: "openai", maxMessages: 2 });
  const failed = verdicts.filter((v) => v.failed).map((v) => v.clause);
  assert.ok(failed.includes("no-orphan-result"), failed);
  const orphan = verdicts.find((v) => v.clause === "no-orphan-result");
  assert.equal(orphan.level, "safety");
  assert.equal(orphan.outcome, "fail");
  assert.ok(orphan.detail.length > 0 && orphan.definition.length > 0);
  const good = check(OPENAI, reduce(OPENAI, { policy: "suffix", format: "openai", maxMessages: 2 }), { policy: "suffix", format: "openai", maxMessages: 2 });
  assert.deepEqual(good.filter((v) => v.failed), []);
  assert.throws(() => check(OPENAI, 42, { policy: "suffix", format: "openai", maxMessages: 2 }), {
    message: 'output: expected an array of messages, {"messages": [...]} or {"error": "..."}',
  });
});

test("generate gives the command line's cases", () => {
  const cases = generate({ count: 3, seed: 7, format: "openai", policy: "suffix" });
  assert.deepEqual(cases.map((c) => c.id), ["gen/7/0", "gen/7/1", "gen/7/2"]);
  const bin = process.env.REDUCER_KIT_BIN;
  if (bin) {
    const out = execFileSync(bin, ["generate", "--count", "3", "--seed", "7", "--format", "openai", "--policy", "suffix"], { encoding: "utf8" });
    // Compared as text: numbers as the command line writes them (1.0).
    assert.deepEqual(cases.map((c) => stringify(c)), out.trim().split("\n"));
  }
});

test("generateFromBytes draws a valid history, or undefined", () => {
  const d = generateFromBytes(new Uint8Array(64).fill(7), { format: "openai" });
  assert.ok(d === undefined || validate(d.messages, { format: "openai", allowPending: d.allowPending }).length === 0);
  assert.throws(() => generateFromBytes([], { nope: 1 }), /unknown generator knob "nope"/);
});

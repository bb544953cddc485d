// reducer-kit from JavaScript and TypeScript: certify a chat-history reducer
// function in process. The kit's Rust library (every clause, wire format and
// generator rule) runs in WebAssembly (`wasm/`, built from js/src/lib.rs);
// this module turns values into JSON text and back, and drives `certify`.
// The types and each function's documentation: index.d.ts.

import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const native = require("./wasm/reducer_kit_js.js");

/** The wire formats (docs/formats.md). */
export const FORMATS = Object.freeze(["canonical", "openai", "anthropic", "responses", "gemini", "bedrock"]);
/** The policies (spec §3, §4). */
export const POLICIES = Object.freeze(["turns", "suffix"]);
/** The provider profiles (spec §15). */
export const PROVIDERS = Object.freeze(["openai-chat", "openai-responses", "anthropic", "gemini", "bedrock"]);
/** The kit's version. */
export const version = native.version();

/** An error of reducer-kit, with the command line's text. */
export class ReducerKitError extends Error {
  constructor(message) {
    super(message);
    this.name = "ReducerKitError";
  }
}

/** `e` from the WebAssembly module as a ReducerKitError (a panic: an internal error). */
function translate(e) {
  if (e instanceof WebAssembly.RuntimeError) {
    const panic = native.lastPanic();
    return new ReducerKitError(
      `internal error (a bug of reducer-kit, please report it): ${panic ?? e.message}`,
    );
  }
  if (e instanceof Error && e.constructor === Error) {
    return new ReducerKitError(e.message);
  }
  return e;
}

function call(f) {
  try {
    return f();
  } catch (e) {
    throw translate(e);
  }
}

// ---------------------------------------------------------------------------
// Numbers kept exactly. A request's number whose text JavaScript would not
// write back the same (`1.0`, `1e2`, `12345678901234567890`) is given to a
// reducer as a JsonNumber, which writes its own text back: a message a
// reducer keeps comes back as it came (the kit compares numbers by text,
// spec §8.4).

const MARK = "\u0000reducer-kit-number:";
const MARKED = /"\\u0000reducer-kit-number:([^"]*)"/g;

/** A JSON number that JavaScript's numbers would not write back the same: its text. */
export class JsonNumber {
  constructor(text) {
    this.text = text;
  }
  valueOf() {
    return Number(this.text);
  }
  toString() {
    return this.text;
  }
  toJSON() {
    return MARK + this.text;
  }
}

/** Whether the decimal `text` is a whole number. */
function wholeText(text) {
  const m = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return false;
  const digits = m[1] + (m[2] ?? "");
  const point = m[1].length + Number(m[3] ?? 0);
  return /^0*$/.test(digits.slice(Math.max(0, point)));
}

/** The budget members, whose whole numbers are given as numbers (`3.0` as 3). */
const BUDGET = ["maxMessages", "maxTokens", "countPinned", "summaryTokens"];

/** JSON text as values, numbers exact (JsonNumber), as certify gives a request to a reducer. */
export function parse(text) {
  return parseMarked(text, native.markNumbers(text));
}

/**
 * `text` as values; `marked`: the same text with the numbers JavaScript
 * would not write back the same as marked strings (markNumbers, in the
 * WebAssembly module), or undefined when it has none.
 */
function parseMarked(text, marked) {
  if (marked === undefined) return JSON.parse(text);
  const v = JSON.parse(marked, (_k, x) => (typeof x === "string" && x.startsWith(MARK) ? new JsonNumber(x.slice(MARK.length)) : x));
  if (v !== null && typeof v === "object" && !Array.isArray(v)) {
    const plain = (x) => (x instanceof JsonNumber && wholeText(x.text) ? Number(x.text) : x);
    for (const k of BUDGET) if (k in v) v[k] = plain(v[k]);
    if (Array.isArray(v.tokens)) v.tokens = v.tokens.map(plain);
  }
  return v;
}

/** Values as compact JSON text, a JsonNumber as its text; TypeError for what is not JSON. */
export function stringify(value) {
  return toJson(value, "the value");
}

/** Non-finite numbers are no JSON: a replacer that says so. */
function finite(_key, value) {
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw new TypeError(`${value} is not JSON`);
  }
  if (typeof value === "bigint") {
    return JSON.rawJSON ? JSON.rawJSON(value.toString()) : Number(value);
  }
  return value;
}

function toJson(value, what) {
  let text;
  try {
    text = JSON.stringify(value, finite);
  } catch (e) {
    throw new TypeError(`${what} is not JSON: ${e.message}`);
  }
  if (text === undefined) {
    throw new TypeError(`${what} is not JSON: ${typeof value}`);
  }
  return text.includes("\\u0000reducer-kit-number:") ? text.replace(MARKED, "$1") : text;
}

/** A request envelope: `history` (an array of messages or an envelope) with the budget members given. */
function request(history, o = {}) {
  const r = Array.isArray(history) ? { messages: history } : { ...history };
  for (const k of ["maxMessages", "maxTokens", "tokens", "countPinned"]) {
    if (o[k] !== undefined) r[k] = o[k];
  }
  if (o.maxMessages !== undefined && o.maxTokens === undefined) delete r.maxTokens;
  if (o.maxTokens !== undefined && o.maxMessages === undefined) delete r.maxMessages;
  return r;
}

export function validate(history, { format = "canonical", allowPending = false, provider } = {}) {
  const text = toJson(request(history), "history");
  return JSON.parse(call(() => native.validate(text, format, allowPending, provider)));
}

export function reduce(history, { policy = "turns", format = "canonical", provider, ...budget } = {}) {
  const text = toJson(request(history, budget), "history");
  return parse(call(() => native.reduce(text, policy, format, provider, Array.isArray(history))));
}

export function check(history, output, { policy, format = "canonical", provider, summaries = false, summaryTokens, ...budget } = {}) {
  if (policy === undefined) throw new ReducerKitError("check needs a policy (turns or suffix)");
  const input = toJson(request(history, budget), "input");
  const out = toJson(output, "output");
  const verdicts = JSON.parse(
    call(() => native.check(input, out, policy, format, provider, summaries, summaryTokens)),
  );
  return verdicts.map((v) => ({ ...v, failed: v.outcome === "fail" }));
}

export function generate({ count = 100, seed = 1, format = "canonical", policy = "turns", config } = {}) {
  const c = config === undefined ? undefined : toJson(config, "config");
  return parse(call(() => native.generate(count, seed, format, policy, c)));
}

/** Comma-separated names from a string or an array. */
function names(x) {
  if (x === undefined || x === null) return "";
  return typeof x === "string" ? x : x.join(",");
}

export function generateFromBytes(bytes, { format = "canonical", protocol = 1, without, swarm, ...knobs } = {}) {
  const k = Object.keys(knobs).length ? toJson(knobs, "knobs") : undefined;
  const out = call(() =>
    native.draw(Uint8Array.from(bytes), format, protocol, names(without), k, swarm && Uint8Array.from(swarm)),
  );
  return out === undefined ? undefined : parse(out);
}

export function generatorKnobs(format = "canonical", protocol = 1) {
  return JSON.parse(call(() => native.generatorKnobs(format, protocol)));
}

// ---------------------------------------------------------------------------
// certify: the reducer's answers.

/** Thrown from a synchronous run at the first answer that is a Promise. */
class AsyncAnswer extends Error {}

function isThenable(x) {
  return x !== null && (typeof x === "object" || typeof x === "function") && typeof x.then === "function";
}

/** The id member of a request's text under protocol 2 (`{"id":7,...`), as text. */
function idOf(text) {
  if (!text.startsWith('{"id":')) return undefined;
  const end = text.indexOf(",", 6);
  return end < 0 ? undefined : text.slice(6, end);
}

/** The answer line for what the reducer returned (`out`) to the request `text`. */
export function answerText(text, out) {
  const id = idOf(text);
  let body;
  try {
    if (Array.isArray(out)) {
      body = `{${id !== undefined ? `"id":${id},` : ""}"messages":${toJson(out, "the answer")}}`;
    } else {
      const json = toJson(out, "the answer");
      if (id !== undefined && out !== null && typeof out === "object" && !("id" in out)) {
        body = json.length > 2 ? `{"id":${id},${json.slice(1)}` : `{"id":${id}}`;
      } else {
        body = json;
      }
    }
  } catch (e) {
    // Not JSON: what it is, where the kit reads a line that is not JSON
    // (`protocol-json`, naming what was written).
    return `<not JSON: ${e.message}>`;
  }
  return body;
}

/** The error answer for what the reducer threw. */
export function errorText(text, e) {
  const id = idOf(text);
  let message = e instanceof Error ? e.message : String(e);
  if (!message) message = (e && e.constructor && e.constructor.name) || "an exception";
  return `{${id !== undefined ? `"id":${id},` : ""}"error":${JSON.stringify(message)}}`;
}

/** The function of text the WebAssembly run calls: the reducer's answers, synchronously. */
function syncAnswerer(fn) {
  return (text, marked) => {
    const req = parseMarked(text, marked);
    let out;
    try {
      out = fn(req);
    } catch (e) {
      return errorText(text, e);
    }
    if (isThenable(out)) {
      out.then(undefined, () => {});
      throw new AsyncAnswer("the reducer answered with a Promise");
    }
    return answerText(text, out);
  };
}

function nameOf(fn) {
  return (fn && fn.name) || "reducer";
}

function nativeOptions(fn, o) {
  const name = o.name ?? nameOf(fn);
  const rerunOptions = [`policy: ${JSON.stringify(o.policy ?? "turns")}`, `format: ${JSON.stringify(o.format ?? "canonical")}`];
  for (const [k, d] of [["protocol", 1], ["summaries", false], ["provider", undefined], ["declare", ""], ["with", ""], ["without", ""], ["seed", 1], ["corpus", undefined], ["replay", undefined]]) {
    const v = k === "declare" || k === "with" || k === "without" ? names(o[k]) : o[k];
    if (v !== undefined && v !== d) rerunOptions.push(`${k}: ${JSON.stringify(v)}`);
  }
  return toJson(
    {
      name,
      policy: o.policy ?? "turns",
      format: o.format ?? "canonical",
      provider: o.provider,
      protocol: o.protocol ?? 1,
      summaries: o.summaries ?? false,
      declare: names(o.declare),
      without: names(o.without),
      with: names(o.with),
      cases: o.cases ?? 2000,
      seed: o.seed ?? 1,
      corpus: o.corpus,
      replay: o.replay,
      only: o.only,
      shrinkTries: o.shrinkTries ?? 200,
      shrinkTime: o.shrinkTime ?? 30,
      maxOutput: o.maxOutput ?? 16 << 20,
      stopAfterFirst: o.stopAfterFirst ?? false,
      rerun: `certify(${name}, { ${rerunOptions.join(", ")}, only: [{case}] })`,
    },
    "the options",
  );
}

/** The text report's counterexamples, each its heading and indented lines. */
function counterexampleBlocks(text) {
  const blocks = [];
  let current = null;
  for (const line of text.split("\n")) {
    if (line.startsWith("minimal counterexample for ")) {
      current = [line];
      blocks.push(current);
    } else if (current && line.startsWith("  ")) {
      current.push(line);
    } else {
      current = null;
    }
  }
  return blocks.map((b) => b.join("\n"));
}

/** The text report's first failing case, or its end. */
function firstFailure(text) {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith("FAIL ") || lines[i].startsWith("stopped")) {
      const block = [lines[i]];
      for (const more of lines.slice(i + 1)) {
        if (!more.startsWith("  ")) break;
        block.push(more);
      }
      return block.join("\n");
    }
  }
  return lines.slice(-12).join("\n");
}

export class Report {
  constructor(name, found) {
    const report = found.report;
    this.name = name;
    this.json = report;
    this.text = found.text;
    this.htmlText = found.html;
    this.passed = Boolean(report.passed);
    this.failed = Boolean(found.failed);
    this.levels = report.levels;
    this.clauses = report.clauses;
    this.certificate = report.certificate;
    this.casesRun = report.casesRun;
    this.casesSkipped = report.casesSkipped;
    const blocks = counterexampleBlocks(this.text);
    // One input failing several clauses is one block of the text report
    // (its `drawnAs`); each of its counterexamples gets that block.
    this.counterexamples = report.counterexamples.map((cx, i) => ({ ...cx, text: blocks[cx.drawnAs ?? i] ?? "" }));
    /** What the answers suggest to change or declare: the text report's `hint:` lines. */
    this.hints = report.hints ?? [];
  }

  /** The HTML report, as `reducer-kit certify --report-html` writes it: one self-contained page. */
  html() {
    return this.htmlText;
  }

  get failingClauses() {
    return Object.entries(this.clauses)
      .filter(([, row]) => (row.defects ?? row.failed) > 0)
      .map(([c]) => c);
  }

  explain() {
    const lines = [`${this.name} is not certified: ${this.certificate}`];
    if (this.counterexamples.length) {
      const first = this.counterexamples[0];
      lines.push(first.text);
      // The clauses the first block does not already show.
      const rest = this.counterexamples
        .slice(1)
        .filter((c) => c.drawnAs === undefined || c.drawnAs !== first.drawnAs)
        .map((c) => c.clause);
      if (rest.length) {
        // One entry per clause, with how many kinds of failure it had.
        const kinds = new Map();
        for (const c of rest) kinds.set(c, (kinds.get(c) ?? 0) + 1);
        const named = [...kinds].map(([c, n]) => (n === 1 ? c : `${c} (${n} kinds)`)).join(", ");
        const noun = rest.length === 1 ? "counterexample" : "counterexamples";
        lines.push(`(${rest.length} more ${noun}: ${named}; report.text has them all)`);
      }
    } else {
      lines.push(firstFailure(this.text));
    }
    return lines.join("\n");
  }

  toString() {
    return this.text;
  }
}

export function certifySync(fn, options = {}) {
  if (typeof fn !== "function") throw new TypeError("certify: the reducer must be a function");
  const opts = nativeOptions(fn, options);
  const found = call(() => native.certify(syncAnswerer(fn), opts));
  return new Report(options.name ?? nameOf(fn), JSON.parse(found));
}

export async function certify(fn, options = {}) {
  if (typeof fn !== "function") throw new TypeError("certify: the reducer must be a function");
  if (fn.constructor && fn.constructor.name !== "AsyncFunction") {
    try {
      return certifySync(fn, options);
    } catch (e) {
      if (!(e instanceof AsyncAnswer)) throw e;
    }
  }
  return certifyInWorker(fn, options);
}

/**
 * An async reducer: the run goes on in a worker thread (`worker.js`) that
 * blocks on each answer (Atomics.wait) while this thread awaits the
 * reducer and sends the answer back.
 */
async function certifyInWorker(fn, options) {
  const { Worker, MessageChannel } = await import("node:worker_threads");
  const opts = nativeOptions(fn, options);
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL("./worker.js", import.meta.url), {
    workerData: { options: opts, flag, port: port2 },
    transferList: [port2],
  });
  port1.on("message", async ([text, marked]) => {
    let answer;
    try {
      const req = parseMarked(text, marked);
      let out;
      try {
        out = await fn(req);
        answer = answerText(text, out);
      } catch (e) {
        answer = errorText(text, e);
      }
    } catch (e) {
      answer = { stop: String(e && e.message) };
    }
    port1.postMessage(answer);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  });
  try {
    const done = await new Promise((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new ReducerKitError(`the certify worker exited (${code})`)));
    });
    if (done.error !== undefined) throw new ReducerKitError(done.error);
    return new Report(options.name ?? nameOf(fn), JSON.parse(done.found));
  } finally {
    port1.close();
    await worker.terminate();
  }
}

export async function assertCertified(fn, options = {}) {
  // A failing reducer goes red at its first defect, shrunk; a passing one
  // still runs every case.
  const report = await certify(fn, { stopAfterFirst: true, ...options });
  if (report.failed || !report.passed) {
    const e = new Error(report.explain());
    e.name = "AssertionError";
    e.report = report;
    throw e;
  }
  return report;
}

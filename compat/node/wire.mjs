// What every Node compat adapter shares: runner protocol v1 of reducer-kit
// (spec/spec.md section 8), the draft token fields of protocol v2, and the
// rule that kept messages go back exactly as they came.
//
// An adapter exports nothing; it calls
//
//     serve({ format, pkg, reduce, configs, defaultConfig })
//
// where `reduce(request)` (may be async) returns an array whose entries are
// either messages of the request (`request.messages[i]`, written back as the
// exact JSON text they were read as) or plain objects (a message the library
// made or changed, written with JSON.stringify in the wire format). A thrown
// error answers {"error": ...}. The library is imported inside `reduce` (via
// `load`), so every adapter passes `node --check` and `--probe` says "not
// installed" cleanly where node_modules is missing.
//
// Command line: node adapter.mjs [--config NAME] [--persistent] [--probe]
//
// Request ids (protocol 2): a request that carries "id" gets it back, as the
// exact text it was sent with, as the first member of its answer: {"id": 17,
// "messages": [...]}, {"id": 17, "error": ...} or {"id": 17, "unsupported":
// why} (throw `Unsupported` for a request the library cannot express; the
// budget is checked before `reduce` runs, so a bad budget is an error).
//
// JavaScript numbers are doubles, so the request is never re-serialised:
// the scanner below finds the exact text of every element of `messages`
// (and of `system`), and JSON.parse of that text gives the data handed to
// the library.

import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";
import fs from "node:fs";

const here = path.dirname(fileURLToPath(import.meta.url));

export class BadRequest extends Error {}
// The request asks for something the library cannot express: answered
// {"id": N, "unsupported": why} under protocol 2 (a request with an id),
// {"error": why} without an id, as before ids existed.
export class Unsupported extends Error {}

// --- a JSON scanner that keeps the text of values ----------------------------

function skipWs(s, i) {
  while (i < s.length && (s[i] === " " || s[i] === "\t" || s[i] === "\n" || s[i] === "\r")) i++;
  return i;
}

function scanString(s, i) {
  // s[i] === '"'; returns the index after the closing quote
  i++;
  while (i < s.length) {
    const c = s[i];
    if (c === "\\") i += 2;
    else if (c === '"') return i + 1;
    else i++;
  }
  throw new BadRequest("unterminated string");
}

// Returns the index just after the value starting at i (after whitespace).
function scanValue(s, i) {
  i = skipWs(s, i);
  const c = s[i];
  if (c === '"') return scanString(s, i);
  if (c === "{" || c === "[") {
    const close = c === "{" ? "}" : "]";
    i = skipWs(s, i + 1);
    if (s[i] === close) return i + 1;
    for (;;) {
      if (c === "{") {
        i = skipWs(s, i);
        if (s[i] !== '"') throw new BadRequest("expected a member name");
        i = skipWs(s, scanString(s, i));
        if (s[i] !== ":") throw new BadRequest("expected ':'");
        i++;
      }
      i = skipWs(s, scanValue(s, i));
      if (s[i] === ",") { i++; continue; }
      if (s[i] === close) return i + 1;
      throw new BadRequest("expected ',' or '" + close + "'");
    }
  }
  const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(s.slice(i, i + 400));
  if (!m) throw new BadRequest("invalid JSON at offset " + i);
  return i + m[0].length;
}

// The members of a top-level object as [name, rawText] pairs.
function members(s) {
  let i = skipWs(s, 0);
  if (s[i] !== "{") throw new BadRequest("the request is not a JSON object");
  const out = [];
  i = skipWs(s, i + 1);
  if (s[i] === "}") return out;
  for (;;) {
    i = skipWs(s, i);
    const ks = i;
    i = scanString(s, i);
    const name = JSON.parse(s.slice(ks, i));
    i = skipWs(s, i);
    if (s[i] !== ":") throw new BadRequest("expected ':'");
    const vs = skipWs(s, i + 1);
    i = scanValue(s, vs);
    out.push([name, s.slice(vs, i)]);
    i = skipWs(s, i);
    if (s[i] === ",") { i++; continue; }
    if (s[i] === "}") break;
    throw new BadRequest("expected ',' or '}'");
  }
  if (skipWs(s, i + 1) !== s.length) throw new BadRequest("text after the request object");
  return out;
}

// The raw texts of the elements of a JSON array text.
function elements(text) {
  let i = skipWs(text, 0);
  if (text[i] !== "[") throw new BadRequest("`messages` is not an array");
  const out = [];
  i = skipWs(text, i + 1);
  if (text[i] === "]") return out;
  for (;;) {
    const vs = skipWs(text, i);
    i = scanValue(text, vs);
    out.push(text.slice(vs, i));
    i = skipWs(text, i);
    if (text[i] === ",") { i++; continue; }
    if (text[i] === "]") return out;
    throw new BadRequest("expected ',' or ']'");
  }
}

// --- budgets, as the kit reads them (spec/spec.md section 2) ---------------------

// A JSON number text whose value is a whole number >= min; a huge one is
// "no limit" (Number.MAX_SAFE_INTEGER). Exact: works on the digits.
function parseWhole(text, name, min) {
  const bad = new BadRequest(`${name} must be an integer >= ${min}, got ${text}`);
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text ?? "");
  if (!m) throw bad;
  const [, sign, int, frac = "", exp = "0"] = m;
  let digits = (int + frac).replace(/^0+/, "");
  let e = Number(exp) - frac.length; // value = digits * 10^e
  if (digits === "") return check(0);
  while (digits.endsWith("0")) { digits = digits.slice(0, -1); e++; }
  if (sign === "-") throw bad;
  if (e < 0) throw bad; // a fraction
  if (digits.length + e > 19) return Number.MAX_SAFE_INTEGER;
  return check(Number(BigInt(digits) * 10n ** BigInt(e)));
  function check(v) {
    if (v < min) throw bad;
    return Math.min(v, Number.MAX_SAFE_INTEGER);
  }
}

// --- requests -------------------------------------------------------------------

export class Message {
  constructor(raw, index, role) {
    this.raw = raw; // the exact JSON text
    this.data = JSON.parse(raw); // plain data for the library
    this.index = index; // -1: Anthropic's top-level system prompt
    this.role = role; // lowercased, developer read as system
    this.pinned = false;
    this.tokenCost = 1;
  }
}

// The role of a Responses input item without a `role` member (the kit's view,
// src/formats/responses.rs): an output item is a tool message, an approval
// response a user message, any other item an assistant message.
function responsesRole(type) {
  if (typeof type !== "string") return undefined;
  if (type.endsWith("_output")) return "tool";
  if (type === "mcp_approval_response") return "user";
  return "assistant";
}
export class Request {
  constructor(line, format, config) {
    this.format = format;
    this.config = config;
    const m = new Map(members(line)); // a duplicate member: the last one wins
    if (!m.has("messages")) throw new BadRequest("`messages` is not an array");
    this.messages = [];
    if (format === "anthropic" && m.has("system")) {
      const sys = new Message(JSON.stringify({ role: "system", content: null }), -1, "system");
      sys.systemRaw = m.get("system");
      sys.data.content = JSON.parse(sys.systemRaw);
      this.messages.push(sys);
    }
    elements(m.get("messages")).forEach((raw, i) => {
      let data;
      try { data = JSON.parse(raw); } catch { throw new BadRequest(`message ${i} is not JSON`); }
      if (data === null || typeof data !== "object" || Array.isArray(data)) {
        throw new BadRequest(`message ${i} has no string \`role\``);
      }
      const given = format === "responses" && typeof data.role !== "string" ? responsesRole(data.type) : data.role;
      if (typeof given !== "string") throw new BadRequest(`message ${i} has no string \`role\``);
      const role = given.replace(/[A-Z]/g, (c) => c.toLowerCase());
      this.messages.push(new Message(raw, i, role === "developer" ? "system" : role));
    });
    this.pinned = this.messages.find((x) => x.role === "system") ?? null;
    if (this.pinned) this.pinned.pinned = true;
    if (m.has("maxMessages") && m.has("maxTokens")) {
      throw new BadRequest("the request has both maxMessages and maxTokens (exactly one is allowed)");
    }
    if (m.has("maxMessages") || !m.has("maxTokens")) {
      this.budgetKind = "messages";
      this.budget = parseWhole(m.get("maxMessages"), "maxMessages", 1);
      this.countPinned = false;
    } else {
      this.budgetKind = "tokens";
      this.budget = parseWhole(m.get("maxTokens"), "maxTokens", 1);
      const wire = this.messages.filter((x) => x.index >= 0);
      const tokens = m.has("tokens") ? elements(m.get("tokens")) : null;
      if (!tokens || tokens.length !== wire.length) {
        throw new BadRequest("`tokens` must be an array with one cost per message");
      }
      wire.forEach((x, i) => { x.tokenCost = parseWhole(tokens[i], `tokens[${i}]`, 0); });
      const cp = m.has("countPinned") ? JSON.parse(m.get("countPinned")) : false;
      if (typeof cp !== "boolean") throw new BadRequest("`countPinned` must be true or false");
      this.countPinned = cp;
      if (cp && this.pinned && this.pinned.tokenCost > this.budget) {
        throw new BadRequest(`countPinned: the pinned system message alone costs ${this.pinned.tokenCost} > maxTokens ${this.budget}`);
      }
    }
    const summary = m.has("summary") ? JSON.parse(m.get("summary")) : false;
    if (typeof summary !== "boolean") throw new BadRequest("`summary` must be true or false");
    this.summary = summary;
    this.summaryTokens = m.has("summaryTokens") ? parseWhole(m.get("summaryTokens"), "summaryTokens", 0) : 1;
  }

  // 1 per message under v1, its `tokens` entry under v2; the pinned system
  // message 0 unless countPinned.
  cost(message) {
    if (message.pinned && !this.countPinned) return 0;
    return message.tokenCost;
  }

  createdCost() {
    return this.summaryTokens;
  }
}

// `out` with the pinned system message put back at its original place among the
// kept messages, for a library that keeps the system prompt beside the history
// (first, unless the history had messages before it; a made message counts as
// later).
export function withPinned(request, out) {
  const p = request.pinned;
  if (!p) return out;
  let at = 0;
  while (at < out.length && out[at] instanceof Message && out[at].index < p.index) at++;
  return [...out.slice(0, at), p, ...out.slice(at)];
}

// --- libraries -------------------------------------------------------------------

export class LibraryMissing extends Error {}

// Imports a package from compat/node/node_modules.
export async function load(pkg) {
  const require = createRequire(path.join(here, "package.json"));
  let resolved;
  try {
    resolved = require.resolve(pkg);
  } catch (e) {
    // ESM-only packages have no "require" export; find their entry by import
    try {
      return await import(pkg);
    } catch (e2) {
      throw new LibraryMissing(`${pkg} is not installed (${e2.code ?? e2.message}); run compat/run, which runs npm ci in compat/node`);
    }
  }
  return import(resolved.startsWith("/") ? "file://" + resolved : resolved);
}

function installedVersion(pkg) {
  const file = path.join(here, "node_modules", ...pkg.split("/"), "package.json");
  return JSON.parse(fs.readFileSync(file, "utf8")).version;
}

// A message written as exact JSON text (see withItems).
export class RawJson {
  constructor(text) {
    this.text = text;
  }
}

// The message `m` with only the elements at `keep` (indices) of its array
// member `key`, every other member and every kept element as the exact text
// it was read as: how an adapter writes back a message from which the library
// took some items out.
export function withItems(m, key, keep) {
  const parts = members(m.raw).map(([name, raw]) => {
    let text = raw;
    if (name === key && raw.trimStart().startsWith("[")) {
      text = "[" + elements(raw).filter((_, k) => keep.has(k)).join(",") + "]";
    }
    return JSON.stringify(name) + ":" + text;
  });
  return new RawJson("{" + parts.join(",") + "}");
}

// --- running ---------------------------------------------------------------------

function answerText(request, out) {
  let system;
  const parts = [];
  for (const e of out) {
    if (e instanceof Message) {
      if (e.index < 0) { system = e.systemRaw; continue; }
      parts.push(e.raw);
    } else if (e instanceof RawJson) {
      parts.push(e.text);
    } else {
      parts.push(JSON.stringify(e));
    }
  }
  const body = "[" + parts.join(",") + "]";
  return system !== undefined ? `{"system":${system},"messages":${body}}` : `{"messages":${body}}`;
}

// `body` (the text of a JSON object) with the request id's exact text first.
function withId(id, body) {
  if (id === undefined) return body;
  return body === "{}" ? `{"id":${id}}` : `{"id":${id},${body.slice(1)}`;
}
async function answer(line, format, reduce, config) {
  let request;
  let id;
  try {
    id = new Map(members(line)).get("id");
  } catch {
    id = undefined; // not an object: the Request below says why
  }
  try {
    request = new Request(line, format, config);
    request.id = id;
  } catch (e) {
    return withId(id, JSON.stringify({ error: String(e.message ?? e) }));
  }
  try {
    return withId(id, answerText(request, await reduce(request)));
  } catch (e) {
    if (e instanceof Unsupported) {
      return id === undefined ? JSON.stringify({ error: e.message }) : withId(id, JSON.stringify({ unsupported: e.message }));
    }
    if (e instanceof BadRequest) return withId(id, JSON.stringify({ error: e.message }));
    if (e instanceof LibraryMissing) {
      process.stderr.write(`compat adapter: ${e.message}\n`);
      process.exit(3);
    }
    const text = `${e?.name ?? "Error"}: ${e?.message ?? e}`.slice(0, 2000);
    process.stderr.write(`compat adapter: the library raised ${text.slice(0, 500)}\n`);
    return withId(id, JSON.stringify({ error: "the library raised " + text }));
  }
}
// --- the zygote: one process with the library loaded, many thin clients ------------
//
// Loading a framework takes a few hundred milliseconds, and the kit starts a
// new reducer process for every candidate while it shrinks a failure.
// compat/run therefore starts each Node adapter once more as a server
// (`--zygote SOCKET`) that has loaded the library, and runs the kit with
// COMPAT_ZYGOTE=SOCKET: an adapter process the kit starts then only relays
// its stdin to the server and the server's answers to its stdout (the same
// lines, the same per-case or persistent mode), and exits when the server
// closes the connection. Without COMPAT_ZYGOTE, or when the socket does not
// answer, the adapter runs by itself. (Node cannot fork, so unlike the Python
// zygote the requests share the server process; adapters keep no state
// between requests.)

async function zygoteClient(socketPath, argv) {
  const net = await import("node:net");
  return new Promise((resolve) => {
    const sock = net.createConnection({ path: socketPath, allowHalfOpen: true });
    let connected = false;
    sock.on("connect", () => {
      connected = true;
      sock.write(JSON.stringify(argv) + "\n");
      process.stdin.pipe(sock);
    });
    sock.on("data", (d) => process.stdout.write(d));
    sock.on("end", () => process.stdout.write("", () => process.exit(0)));
    sock.on("error", () => resolve(connected ? process.exit(1) : false));
  });
}

async function zygoteServer(socketPath, format, reduce, defaultConfig) {
  const net = await import("node:net");
  const { rmSync } = fs;
  // warm up: load the library with one request
  await answer('{"maxMessages": 1, "messages": []}', format, reduce, defaultConfig);
  rmSync(socketPath, { force: true });
  const server = net.createServer({ allowHalfOpen: true }, (sock) => {
    let buffered = "";
    let header = null;
    let queue = Promise.resolve();
    let persistent = false;
    let config = defaultConfig;
    sock.setEncoding("utf8");
    sock.on("data", (chunk) => {
      buffered += chunk;
      let nl;
      if (header === null) {
        if ((nl = buffered.indexOf("\n")) < 0) return;
        header = JSON.parse(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
        persistent = header.includes("--persistent");
        const i = header.indexOf("--config");
        if (i >= 0) config = header[i + 1];
      }
      if (!persistent) return;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (!line.trim()) continue;
        queue = queue.then(async () => { sock.write((await answer(line, format, reduce, config)) + "\n"); });
      }
    });
    sock.on("end", () => {
      queue = queue.then(async () => {
        if (!persistent) sock.write((await answer(buffered.trim(), format, reduce, config)) + "\n");
        sock.end();
      });
    });
    sock.on("error", () => {});
  });
  server.listen(socketPath, () => process.stderr.write(`compat zygote: ready on ${socketPath}\n`));
}

export async function serve({ format, pkg, reduce, configs, defaultConfig }) {
  const argv = process.argv.slice(2);
  const zygote = process.env.COMPAT_ZYGOTE;
  if (zygote && !argv.includes("--zygote") && !argv.includes("--probe")) {
    if ((await zygoteClient(zygote, argv)) !== false) return;
  }
  const args = [...argv];
  let persistent = false;
  let probe = false;
  let config = defaultConfig;
  let zygoteSocket = null;
  while (args.length) {
    const a = args.shift();
    if (a === "--persistent") persistent = true;
    else if (a === "--probe") probe = true;
    else if (a === "--config" && args.length) config = args.shift();
    else if (a === "--zygote" && args.length) zygoteSocket = args.shift();
    else {
      process.stderr.write(`usage: adapter [--config ${(configs ?? ["-"]).join("|")}] [--persistent] [--probe]\n`);
      process.exit(2);
    }
  }
  if (configs && !configs.includes(config)) {
    process.stderr.write(`unknown --config ${config}\n`);
    process.exit(2);
  }
  if (probe) {
    try {
      await load(pkg);
      process.stdout.write(JSON.stringify({ package: pkg, version: installedVersion(pkg) }) + "\n");
      process.exit(0);
    } catch (e) {
      process.stderr.write(`${e.message}\n`);
      process.exit(3);
    }
  }
  // Libraries may log; answers alone go to stdout.
  const out = process.stdout;
  console.log = console.info = console.debug = console.warn = (...a) => process.stderr.write(a.join(" ") + "\n");
  if (zygoteSocket) {
    await zygoteServer(zygoteSocket, format, reduce, config);
    return;
  }
  const write = (text) => new Promise((resolve) => out.write(text + "\n", resolve));
  if (!persistent) {
    const chunks = [];
    for await (const c of process.stdin) chunks.push(c);
    await write(await answer(Buffer.concat(chunks).toString("utf8").trim(), format, reduce, config));
    process.exit(0);
  }
  let buffered = "";
  let queue = Promise.resolve();
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (!line.trim()) continue;
      queue = queue.then(async () => write(await answer(line, format, reduce, config)));
    }
  });
  process.stdin.on("end", () => { queue.then(() => process.exit(0)); });
}

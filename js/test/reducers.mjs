// Reducer functions the tests certify: plain JavaScript over the request
// object, OpenAI Chat Completions messages (the runner protocol's members,
// spec §8 and §13). A port of python/tests/reducers.py.

import { reduce } from "reducer-kit";

/** maxMessages as a whole number >= 1 (spec §2; beyond 2^53 is no limit), else an Error. */
export function wholeBudget(value) {
  if (typeof value !== "number" || Number.isNaN(value) || value < 1 || (Number.isFinite(value) && !Number.isInteger(value))) {
    throw new Error(`maxMessages must be an integer >= 1, got ${JSON.stringify(value)}`);
  }
  return Number.isFinite(value) && value <= Number.MAX_SAFE_INTEGER ? value : Number.MAX_SAFE_INTEGER;
}

const role = (m) => (typeof m.role === "string" ? m.role.toLowerCase() : "");

/** The naive reducer: the newest maxMessages messages, whatever they are. */
export function lastN(request) {
  const n = wholeBudget(request.maxMessages);
  return request.messages.slice(Math.max(0, request.messages.length - n));
}

const CALL = "call", RESULT = "result", REQUEST = "request", RESPONSE = "response";
const APPROVALS = {
  toolApprovalRequest: [REQUEST, "requestId"],
  toolApprovalResponse: [RESPONSE, "requestId"],
  functionApprovalRequest: [REQUEST, "id"],
  functionApprovalResponse: [RESPONSE, "id"],
};

/** [kind, id, index in content or null] of the tool traffic of an OpenAI message. */
function items(message) {
  if (role(message) === "tool") return [[RESULT, message.tool_call_id, null]];
  const found = [];
  const content = Array.isArray(message.content) ? message.content : [];
  content.forEach((part, i) => {
    const tag = part && typeof part === "object" ? part.type : undefined;
    if (Object.hasOwn(APPROVALS, tag)) {
      const [kind, key] = APPROVALS[tag];
      found.push([kind, part[key], i]);
    }
  });
  for (const call of message.tool_calls || []) found.push([CALL, call.id, null]);
  return found;
}

/** Positional pairing: a result answers the latest earlier unanswered call with its id. */
function pair(messages, selection) {
  const partner = new Map();
  const open = new Map();
  const key = (...x) => JSON.stringify(x);
  for (const m of selection) {
    const its = items(messages[m]);
    its.forEach(([kind, id], k) => {
      if (kind === RESULT || kind === RESPONSE) {
        const stack = open.get(key(kind === RESULT ? CALL : REQUEST, id));
        if (stack && stack.length) {
          const p = stack.pop();
          partner.set(key(m, k), p);
          partner.set(key(...p), [m, k]);
        }
      }
    });
    its.forEach(([kind, id], k) => {
      if (kind === CALL || kind === REQUEST) {
        const s = key(kind, id);
        if (!open.has(s)) open.set(s, []);
        open.get(s).push([m, k]);
      }
    });
  }
  return { get: (m, k) => partner.get(key(m, k)) };
}

/**
 * Policy suffix (spec §4) for OpenAI Chat Completions: the pinned system
 * message and the newest run of messages that fits, its start moved past a
 * tool message, an approval-only user message or a message answering one
 * before it; then results and approval responses whose partner was cut
 * removed.
 */
export function suffixOpenAi(request) {
  const n = wholeBudget(request.maxMessages);
  const messages = request.messages;
  let pinned = messages.findIndex((m) => role(m) === "system" || role(m) === "developer");
  if (pinned < 0) pinned = null;
  const rest = messages.map((_, i) => i).filter((i) => i !== pinned);
  let partner = pair(messages, messages.map((_, i) => i));
  let start = Math.max(0, rest.length - n);
  while (start < rest.length) {
    const m = rest[start];
    const its = items(messages[m]);
    const approvalOnly = role(messages[m]) === "user" && its.length > 0 && its.every(([k]) => k === RESPONSE);
    const answersEarlier = its.some(([kind], k) => (kind === RESULT || kind === RESPONSE) && partner.get(m, k) && partner.get(m, k)[0] < m);
    if (role(messages[m]) === "tool" || approvalOnly || answersEarlier) start += 1;
    else break;
  }
  const chosen = [...rest.slice(start), ...(pinned !== null ? [pinned] : [])].sort((a, b) => a - b);
  partner = pair(messages, chosen);
  const kept = [];
  for (const m of chosen) {
    const its = items(messages[m]);
    const dropped = [];
    its.forEach(([kind], k) => {
      if ((kind === RESULT || kind === RESPONSE) && !partner.get(m, k)) dropped.push(k);
    });
    if (!dropped.length) {
      kept.push(messages[m]);
      continue;
    }
    if (dropped.length === its.length || dropped.some((k) => its[k][2] === null)) continue;
    const gone = new Set(dropped.map((k) => its[k][2]));
    kept.push({ ...messages[m], content: messages[m].content.filter((_, i) => !gone.has(i)) });
  }
  return kept;
}

/** The kit's own reference, called from JavaScript. */
export function referenceSuffix(request) {
  return reduce(request, { policy: "suffix", format: "openai" });
}

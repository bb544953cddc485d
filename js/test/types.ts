// The declarations (index.d.ts, fast-check.d.ts) type-check a typical use:
// js/ci.sh runs `tsc --noEmit --strict` on this file against the installed package.

import { assertCertified, certify, certifySync, check, generate, generateFromBytes, parse, reduce, validate, type Request, type Report } from "reducer-kit";
import { histories, requests } from "reducer-kit/fast-check";
import fc from "fast-check";

function lastN(request: Request) {
  return request.messages.slice(-Number(request.maxMessages));
}
const r: Report = certifySync(lastN, { policy: "suffix", format: "openai", cases: 10 });
const cx = r.counterexamples[0];
export const seen = [r.passed, r.levels.safety, cx?.clause, cx?.messages.length];
const p: Promise<Report> = certify(async (q) => ({ messages: q.messages }), { format: "openai" });
void p;
void assertCertified;
const v = validate([{ role: "user", content: "x" }], { format: "openai" });
const rule: string | undefined = v[0]?.rule;
const verdicts = check([{ role: "user", content: "x" }], [], { policy: "turns", format: "openai", maxMessages: 1 });
const failed: boolean = verdicts.some((x) => x.failed);
export const used = [rule, failed, reduce([], { maxMessages: 1 }), generate({ count: 1 })[0].id, generateFromBytes([1, 2])?.messages, parse("1")];
fc.assert(fc.property(histories({ format: "openai" }), (m) => m.length >= 0));
fc.assert(fc.property(requests({ format: "openai", budget: fc.integer() }), (q) => Array.isArray(q.messages)));

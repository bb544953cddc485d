"""What compat/run does for a kit that has no `certify --without`: the
shapes of a canonical case by generator knob (`shapes_of`), and a corpus
folder without the shapes an adapter cannot represent
(`emulated_corpus`). Standard library and compat/python/compat_wire.py
only."""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))
import compat_wire as wire  # noqa: E402  (exact JSON; stdlib only)

# Canonical content item types the kit knows (spec/spec.md 1.1).
KNOWN_TYPES = {"text", "functionCall", "functionResult", "toolApprovalRequest",
               "toolApprovalResponse", "functionApprovalRequest", "functionApprovalResponse"}
# Generator knobs (kebab-case, as `certify --without` takes them) and the
# generator config fields (src/generate/config.rs) they switch off.
KNOB_FIELDS = {
    "approvals": ["approvals"], "legacy-approvals": ["legacy_approvals"],
    "developer-role": ["developer_role"], "later-system": ["later_system"],
    "pinned-not-first": ["pinned_not_first"], "role-case": ["role_case"],
    "batched-results": ["batched_results"], "non-string-results": ["non_string_results"],
    "opaque-contents": ["opaque_contents"],
    "extra-fields": ["extra_fields", "system_extra_fields", "result_extra_fields"],
    "reuse-call-ids": ["reuse_call_ids"], "leading-segment": ["leading_segment"],
    "pending": ["pending"],
}


# --- shapes of a canonical history (for the corpus while the kit has no --without)

def shapes_of(case):
    """The generator knobs whose shapes a canonical case uses."""
    msgs = case.get("messages") or []
    found = set()
    roles = []
    call_ids = {}
    for i, m in enumerate(msgs):
        if not isinstance(m, dict):
            continue
        role = m.get("role") if isinstance(m.get("role"), str) else ""
        roles.append(role)
        if role != role.lower():
            found.add("role-case")
        if role.lower() == "developer":
            found.add("developer-role")
        if set(m) - {"role", "contents"}:
            found.add("extra-fields")
        items = m.get("contents") if isinstance(m.get("contents"), list) else []
        results = 0
        for it in items:
            t = it.get("$type") if isinstance(it, dict) else None
            if t not in KNOWN_TYPES:
                found.add("opaque-contents")
                continue
            if isinstance(it, dict) and "additionalProperties" in it:
                found.add("extra-fields")
            if t in ("toolApprovalRequest", "toolApprovalResponse"):
                found.add("approvals")
            if t in ("functionApprovalRequest", "functionApprovalResponse"):
                found.update(("approvals", "legacy-approvals"))
            if t == "functionCall":
                cid = it.get("callId")
                call_ids[cid] = call_ids.get(cid, 0) + 1
            if t == "functionResult":
                results += 1
                if not isinstance(it.get("result"), str):
                    found.add("non-string-results")
        if results > 1:
            found.add("batched-results")
    if any(n > 1 for n in call_ids.values()):
        found.add("reuse-call-ids")
    systems = [i for i, r in enumerate(roles) if r.lower() in ("system", "developer")]
    if systems and systems[0] != 0:
        found.add("pinned-not-first")
    if len(systems) > 1:
        found.add("later-system")
    rest = [r.lower() for i, r in enumerate(roles) if not systems or i != systems[0]]
    if rest and rest[0] != "user":
        found.add("leading-segment")
    if case.get("allowPending"):
        found.add("pending")
    return found


def emulated_corpus(kit, fmt, cases, seed, workdir, corpus_dirs, without, costs):
    """A corpus directory holding the kit corpus's cases without the adapter's
    declared shapes, and the `cases` generated ones from a generator config
    with those knobs off, less any that still show such a shape. Returns
    (dir, cases left out). `corpus_dirs` are the kit corpus's folders,
    `without` the knobs left out, `costs` whether generated cases get token
    budgets (protocol 2)."""
    from_case = []
    skipped = 0
    without = set(without)
    for d in corpus_dirs:
        for dirpath, _, files in os.walk(d):
            for f in sorted(files):
                if not f.endswith(".json"):
                    continue
                with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                    data = wire.parse_json(fh.read())  # exact numbers (spec/exact-numbers)
                for c in data if wire.is_array(data) else [data]:
                    if shapes_of(wire.plain(c)) & without:
                        skipped += 1
                    else:
                        from_case.append(wire.to_text(c))
    out = os.path.join(workdir, "corpus")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "corpus.json"), "w", encoding="utf-8") as fh:
        fh.write("[" + ",\n".join(from_case) + "]\n")
    if cases:
        cfg = {field: False for knob in without for field in KNOB_FIELDS.get(knob, [])}
        if costs:
            cfg["costs"] = True  # token budgets for about half the cases
        cfg_path = os.path.join(workdir, "generator.json")
        with open(cfg_path, "w") as fh:
            json.dump(cfg, fh)
        r = subprocess.run([kit, "generate", "--count", str(cases), "--seed", str(seed),
                            "--format", fmt, "--config", cfg_path], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("reducer-kit generate failed: " + r.stderr[-300:])
        # The knobs alone do not rule out every shape: with the leading system
        # message off, a later one becomes the pinned one (pinned-not-first).
        gen = []
        for line in r.stdout.splitlines():
            if line.strip():
                if shapes_of(wire.plain(wire.parse_json(line))) & without:
                    skipped += 1
                else:
                    gen.append(line)
        with open(os.path.join(out, "generated.json"), "w", encoding="utf-8") as fh:
            fh.write("[" + ",\n".join(gen) + "]\n")
    return out, skipped

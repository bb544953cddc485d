"""The installed wheel gives the command line of ``cargo install --path .``."""

from __future__ import annotations

import json
import subprocess

import reducer_kit


def run(kit_cli, *args, input=None):
    return subprocess.run([kit_cli, *args], input=input, capture_output=True, text=True, timeout=120)


def test_version_is_the_kits(installed, kit_cli):
    out = run(kit_cli, "--version")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"reducer-kit {reducer_kit.__version__}"


def test_help_lists_the_commands(kit_cli):
    out = run(kit_cli, "--help")
    assert out.returncode == 0
    for command in ("reduce", "validate", "check", "serve", "certify", "generate", "corpus"):
        assert command in out.stdout
    assert "Exit codes:" in out.stdout


def test_exit_codes_and_errors_are_the_binarys(kit_cli, tmp_path):
    assert run(kit_cli, "no-such-command").returncode == 2
    bad = tmp_path / "h.json"
    bad.write_text(json.dumps([{"role": "tool", "contents": [{"$type": "functionResult", "callId": "c1", "result": ""}]}]))
    out = run(kit_cli, "validate", str(bad))
    assert out.returncode == 1
    assert "result-follows-call" in out.stdout
    out = run(kit_cli, "reduce", "--max", "0", str(bad))
    assert out.returncode == 2
    assert out.stderr.startswith("error: invalid value '0' for '--max <N>'")


def test_reduce_from_stdin(kit_cli):
    history = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b"},
        {"role": "user", "content": "c"},
    ]
    out = run(kit_cli, "reduce", "--format", "openai", "--max", "1", "-", input=json.dumps(history))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == history[2:]


def test_certify_a_wire_program(kit_cli, repo):
    out = run(
        kit_cli, "certify", "--policy", "suffix", "--persistent", "--corpus", str(repo / "corpus" / "spec"),
        "--cases", "50", "--", kit_cli, "serve", "--policy", "suffix", "--persistent",
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "levels passed [protocol, safety, policy, exact]" in out.stdout

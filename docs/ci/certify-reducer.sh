#!/usr/bin/env bash
# The recipe for a reducer's own repository (docs/ci/README.md): installs
# reducer-kit (the `reducer-kit` Python package, which brings the command
# line) into a virtual environment kept between runs, then certifies the
# reducer in persistent mode, with a JUnit report, a JSON report and the
# minimal counterexamples saved as case files. The composite action
# (action.yml) runs it; so does tests/it/recipe.rs, in a folder that holds only
# a reducer, so what is tested is what a workflow runs.
#
# Its inputs are environment variables (the action's inputs, upper-cased):
#
#   RK_POLICY       turns | suffix | repair (required)
#   RK_COMMAND      the reducer's command, split into words as a shell line
#                   is (quotes kept together), e.g. "python3 my_reducer.py
#                   --persistent" (required)
#   RK_FORMAT       canonical (default) | openai | anthropic | responses |
#                   gemini | bedrock
#   RK_PROVIDER     a provider profile (spec §15), or empty
#   RK_PROTOCOL     1 (default) | 2
#   RK_CASES        generated cases besides the corpus (empty: the kit's 2000)
#   RK_SHARD        K/N: one of N disjoint shards, or empty
#   RK_PERSISTENT   true (default): one reducer process per worker, one
#                   request per line (the reducer's own flag for that mode
#                   belongs in RK_COMMAND); false: a process per request
#   RK_ARGS         more `certify` options, as shell words (--declare,
#                   --summaries, --seed ...), or empty
#   RK_VERSION      the kit's version to install (default below)
#   RK_FIND_LINKS   a folder of wheels to install from instead of PyPI (a
#                   wheel built from source: python/README.md), or empty
#   RK_REPORTS      the reports' folder (default reducer-kit-reports):
#                   junit.xml, report.json, failures/
#   RK_HOME         where the kit is installed and kept (default
#                   ~/.cache/reducer-kit, the folder the action caches)
#   RK_PYTHON       the Python that makes the virtual environment (python3)
#
# Exit code: certify's (0 every level passes, 1 a defect, 2 a usage error);
# 2 when the kit cannot be installed.
set -euo pipefail

RK_VERSION=${RK_VERSION:-0.1.0}
RK_FORMAT=${RK_FORMAT:-canonical}
RK_PROTOCOL=${RK_PROTOCOL:-1}
RK_PERSISTENT=${RK_PERSISTENT:-true}
RK_REPORTS=${RK_REPORTS:-reducer-kit-reports}
RK_HOME=${RK_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/reducer-kit}
RK_PYTHON=${RK_PYTHON:-python3}

die() {
    echo "certify-reducer: $*" >&2
    exit 2
}
[ -n "${RK_POLICY:-}" ] || die "no policy: set RK_POLICY (the action's input policy) to turns, suffix or repair"
[ -n "${RK_COMMAND:-}" ] || die "no reducer command: set RK_COMMAND (the action's input command)"

# 1. The kit: a virtual environment per version, reused when it holds that
# version from the same source (the index, or the same wheels).
venv="$RK_HOME/venv-$RK_VERSION"
kit="$venv/bin/reducer-kit"
from=() # pip's own index (PyPI unless pip is set up otherwise)
source=index
if [ -n "${RK_FIND_LINKS:-}" ]; then
    [ -d "$RK_FIND_LINKS" ] || die "RK_FIND_LINKS: $RK_FIND_LINKS is not a folder"
    from=(--no-index --find-links "$RK_FIND_LINKS")
    source="wheels $(cat "$RK_FIND_LINKS"/reducer_kit-"$RK_VERSION"-*.whl 2>/dev/null | cksum)"
fi
if [ -x "$kit" ] && [ "$("$kit" --version 2>/dev/null)" = "reducer-kit $RK_VERSION" ] &&
    [ "$(cat "$venv/reducer-kit-source" 2>/dev/null)" = "$source" ]; then
    echo "reducer-kit $RK_VERSION: installed in $venv (kept from an earlier run)"
else
    rm -rf "$venv"
    mkdir -p "$RK_HOME"
    "$RK_PYTHON" -m venv "$venv" || die "$RK_PYTHON -m venv $venv failed"
    echo "installing reducer-kit $RK_VERSION into $venv (pip install ${from[*]:+${from[*]} }reducer-kit==$RK_VERSION)"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check ${from[@]+"${from[@]}"} "reducer-kit==$RK_VERSION" ||
        die "pip cannot install reducer-kit==$RK_VERSION"
    [ "$("$kit" --version)" = "reducer-kit $RK_VERSION" ] || die "$kit --version is not reducer-kit $RK_VERSION"
    echo "$source" >"$venv/reducer-kit-source"
fi

# 2. The run.
eval "set -- $RK_COMMAND"
[ "$#" -gt 0 ] || die "RK_COMMAND has no words"
command=("$@")
eval "set -- ${RK_ARGS:-}"
args=(--policy "$RK_POLICY" --format "$RK_FORMAT" --protocol "$RK_PROTOCOL")
[ -n "${RK_PROVIDER:-}" ] && args+=(--provider "$RK_PROVIDER")
[ -n "${RK_CASES:-}" ] && args+=(--cases "$RK_CASES")
[ -n "${RK_SHARD:-}" ] && args+=(--shard "$RK_SHARD")
case "$RK_PERSISTENT" in
true) args+=(--persistent) ;;
false) ;;
*) die "RK_PERSISTENT is true or false, not $RK_PERSISTENT" ;;
esac
# Counterexamples of this run only: the folder never keeps an older run's.
rm -rf "$RK_REPORTS/failures"
mkdir -p "$RK_REPORTS"
args+=(--report-junit "$RK_REPORTS/junit.xml" --report-json "$RK_REPORTS/report.json"
    --save-failures "$RK_REPORTS/failures" "$@")
echo "reducer-kit certify ${args[*]} -- ${command[*]}"
set +e
"$kit" certify "${args[@]}" -- "${command[@]}"
code=$?
set -e
saved=0
[ -d "$RK_REPORTS/failures" ] && saved=$(find "$RK_REPORTS/failures" -name '*.json' | wc -l)
echo "reports: $RK_REPORTS/junit.xml, $RK_REPORTS/report.json; $saved counterexamples in $RK_REPORTS/failures/ (reducer-kit corpus add turns them into regression cases)"
exit "$code"

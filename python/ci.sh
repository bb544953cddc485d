#!/usr/bin/env bash
# The Python package in CI (.ci/run, "== python package"): builds the wheel
# with maturin, installs it into a fresh virtual environment with pytest and
# Hypothesis (pinned below), and runs python/tests and examples/python there.
#
# What cannot be had (python3 -m venv, a package from PyPI, a crate) is
# reported on a "python package: skipped: ..." line and the script exits 0;
# a wheel that does not build or a test that fails exits non-zero.
#
#   bash python/ci.sh            # everything (a few minutes, the build first)
#   PYTEST_ARGS="-k certify" bash python/ci.sh
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work="$root/target/python-ci"
MATURIN=${MATURIN:-"maturin==1.16.0"}
PYTEST=${PYTEST:-"pytest==9.2.0"}
HYPOTHESIS=${HYPOTHESIS:-"hypothesis==6.170.17"}
PYTHON=${PYTHON:-python3}

skip() {
    echo "python package: skipped: $*"
    exit 0
}
fail() {
    echo "python package: FAILED: $*"
    exit 1
}
quietly() {
    # Runs a command, its output shown only when it fails.
    local log
    log=$(mktemp)
    if "$@" >"$log" 2>&1; then
        rm -f "$log"
        return 0
    fi
    tail -n 20 "$log"
    rm -f "$log"
    return 1
}

command -v "$PYTHON" >/dev/null || skip "no $PYTHON"
rm -rf "$work/build-env" "$work/test-env" "$work/wheels"
mkdir -p "$work"
quietly "$PYTHON" -m venv "$work/build-env" || skip "$PYTHON -m venv cannot make a virtual environment"
quietly "$work/build-env/bin/pip" install --disable-pip-version-check "$MATURIN" ||
    skip "cannot install $MATURIN from PyPI"
quietly cargo fetch --manifest-path python/Cargo.toml || skip "cannot fetch the crates of python/Cargo.toml (pyo3)"

echo "building the wheel: maturin build --release"
started=$(date +%s)
if ! (cd python && "$work/build-env/bin/maturin" build --release --out "$work/wheels") >"$work/build.log" 2>&1; then
    tail -n 40 "$work/build.log"
    fail "maturin build --release (the log: $work/build.log)"
fi
wheel=$(ls "$work"/wheels/reducer_kit-*.whl 2>/dev/null | head -n 1)
[ -n "$wheel" ] || fail "maturin build --release made no wheel"
echo "built $(basename "$wheel") in $(($(date +%s) - started)) s"

quietly "$PYTHON" -m venv "$work/test-env" || skip "$PYTHON -m venv cannot make a virtual environment"
quietly "$work/test-env/bin/pip" install --disable-pip-version-check "$PYTEST" "$HYPOTHESIS" ||
    skip "cannot install $PYTEST and $HYPOTHESIS from PyPI"
quietly "$work/test-env/bin/pip" install --disable-pip-version-check --no-index "$wheel" ||
    fail "the wheel does not install"

# The installed command line and package, from outside the source tree.
cd "$work"
"$work/test-env/bin/reducer-kit" --version || fail "reducer-kit --version"
"$work/test-env/bin/python" -c "import reducer_kit; print('import reducer_kit:', reducer_kit.__version__)" ||
    fail "import reducer_kit"

started=$(date +%s)
# shellcheck disable=SC2086
PATH="$work/test-env/bin:$PATH" "$work/test-env/bin/python" -m pytest -p no:cacheprovider -q \
    "$root/python/tests" "$root/examples/python" ${PYTEST_ARGS:-}
code=$?
echo "python tests: exit $code in $(($(date +%s) - started)) s"
exit "$code"

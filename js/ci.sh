#!/usr/bin/env bash
# The npm package in CI: builds the WebAssembly module (js/Cargo.toml, in
# release, for wasm32-unknown-unknown) and its JavaScript bindings with
# wasm-bindgen (the command line of the exact version of the wasm-bindgen
# crate in Cargo.lock, installed with cargo when absent), packs the package
# with `npm pack`, installs the tarball with fast-check (pinned below) into
# a fresh folder as a user would, and runs js/test and examples/js there
# with Node's test runner, and type-checks js/test/types.ts with tsc
# (pinned below) against the declarations.
#
# What cannot be had (node >= 18, npm, the wasm32 target, wasm-bindgen, a
# package from the npm registry) is reported on a "js package: skipped: ..."
# line and the script exits 0; a build that fails or a test that fails exits
# non-zero.
#
#   bash js/ci.sh                          # everything
#   JS_TEST_ARGS="--test-name-pattern=async" bash js/ci.sh
#   JS_BUILD_ONLY=1 bash js/ci.sh          # js/wasm/ and the tarball, no tests
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work="$root/target/js-ci"
FAST_CHECK=${FAST_CHECK:-"fast-check@4.11.0"}
TYPESCRIPT=${TYPESCRIPT:-"typescript@7.0.2"}

skip() {
    echo "js package: skipped: $*"
    exit 0
}
fail() {
    echo "js package: FAILED: $*"
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

command -v node >/dev/null || skip "no node"
command -v npm >/dev/null || skip "no npm"
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 18 ? 0 : 1)' ||
    skip "node $(node --version) is older than 18"

# The wasm-bindgen command line must be the crate's exact version.
version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)
[ -n "$version" ] || fail "no wasm-bindgen in Cargo.lock"
bindgen=""
for candidate in "$(command -v wasm-bindgen 2>/dev/null)" "$work/tools/bin/wasm-bindgen"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ] && "$candidate" --version 2>/dev/null | grep -qx "wasm-bindgen $version"; then
        bindgen=$candidate
        break
    fi
done
if [ -z "$bindgen" ]; then
    echo "installing wasm-bindgen-cli $version into $work/tools"
    # --locked first; without it when the registry lacks a locked version.
    quietly cargo install --root "$work/tools" wasm-bindgen-cli --version "$version" --locked ||
        quietly cargo install --root "$work/tools" wasm-bindgen-cli --version "$version" ||
        skip "cannot install wasm-bindgen-cli $version"
    bindgen="$work/tools/bin/wasm-bindgen"
fi
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    quietly rustup target add wasm32-unknown-unknown || skip "cannot add the wasm32-unknown-unknown target"
fi

echo "building the WebAssembly module: cargo build --release -p reducer-kit-js --target wasm32-unknown-unknown"
started=$(date +%s)
# No debug info in the module (the kit's release profile keeps some for
# native profiling; wasm-bindgen would drop it anyway).
if ! CARGO_PROFILE_RELEASE_DEBUG=0 cargo build --release -p reducer-kit-js --target wasm32-unknown-unknown \
    >"$work.build.log" 2>&1; then
    tail -n 40 "$work.build.log"
    fail "cargo build --release -p reducer-kit-js --target wasm32-unknown-unknown (the log: $work.build.log)"
fi
rm -f js/wasm/reducer_kit_js*
"$bindgen" --target nodejs --out-dir js/wasm --out-name reducer_kit_js \
    target/wasm32-unknown-unknown/release/reducer_kit_js.wasm || fail "wasm-bindgen"
echo "built js/wasm/reducer_kit_js_bg.wasm ($(wc -c <js/wasm/reducer_kit_js_bg.wasm) bytes) in $(($(date +%s) - started)) s"

rm -rf "$work/pack" "$work/project"
mkdir -p "$work/pack" "$work/project"
(cd js && npm pack --silent --pack-destination "$work/pack" >/dev/null) || fail "npm pack"
tarball=$(ls "$work"/pack/reducer-kit-*.tgz 2>/dev/null | head -n 1)
[ -n "$tarball" ] || fail "npm pack made no tarball"
echo "packed $(basename "$tarball") ($(wc -c <"$tarball") bytes)"
[ -n "${JS_BUILD_ONLY:-}" ] && exit 0

# The installed package, from outside the source tree.
cd "$work/project"
echo '{"name": "reducer-kit-ci", "private": true, "type": "module"}' >package.json
quietly npm install --no-audit --no-fund "$FAST_CHECK" || skip "cannot install $FAST_CHECK from the npm registry"
started=$(date +%s)
quietly npm install --no-audit --no-fund --prefer-offline "$tarball" || fail "the tarball does not install"
echo "npm install of the tarball: $(($(date +%s) - started)) s"
node -e 'import("reducer-kit").then(k => console.log("import reducer-kit:", k.version))' ||
    fail "import reducer-kit"

mkdir -p test
cp "$root"/js/test/*.mjs "$root"/js/test/types.ts "$root"/examples/js/*.mjs test/
# The TypeScript declarations, as a TypeScript user compiles against them.
if quietly npm install --no-audit --no-fund "$TYPESCRIPT"; then
    npx --no-install tsc --noEmit --strict --module nodenext --moduleResolution nodenext --target es2022 test/types.ts ||
        fail "tsc --noEmit test/types.ts: the declarations do not type-check"
    echo "tsc --noEmit --strict test/types.ts: ok"
else
    echo "js package: the type check skipped: cannot install $TYPESCRIPT"
fi
export REDUCER_KIT_BIN=${REDUCER_KIT_BIN:-}
if [ -z "$REDUCER_KIT_BIN" ]; then
    for b in "$root/target/release/reducer-kit" "$root/target/debug/reducer-kit"; do
        [ -x "$b" ] && REDUCER_KIT_BIN=$b && break
    done
fi
started=$(date +%s)
# shellcheck disable=SC2086
node --test ${JS_TEST_ARGS:-} test/*.test.mjs
code=$?
echo "js tests: exit $code in $(($(date +%s) - started)) s"
exit "$code"

#!/usr/bin/env bash
# The npm package in CI: builds the WebAssembly module (js/Cargo.toml, in
# release, for wasm32-unknown-unknown) and its JavaScript bindings with
# wasm-bindgen (the command line of the exact version of the wasm-bindgen
# crate in Cargo.lock: its release archive, or built with cargo when that
# cannot be had, kept in ~/.cache/reducer-kit/tools), packs the package
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

mkdir -p "$work"
command -v node >/dev/null || skip "no node"
command -v npm >/dev/null || skip "no npm"
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 18 ? 0 : 1)' ||
    skip "node $(node --version) is older than 18"

# The wasm-bindgen command line must be the crate's exact version. It is
# kept outside the checkout (REDUCER_KIT_TOOLS, default
# ~/.cache/reducer-kit/tools), so a fresh clone on the same machine, and the
# release workflow's cache, find it built; it comes, in this order, from the
# PATH, that folder, wasm-bindgen's own release archive for this platform
# (seconds), or `cargo install` (about half an hour on two cores: without
# the crate's default features, which are TLS for its test runner's
# downloads, and only its `wasm-bindgen` binary).
version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)
[ -n "$version" ] || fail "no wasm-bindgen in Cargo.lock"
tools="${REDUCER_KIT_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/reducer-kit/tools}/wasm-bindgen-$version"
right_version() {
    [ -n "$1" ] && [ -x "$1" ] && "$1" --version 2>/dev/null | grep -qx "wasm-bindgen $version"
}
bindgen=""
for candidate in "$(command -v wasm-bindgen 2>/dev/null)" "$tools/bin/wasm-bindgen"; do
    if right_version "$candidate"; then
        bindgen=$candidate
        break
    fi
done
if [ -z "$bindgen" ]; then
    case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) triple=x86_64-unknown-linux-musl ;;
    Linux-aarch64) triple=aarch64-unknown-linux-gnu ;;
    Darwin-x86_64) triple=x86_64-apple-darwin ;;
    Darwin-arm64) triple=aarch64-apple-darwin ;;
    *) triple="" ;;
    esac
    mkdir -p "$(dirname "$tools")"
    part=$(mktemp -d "$tools.part.XXXXXX")
    mkdir -p "$part/bin"
    started=$(date +%s)
    archive="wasm-bindgen-$version-$triple"
    if [ -n "$triple" ] && command -v curl >/dev/null &&
        curl --fail --silent --show-error --location --connect-timeout 10 --max-time 300 \
            "https://github.com/wasm-bindgen/wasm-bindgen/releases/download/$version/$archive.tar.gz" \
            -o "$part/archive.tar.gz" 2>"$part/curl.log" &&
        tar -xzf "$part/archive.tar.gz" -C "$part" &&
        cp "$part/$archive/wasm-bindgen" "$part/bin/" &&
        right_version "$part/bin/wasm-bindgen"; then
        echo "wasm-bindgen $version: the release archive for $triple, in $(($(date +%s) - started)) s"
    else
        echo "wasm-bindgen $version: no release archive ($(head -c 200 "$part/curl.log" 2>/dev/null | tr '\n' ' ')); cargo install wasm-bindgen-cli $version into $tools"
        # --locked first; without it when the registry lacks a locked version.
        quietly cargo install --root "$part" wasm-bindgen-cli --version "$version" \
            --no-default-features --bin wasm-bindgen --locked ||
            quietly cargo install --root "$part" wasm-bindgen-cli --version "$version" \
                --no-default-features --bin wasm-bindgen ||
            { rm -rf "$part"; skip "cannot install wasm-bindgen-cli $version"; }
        echo "wasm-bindgen $version: cargo install in $(($(date +%s) - started)) s"
    fi
    # In place at once: a run beside this one sees it whole or not at all.
    mkdir -p "$tools/bin"
    mv -f "$part/bin/wasm-bindgen" "$tools/bin/wasm-bindgen"
    rm -rf "$part"
    bindgen="$tools/bin/wasm-bindgen"
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

rm -rf "$work/pack"
mkdir -p "$work/pack"
(cd js && npm pack --silent --pack-destination "$work/pack" >/dev/null) || fail "npm pack"
tarball=$(ls "$work"/pack/reducer-kit-*.tgz 2>/dev/null | head -n 1)
[ -n "$tarball" ] || fail "npm pack made no tarball"
echo "packed $(basename "$tarball") ($(wc -c <"$tarball") bytes)"
[ -n "${JS_BUILD_ONLY:-}" ] && exit 0

# The installed package, from outside the source tree.
rm -rf "$work/project"
mkdir -p "$work/project"
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

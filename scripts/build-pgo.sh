#!/usr/bin/env bash
# Profile-guided builds of `luft` and `datagen` for this CPU: an instrumented build
# (-C profile-generate) runs `luft bench` and a short self-play run (datagen, one thread,
# 5,000 soft nodes a move), `llvm-profdata` merges what they counted, and the release build
# is made again with it (-C profile-use), -C target-cpu=native both times. The search is
# unchanged (the script checks that the result's bench node count is the instrumented
# build's, the same code); only code layout and inlining follow the profile. Speed against
# the plain build: docs/measurements.md.
#
#   scripts/build-pgo.sh [OUT]     # OUT (default target/pgo): OUT/release/{luft,datagen}
#
# Needs llvm-profdata of the toolchain's LLVM: `rustup component add llvm-tools`.
# Other tools (trainer, arena, learn) are not profiled here: a profile-use build treats code
# the profile never ran as cold, so they are best built plainly.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mkdir -p "${1:-target/pgo}" && cd "${1:-target/pgo}" && pwd)
sysroot=$(rustc --print sysroot)
profdata=$(find "$sysroot/lib/rustlib" -name llvm-profdata -type f 2>/dev/null | head -1)
if [[ -z $profdata ]]; then
    echo "error: llvm-profdata not found under $sysroot; install it with: rustup component add llvm-tools" >&2
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$out/profiles"
mkdir -p "$out/profiles"

echo "1/4 instrumented build" >&2
RUSTFLAGS="-C target-cpu=native -C profile-generate=$out/profiles" CARGO_TARGET_DIR="$out/instrumented" \
    cargo build --release -q -p engine -p datagen --bins
echo "2/4 training runs: luft bench, datagen 16 games" >&2
"$out/instrumented/release/luft" bench >"$tmp/bench" 2>&1
"$out/instrumented/release/datagen" --threads 1 --games 16 --nodes 5000 --seed 1 --out "$tmp/data" >/dev/null 2>&1
echo "3/4 merge" >&2
"$profdata" merge -o "$out/merged.profdata" "$out/profiles"
echo "4/4 optimised build" >&2
RUSTFLAGS="-C target-cpu=native -C profile-use=$out/merged.profdata" CARGO_TARGET_DIR="$out" \
    cargo build --release -q -p engine -p datagen --bins
want=$(grep -E '^[0-9]+ nodes' "$tmp/bench" | tail -1 | awk '{ print $1 }')
got=$("$out/release/luft" bench 2>&1 | grep -E '^[0-9]+ nodes' | tail -1 | awk '{ print $1 }')
if [[ $want != "$got" ]]; then
    echo "error: the profile-guided luft searched $got nodes in bench, the instrumented one $want" >&2
    exit 1
fi
echo "built $out/release/luft and $out/release/datagen (bench $got nodes)"

#!/usr/bin/env bash
# Profile-guided builds of `luft` and `datagen` for this CPU: an instrumented build
# (-C profile-generate) runs `luft bench` and a short self-play run (datagen, one thread,
# 5,000 soft nodes a move), `llvm-profdata` merges what they counted, and the release build
# is made again with it (-C profile-use), -C target-cpu=native both times. Only code layout
# and inlining follow the profile; the script checks that the results search and play as the
# instrumented builds did: the same bench node count (and, in a git checkout, the latest
# `Bench: N` of the history, by scripts/bench-signature.sh) and the same self-play games,
# positions and labels from the same seed. Speed against the plain build:
# docs/measurements.md.
#
#   scripts/build-pgo.sh [OUT]     # OUT (default target/pgo of the checkout; a relative OUT
#                                  # is taken from the current directory): OUT/release/{luft,datagen}
#
# Needs llvm-profdata of the toolchain's LLVM: `rustup component add llvm-tools`.
# Other tools (trainer, arena, learn) are not profiled here: a profile-use build treats code
# the profile never ran as cold, so they are best built plainly.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." >/dev/null && pwd)
out=$(realpath -m -- "${1:-$repo/target/pgo}")
cd "$repo"
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
# CARGO_ENCODED_RUSTFLAGS (flags separated by 0x1f) keeps a path with spaces in one flag.
flags() { printf '%s\x1f%s' "-Ctarget-cpu=native" "$1"; }
fail() {
    echo "error: $1" >&2
    [[ -f ${2:-} ]] && tail -5 "$2" >&2
    exit 1
}
bench_nodes() { grep -E '^[0-9]+ nodes' "$1" | tail -1 | awk '{ print $1 }' || true; }
# One self-play run of 16 games from seed 1 (the profile's, then the check's): its
# positions, scores and results as text in $2.
selfplay() {
    local bin=$1 text=$2
    rm -rf "$tmp/data"
    "$bin/datagen" --threads 1 --games 16 --nodes 5000 --seed 1 --out "$tmp/data" >"$tmp/datagen.log" 2>&1 \
        || fail "$bin/datagen: self-play failed" "$tmp/datagen.log"
    "$bin/datagen" convert --to text --all --out "$text" "$tmp/data" >>"$tmp/datagen.log" 2>&1 \
        || fail "$bin/datagen: convert failed" "$tmp/datagen.log"
}

echo "1/4 instrumented build" >&2
CARGO_ENCODED_RUSTFLAGS=$(flags "-Cprofile-generate=$out/profiles") CARGO_TARGET_DIR="$out/instrumented" \
    cargo build --release -q -p engine -p datagen --bins
echo "2/4 training runs: luft bench, datagen 16 games" >&2
"$out/instrumented/release/luft" bench >"$tmp/bench" 2>&1 || fail "the instrumented luft bench failed" "$tmp/bench"
want=$(bench_nodes "$tmp/bench")
[[ -n $want ]] || fail "the instrumented luft bench printed no node count" "$tmp/bench"
selfplay "$out/instrumented/release" "$tmp/selfplay-instrumented.txt"
echo "3/4 merge" >&2
"$profdata" merge -o "$out/merged.profdata" "$out/profiles"
echo "4/4 optimised build" >&2
CARGO_ENCODED_RUSTFLAGS=$(flags "-Cprofile-use=$out/merged.profdata") CARGO_TARGET_DIR="$out" \
    cargo build --release -q -p engine -p datagen --bins
"$out/release/luft" bench >"$tmp/bench-pgo" 2>&1 || fail "the profile-guided luft bench failed" "$tmp/bench-pgo"
got=$(bench_nodes "$tmp/bench-pgo")
[[ $want == "$got" ]] || fail "the profile-guided luft searched ${got:-no} nodes in bench, the instrumented one $want"
# Against the history's `Bench: N` too (exit 2: no history to compare with).
signature=0
scripts/bench-signature.sh "$out/release/luft" >&2 || signature=$?
((signature == 0 || signature == 2)) || fail "the profile-guided luft's bench is not the history's (above)"
selfplay "$out/release" "$tmp/selfplay-pgo.txt"
cmp -s "$tmp/selfplay-instrumented.txt" "$tmp/selfplay-pgo.txt" \
    || fail "the profile-guided datagen played other games than the instrumented one (seed 1, 16 games)"
echo "built $out/release/luft and $out/release/datagen (bench $got nodes; the same 16 self-play games)"

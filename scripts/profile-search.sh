#!/usr/bin/env bash
# Where the search's time goes: a sampling profile (perf, cpu-clock: these VMs expose no
# hardware counters) of `luft bench` and of datagen's self-play search, as shares of the
# samples per function (what LTO left as a function) and per source file (inlined code by
# the file it was written in, from line tables).
#
#   scripts/profile-search.sh [NET]     # NET: a net file for both (default: the embedded net)
#
# Builds luft and datagen with line tables and frame pointers, -C target-cpu=native, in
# target/profile (the release profile otherwise unchanged). Needs `perf` (Debian:
# linux-perf). Run it on an otherwise idle machine; it prints the CPU model first.
set -euo pipefail
cd "$(dirname "$0")/.."
net=${1:-}
dir=target/profile
export CARGO_TARGET_DIR=$dir CARGO_PROFILE_RELEASE_DEBUG=line-tables-only CARGO_PROFILE_RELEASE_STRIP=none
RUSTFLAGS="-C target-cpu=native -C force-frame-pointers=yes" cargo build --release -q -p engine -p datagen --bins
grep -m1 "model name" /proc/cpuinfo
report() {
    local data=$1
    echo "-- by function (top 20)"
    perf report -i "$data" --no-children --sort symbol --stdio -g none 2>/dev/null | grep "%" | grep -v "^#" | head -20
    echo "-- by source file (top 25)"
    perf report -i "$data" --no-children --sort srcfile --stdio -g none 2>/dev/null | grep "%" | grep -v "^#" | head -25
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "== luft bench${net:+ (EvalFile $net)}"
if [ -n "$net" ]; then
    printf 'setoption name EvalFile value %s\nbench\n' "$net" >"$tmp/in"
    perf record -q -e cpu-clock -F 2000 -o "$tmp/bench.data" "$dir/release/luft" <"$tmp/in" >/dev/null
else
    perf record -q -e cpu-clock -F 2000 -o "$tmp/bench.data" "$dir/release/luft" bench >/dev/null 2>&1
fi
report "$tmp/bench.data"
echo "== datagen, 40 games at 5000 soft nodes, one thread${net:+ (--net $net)}"
perf record -q -e cpu-clock -F 2000 -o "$tmp/dg.data" "$dir/release/datagen" --threads 1 --games 40 --nodes 5000 \
    --seed 5 --out "$tmp/dg" ${net:+--net "$net"} >/dev/null 2>&1
report "$tmp/dg.data"

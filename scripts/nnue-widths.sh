#!/usr/bin/env bash
# `luft bench` speed per hidden width and NNUE code path, measured side by side in one run:
# random nets (`nnue` example write_random_net, 8 output buckets) of each width, each
# benched with every code path (LUFT_SIMD=avx2, avx512, ...) in turn, round after round,
# so every figure sees the same machine load. Prints bench nps (wall clock) and nps per CPU
# second (nodes over the process's user + system time) per width and path, and the ratio
# of each path to the first. Every path must search the same tree (the same node count):
# they give identical integers, so a difference is an error.
#
# Builds nothing: it runs $CARGO_TARGET_DIR/release/luft and
# $CARGO_TARGET_DIR/release/examples/write_random_net (default target/); build them with
# `cargo build --release -p engine && cargo build --release -p nnue --examples`.
#
# Usage: scripts/nnue-widths.sh [rounds=2] [depth=13] [widths="64 128 256"]
#        [paths="avx2 avx512"]   (a path this CPU cannot run is left out, with a note)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2} depth=${2:-13} widths=${3:-"64 128 256"} paths=${4:-"avx2 avx512"}
bin=${CARGO_TARGET_DIR:-target}/release
luft=$bin/luft make_net=$bin/examples/write_random_net
[[ -x $luft ]] || { echo "error: $luft not found; run: cargo build --release -p engine" >&2; exit 2; }
[[ -x $make_net ]] || { echo "error: $make_net not found; run: cargo build --release -p nnue --examples" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The paths this CPU (and this build) runs: luft names a refused one on stderr.
usable=()
for p in $paths; do
    if LUFT_SIMD=$p "$luft" bench 1 2>&1 >/dev/null | grep -q "LUFT_SIMD"; then
        echo "note: $p left out (this CPU or build cannot run it, or no such path)"
    else
        usable+=("$p")
    fi
done
((${#usable[@]} > 0)) || { echo "error: no usable path among: $paths" >&2; exit 2; }
for w in $widths; do
    "$make_net" "$w" "$tmp/random-$w.nnue" 8 1 >/dev/null
done

TIMEFORMAT='%U %S'
: >"$tmp/results"
for ((r = 1; r <= rounds; r++)); do
    for w in $widths; do
        for p in "${usable[@]}"; do
            { time printf 'setoption name EvalFile value %s\nbench %s\n' "$tmp/random-$w.nnue" "$depth" \
                | LUFT_SIMD=$p "$luft" >"$tmp/out"; } 2>"$tmp/time"
            read -r nodes _ nps _ < <(tail -1 "$tmp/out") || { echo "error: luft bench printed nothing (hidden $w, $p)" >&2; exit 1; }
            read -r user sys <"$tmp/time"
            echo "$w $p $nodes $nps $user $sys" >>"$tmp/results"
            printf 'round %d  hidden %4d  %-8s %9s nodes  %8s nps  %.2f s CPU\n' "$r" "$w" "$p" "$nodes" "$nps" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')"
        done
    done
done

awk -v first="${usable[0]}" '
    { key = $1 " " $2; nodes[key] += $3; nps[key] += $4; cpu[key] += $5 + $6; n[key]++;
      if (!($1 in seen)) { seen[$1] = 1; order[++widths] = $1 }
      if (!($2 in seenp)) { seenp[$2] = 1; paths[++np] = $2 }
      if (($1) in treenodes && treenodes[$1] != $3) { bad = bad " " $1 }
      treenodes[$1] = $3 }
    END {
        if (bad != "") { print "error: the paths searched different trees at hidden" bad; exit 1 }
        printf "\n%-7s %-8s %12s %12s %10s %10s\n", "hidden", "path", "nps (wall)", "nps (CPU)", "wall ratio", "CPU ratio"
        for (i = 1; i <= widths; i++) {
            w = order[i]; base = w " " first
            for (j = 1; j <= np; j++) {
                k = w " " paths[j]
                wall = nps[k] / n[k]; c = nodes[k] / cpu[k]
                printf "%-7s %-8s %12.0f %12.0f %10.3f %10.3f\n", w, paths[j], wall, c, wall / (nps[base] / n[base]), c / (nodes[base] / cpu[base])
            }
        }
    }' "$tmp/results"

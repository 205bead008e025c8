#!/usr/bin/env bash
# Speed of the working tree against a base revision, by the measurement protocol of
# docs/measurements.md: both built here with the same flags (-C target-cpu=native), the two
# alternating run by run (the order flipped every run, so drift hurts neither), RUNS runs
# each, CPU time of every whole process, and the median of the per-pair ratios. Three
# figures:
#   - `luft bench` with the net BASE embeds (128 wide), nodes per CPU second, given to both
#     sides as `EvalFile` (so a newer default net on the working tree does not change the
#     trees);
#   - `luft bench 12` with a random 256-wide net (`nnue` example write_random_net), the same
#     (through UCI: `setoption name EvalFile`, then `bench 12`; at the end of input a bench
#     counts to the end);
#   - datagen, one thread, GAMES games at 5,000 soft nodes a move from one seed with that
#     same net: positions per CPU second, and whether both sides wrote the same positions,
#     scores and results (`datagen convert --all` of both, by the working tree's datagen: the
#     same search plays the same games, so the labels are unchanged; the files' headers may
#     differ where the header format changed).
# Both sides must search the same trees: the bench node counts must agree (otherwise the
# ratio of times is not a ratio of speeds, and the script stops), and datagen's positions
# are printed for both. Run it on an otherwise idle machine (pause self-play with SIGSTOP);
# it prints the CPU model first.
#
# Usage: scripts/speed-against.sh BASE [runs=5] [games=40]   (BASE: anything git rev-parse takes)
# Builds BASE in a git worktree under target/speed/ and the working tree in
# target/speed/head (release profile, -C target-cpu=native).
set -euo pipefail
if [ $# -lt 1 ]; then
    sed -n '2,25p' "$0"
    exit 2
fi
base=$1 runs=${2:-5} games=${3:-40}
root=$(git rev-parse --show-toplevel)
cd "$root"
export RUSTFLAGS="-C target-cpu=native"
sha=$(git rev-parse --verify "$base^{commit}")
mkdir -p target/speed
if [ ! -d "target/speed/$sha" ]; then
    git worktree add --detach "target/speed/$sha" "$sha" >&2
fi
(cd "target/speed/$sha" && CARGO_TARGET_DIR=target cargo build --release -q -p engine --bin luft -p datagen --bins >&2)
CARGO_TARGET_DIR=target/speed/head cargo build --release -q -p engine --bin luft -p datagen --bins >&2
CARGO_TARGET_DIR=target/speed/head cargo build --release -q -p nnue --example write_random_net >&2
base_bin=target/speed/$sha/target/release
head_bin=target/speed/head/release
for exe in "$base_bin/luft" "$base_bin/datagen" "$head_bin/luft" "$head_bin/datagen"; do
    [[ -x $exe ]] || { echo "error: $exe was not built" >&2; exit 1; }
done
# The 128-wide net: the one BASE embeds (engine/build.rs's DEFAULT_NET, relative to engine/).
net128=$(git show "$sha:engine/build.rs" | sed -nE 's/^const DEFAULT_NET: &str = "(.*)";/\1/p')
[[ -n $net128 ]] || { echo "error: no DEFAULT_NET in $base's engine/build.rs" >&2; exit 1; }
net128=$root/target/speed/$sha/engine/$net128
[[ -f $net128 ]] || { echo "error: $net128 (BASE's default net) is missing" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
target/speed/head/release/examples/write_random_net 256 "$tmp/random-256.nnue" >/dev/null

grep -m1 "model name" /proc/cpuinfo || true
echo "base $base ($sha) against the working tree ($(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ', modified')); $runs runs each, alternating; 128-wide net $(basename "$net128")"

TIMEFORMAT='%U %S'
# One measurement: prints "<work> <cpu seconds>" (work: bench nodes or datagen positions).
measure() {
    local bin=$1 what=$2 seed=$3 side=$4
    case $what in
        bench128)
            { time printf 'setoption name EvalFile value %s\nbench\n' "$net128" \
                | "$bin/luft" >"$tmp/out" 2>&1; } 2>"$tmp/time"
            work=$(grep -E '^[0-9]+ nodes' "$tmp/out" | tail -1 | awk '{ print $1 }')
            ;;
        bench256)
            { time printf 'setoption name EvalFile value %s\nbench 12\n' "$tmp/random-256.nnue" \
                | "$bin/luft" >"$tmp/out" 2>&1; } 2>"$tmp/time"
            work=$(grep -E '^[0-9]+ nodes' "$tmp/out" | tail -1 | awk '{ print $1 }')
            ;;
        datagen)
            rm -rf "$tmp/data-$side"
            { time "$bin/datagen" --threads 1 --games "$games" --nodes 5000 --seed "$seed" \
                --net "$net128" --out "$tmp/data-$side" >"$tmp/out" 2>&1; } 2>"$tmp/time"
            work=$(tr '\r' '\n' <"$tmp/out" | sed -nE 's/^done: [0-9]+ games, ([0-9]+) positions.*/\1/p' | tail -1)
            ;;
    esac
    [[ -n $work ]] || { echo "error: $bin: no result from $what:" >&2; tail -3 "$tmp/out" >&2; exit 1; }
    read -r user sys <"$tmp/time"
    echo "$work $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')"
}

for what in bench128 bench256 datagen; do
    ratios=""
    for ((r = 1; r <= runs; r++)); do
        if ((r % 2)); then
            read -r wb cb < <(measure "$base_bin" $what "$r" base)
            read -r wh ch < <(measure "$head_bin" $what "$r" head)
        else
            read -r wh ch < <(measure "$head_bin" $what "$r" head)
            read -r wb cb < <(measure "$base_bin" $what "$r" base)
        fi
        same=""
        if [[ $what == datagen ]]; then
            # The same search from the same seed plays the same games: the positions, scores
            # and results agree (the headers may differ in form), so the labels are the same.
            for side in base head; do
                "$head_bin/datagen" convert --to text --all --out "$tmp/text-$side" "$tmp/data-$side" >/dev/null
            done
            if cmp -s "$tmp/text-base" "$tmp/text-head"; then
                same=", positions and labels identical"
            else
                same=", positions or labels differ"
            fi
        fi
        if [[ $what != datagen && $wb != "$wh" ]]; then
            echo "error: $what searched different trees: base $wb nodes, head $wh" >&2
            exit 1
        fi
        ratio=$(awk -v wb="$wb" -v cb="$cb" -v wh="$wh" -v ch="$ch" 'BEGIN { printf "%.4f", (wh / ch) / (wb / cb) }')
        printf '%-9s run %d: base %s in %ss, head %s in %ss: head/base per CPU second %s%s\n' \
            "$what" "$r" "$wb" "$cb" "$wh" "$ch" "$ratio" "$same"
        ratios+="$ratio"$'\n'
    done
    sort -g <<<"${ratios%$'\n'}" | awk -v what="$what" '{ v[NR] = $1 }
        END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
              printf "%-9s head/base, work per CPU second: median %.3f (min %.3f, max %.3f, %d runs)\n", what, m, v[1], v[NR], NR }'
done

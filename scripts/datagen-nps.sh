#!/usr/bin/env bash
# Datagen's own search speed against `luft bench`: the same binaries and the same net,
# measured in alternating runs (bench, datagen, bench, datagen, ...) so both see the same
# machine load. Prints, per round and over all rounds, bench nps and datagen's nps/thread
# (both per wall-clock second, as each program reports them) and both per CPU second
# (bench: its nodes over the process's user + system time; datagen: its own nps/cpu-s),
# and the ratios datagen / bench. On a machine shared with other work the wall-clock
# figures fall with the load and only the ratio of alternating runs means anything; the
# CPU-second figures do not depend on it.
#
# Builds nothing: it runs $CARGO_TARGET_DIR/release/{luft,datagen} (default
# target/release); build them first with `cargo build --release -p engine -p datagen`.
#
# Usage: scripts/datagen-nps.sh [rounds=2] [games=20] [nodes=5000] [net.nnue]
# (no net: the embedded default net, which both programs load; a net: bench loads it with
# `setoption name EvalFile` and datagen with --net).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2} games=${2:-20} nodes=${3:-5000} net=${4:-}
bin=${CARGO_TARGET_DIR:-target}/release
for exe in luft datagen; do
    [[ -x $bin/$exe ]] || { echo "error: $bin/$exe not found; run: cargo build --release -p engine -p datagen" >&2; exit 2; }
done
if [[ -n $net && ! -f $net ]]; then
    echo "error: net $net not found" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

TIMEFORMAT='%U %S'
run_bench() {
    if [[ -n $net ]]; then
        printf 'setoption name EvalFile value %s\nbench\n' "$net" | "$bin/luft"
    else
        "$bin/luft" bench
    fi
}

summary=""
for ((r = 1; r <= rounds; r++)); do
    # bench: "<N> nodes <M> nps" (wall clock); CPU time from bash's `time`.
    { time run_bench >"$tmp/bench.out"; } 2>"$tmp/bench.time"
    read -r bnodes _ bnps _ < <(tail -1 "$tmp/bench.out") || { echo "error: luft bench printed nothing" >&2; exit 1; }
    read -r bu bs <"$tmp/bench.time"
    bcpu=$(awk -v n="$bnodes" -v u="$bu" -v s="$bs" 'BEGIN { printf "%.0f", n / (u + s) }')

    rm -rf "$tmp/data"
    args=(--threads 1 --games "$games" --nodes "$nodes" --out "$tmp/data" --seed "$r")
    [[ -n $net ]] && args+=(--net "$net")
    line=$("$bin/datagen" "${args[@]}" 2>&1 | tr '\r' '\n' | grep 'nps/thread' | tail -1 || true)
    dnps=$(sed -E 's/.* ([0-9]+) nps\/thread.*/\1/' <<<"$line")
    dcpu=$(sed -nE 's/.* ([0-9]+) nps\/cpu-s.*/\1/p' <<<"$line")
    if [[ -z $dnps || -z $dcpu ]]; then
        echo "error: no nps/thread and nps/cpu-s in datagen's line: $line" >&2
        exit 1
    fi
    printf 'round %d: bench %s nps (%s per CPU second)   datagen %s nps/thread (%s per CPU second)\n' \
        "$r" "$bnps" "$bcpu" "$dnps" "$dcpu"
    summary+="$bnps $bcpu $dnps $dcpu"$'\n'
done

awk 'NF == 4 { bw += $1; bc += $2; dw += $3; dc += $4; n++ }
    END {
        printf "mean over %d rounds: bench %.0f nps, datagen %.0f nps/thread (wall clock): ratio %.2f\n", n, bw / n, dw / n, dw / bw;
        printf "                     bench %.0f nps, datagen %.0f nps (per CPU second): ratio %.2f\n", bc / n, dc / n, dc / bc
    }' <<<"$summary"

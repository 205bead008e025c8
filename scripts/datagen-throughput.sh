#!/usr/bin/env bash
# Datagen throughput against its ceiling: positions/s per thread next to
# (engine nps / nodes per move), both measured here in one run with the default net.
# Usage: scripts/datagen-throughput.sh [games=40] [nodes=5000]
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-40} nodes=${2:-5000}
cargo build --release -p engine -p datagen >&2
nps=$(./target/release/luft bench | tail -1 | awk '{print $3}')
out=$(mktemp -d)
line=$(./target/release/datagen --threads 1 --games "$games" --nodes "$nodes" --out "$out" --seed 1 2>&1 | tr '\r' '\n' | grep 'pos/s' | tail -1)
rm -rf "$out"
pps=$(echo "$line" | sed -E 's/.* ([0-9]+) pos\/s .*/\1/')
npp=$(echo "$line" | sed -E 's/.* ([0-9]+) nodes\/pos .*/\1/')
dnps=$(echo "$line" | sed -E 's/.* ([0-9]+) nps\/thread .*/\1/')
echo "engine bench nps:            $nps"
echo "datagen positions/s/thread:  $pps   (nodes per stored position $npp, search nps in datagen $dnps)"
awk -v p="$pps" -v n="$nps" -v k="$nodes" -v a="$npp" 'BEGIN {
    printf "ceiling nps/%d nodes:       %.0f positions/s -> datagen reaches %.0f%%\n", k, n / k, 100 * p / (n / k);
    printf "ceiling at actual nodes/pos: %.0f positions/s -> datagen reaches %.0f%%\n", n / a, 100 * p / (n / a) }'

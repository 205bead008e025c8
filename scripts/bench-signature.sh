#!/usr/bin/env bash
# The bench signature: checks that `luft bench` prints the node count stated by the latest
# commit whose message has a `Bench: N` line (OpenBench reads a commit's bench from that
# line; Stockfish's CI checks its signature the same way), so a commit that changes the
# search without updating its `Bench:` line fails.
#
#   scripts/bench-signature.sh [LUFT]     (default: target/release/luft)
#
# Exit 0 when they agree, 1 when they differ, 2 when there is nothing to compare (no
# binary, no git history, no commit stating a bench).
set -euo pipefail
cd "$(dirname "$0")/.."
luft=${1:-target/release/luft}
if [[ ! -x $luft ]]; then
    echo "bench signature: $luft is missing (build it: cargo build --release -p engine --bin luft)" >&2
    exit 2
fi
commit=$(git log -1 --format=%H -E --grep='^Bench: [0-9]+[[:space:]]*$' 2>/dev/null || true)
if [[ -z $commit ]]; then
    echo "bench signature: no commit in the history states 'Bench: N' (or this is no git checkout)" >&2
    exit 2
fi
expected=$(git show -s --format=%B "$commit" | grep -E '^Bench: [0-9]+[[:space:]]*$' | tail -n 1 | tr -dc '0-9')
line=$("$luft" bench | tail -n 1)
actual=${line%% nodes*}
subject="$(git show -s --format='%h %s' "$commit")"
if [[ $actual != "$expected" ]]; then
    echo "bench signature: $luft bench prints $actual nodes, but the latest commit stating a bench says" \
        "Bench: $expected ($subject). A commit that changes the search ends its message with" \
        "'Bench: $actual'." >&2
    exit 1
fi
echo "bench signature: $actual nodes, as 'Bench: $expected' of $subject"

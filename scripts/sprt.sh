#!/usr/bin/env bash
# SPRT of two revisions of luft: builds each in a git worktree under target/sprt/ and runs
# an arena SPRT of NEW against BASE at a short time control.
#
# Usage: scripts/sprt.sh BASE NEW [elo0 elo1]      (revisions: anything git rev-parse takes)
# Environment: TC (default 8+0.08), CONCURRENCY (default: number of CPUs), ROUNDS (20000),
#              MODEL (normalized), EXTRA (more arena arguments, e.g. "--each nodes=5000").
# Exit code: arena's with --sprt-exit-codes (0 H1 accepted, 1 H0 accepted, 2 no decision or
#            interrupted, 3 error); arena alone exits 0 after any finished match, as fastchess.
set -euo pipefail
if [ $# -lt 2 ]; then
    sed -n '2,10p' "$0"
    exit 3
fi
base=$1 new=$2 elo0=${3:-0} elo1=${4:-5}
root=$(git rev-parse --show-toplevel)
cd "$root"
cargo build --release -p arena
mkdir -p target/sprt
build() {
    local sha dir
    sha=$(git rev-parse --verify "$1^{commit}")
    dir=target/sprt/$sha
    if [ ! -d "$dir" ]; then
        git worktree add --detach "$dir" "$sha" >&2
    fi
    (cd "$dir" && cargo build --release -p engine --bin luft >&2)
    echo "$dir/target/release/luft"
}
base_bin=$(build "$base")
new_bin=$(build "$new")
echo "base $base: $("$base_bin" bench | tail -1)"
echo "new  $new: $("$new_bin" bench | tail -1)"
set +e
./target/release/arena \
    --engine cmd="$new_bin" name="new-$new" --engine cmd="$base_bin" name="base-$base" \
    --each tc="${TC:-8+0.08}" option.Hash=16 option.Threads=1 \
    --openings file=arena/openings/luft-8ply.epd format=epd order=random \
    --rounds "${ROUNDS:-20000}" --games 2 --concurrency "${CONCURRENCY:-$(nproc)}" \
    --sprt elo0="$elo0" elo1="$elo1" alpha=0.05 beta=0.05 model="${MODEL:-normalized}" \
    --pgnout "target/sprt/$base-vs-$new.pgn" --recover --seed "$RANDOM" --ratinginterval 20 \
    --sprt-exit-codes ${EXTRA:-}
exit $?

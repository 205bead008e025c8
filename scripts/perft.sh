#!/usr/bin/env bash
# Runs the four perft suites at every published depth with the release `perft` tool and
# prints a pass/fail summary per suite. Exit code 1 on any mismatch.
# Usage: scripts/perft.sh [--max-nodes N]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p movegen --bin perft
status=0
for suite in standard.epd tricky.perft chess960.epd random.perft; do
    echo "== $suite"
    ./target/release/perft --suite "movegen/tests/data/$suite" "$@" | grep -v '^ok ' || status=1
done
exit $status

#!/bin/bash
# the 10+0.1 field for the default (gen19-128, the tuned search of 570c91a),
# gen13-128 on the same binary, gen17's games of 2026-12-03 in the same fit; resumable (a shorter PGN is completed)
cd .
B=<bin>/luft-main
run() { ARENA=<bin>/tools/arena nice -n 5 scripts/gauntlet.sh --no-install --tc 10+0.1 --concurrency 1 --out <gauntlet> --extra "--each timemargin=100" "$@"; }
run --luft gen19-tuned=$B:nets/gen19-128.nnue --opponents ethereal --games 100 --anchor none || exit 3
run --luft gen19-tuned=$B:nets/gen19-128.nnue --opponents sf2600,sf2800,toga --games 40 || exit 3
run --luft gen13-128=$B:nets/gen13-128.nnue --opponents ethereal,sf2600 --games 40 || exit 3

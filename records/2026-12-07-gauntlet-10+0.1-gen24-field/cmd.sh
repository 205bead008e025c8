#!/usr/bin/env bash
# gen24-128 (main f0f2439, native) against Ethereal 12, Stockfish 15.1 UCI_Elo 2600 and 2800 at 10+0.1, 100 games each.
cd <repository>
ARENA=<bin>/arena exec nice -n 5 scripts/gauntlet.sh --no-install \
  --luft gen24-128=<bin>/luft:nets/gen24-128.nnue \
  --opponents ethereal,sf2600,sf2800 --games 100 --tc 10+0.1 --concurrency 2 \
  --out <gauntlet> --anchor none --extra "--each timemargin=100"

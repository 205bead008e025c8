#!/usr/bin/env bash
# gen25-128 (the profile-guided build of scripts/build-pgo.sh, native, bench 30,523,777) against
# Ethereal 12 and Stockfish 15.1 at UCI_Elo 2800 at 10+0.1, 100 games each, one game at a time.
# <gauntlet>/../gen25-128.nnue is a copy of nets/gen25-128.nnue (the net the binary embeds).
cd <repository>
ARENA=<bin>/arena scripts/gauntlet.sh \
  --luft gen25-128=<bin>/luft:<gauntlet>/../gen25-128.nnue \
  --opponents ethereal,sf2800 --games 100 --tc 10+0.1 --concurrency 1 \
  --out <gauntlet> --anchor none --extra "--each timemargin=100"
# Completed 2026-12-08 with the Stockfish 2600 pairing (its two games begun are kept):
ARENA=<bin>/arena scripts/gauntlet.sh \
  --luft gen25-128=<bin>/luft:<gauntlet>/../gen25-128.nnue \
  --opponents sf2600 --games 100 --tc 10+0.1 --concurrency 1 \
  --out <gauntlet> --anchor none --no-install --extra "--each timemargin=100"
# The joint fit, over the 10+0.1 PGNs of the records listed in ratings.txt (gunzip -k first):
arena rate --anchor ethereal=0 *.pgn
arena rate --anchor sf2600=2600 *.pgn

#!/bin/bash
# short gauntlet for gen19-128 (2026-12-04): 20 games a pairing at 5+0.05, gen19 through EvalFile on the main binary of 570c91a
cd .
ARENA=<bin>/tools/arena exec nice -n 5 scripts/gauntlet.sh --no-install --luft gen19-128=<bin>/luft-main:nets/gen19-128.nnue \
    --opponents sf2200,glaurung,toga --games 20 --tc 5+0.05 --concurrency 1 --out <out> \
    --extra "--each timemargin=100"

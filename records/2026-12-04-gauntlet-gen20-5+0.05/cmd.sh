#!/bin/bash
# short gauntlet for gen20-128 (2026-12-04): 20 games a pairing at 5+0.05, the candidate through EvalFile on the main binary of aa8a727
while pgrep -f "arena -config file=state.json" > /dev/null; do sleep 10; done
cd .
ARENA=<bin>/tools/arena exec nice -n 5 scripts/gauntlet.sh --no-install --luft gen20-128=<bin>/luft-main-aa8:<gauntlet>/gen20-128-c1.nnue \
    --opponents sf2200,glaurung,toga --games 20 --tc 5+0.05 --concurrency 1 --out <out> \
    --extra "--each timemargin=100"

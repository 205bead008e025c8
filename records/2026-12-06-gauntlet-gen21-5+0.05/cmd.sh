#!/bin/bash
# short gauntlet for gen21-128 (2026-12-06): 20 games a pairing at 5+0.05, the candidate through
# EvalFile on the main binary with corrmm merged (3858fd2: the scaled soft budget and the
# minor/major correction history; bench 32,041,137 with gen20 built in)
cd .
ARENA=<bin>/tools3/arena exec nice -n 5 scripts/gauntlet.sh --no-install --luft gen21-128=<bin>/tools3/luft:<gauntlet>/gen21-128.nnue \
    --opponents sf2200,glaurung,toga --games 20 --tc 5+0.05 --concurrency 1 --out <out> \
    --extra "--each timemargin=100"

#!/bin/bash
# Each search item alone against main, 40,000 nodes a move, [0, 10], at most
# 3,000 games (1,500 pairs), one game at a time at nice 5, beside the `learn` run.
#
#   run.sh [--base NAME] [--seed N] [--adjudicate] ITEM...
#
# ITEM is a patch's name (s-ITEM.patch); its build is <bin>/luft-ITEM, the base's
# <bin>/luft-NAME (default: main). --seed is the first opening seed (default 2501, one
# more for each further ITEM). --adjudicate adds draw, resign and Syzygy adjudication
# (shorter games; the corrmm test of 2026-12-04 to 12-06 ran with it). Each test runs in
# <sprt>/ITEM and saves arena's state there (state.json): a cut test resumes with
# `arena -config file=state.json` in that folder, not with this script.
set -u
base=main seed=2501 adjudicate=()
while [ $# -gt 0 ]; do
  case "$1" in
    --base) base=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --adjudicate)
      adjudicate=(-draw movenumber=40 movecount=8 score=10 -resign movecount=3 score=1000 twosided=true
                  -tb <reference>/data/syzygy)
      shift ;;
    --*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: run.sh [--base NAME] [--seed N] [--adjudicate] ITEM..." >&2; exit 2; }
for p in "$@"; do
  d=<sprt>/$p; mkdir -p "$d"; cd "$d" || exit 1
  echo "[$(date +%T)] start $p against $base, seed $seed" >> <sprt>/seq.log
  nice -n 5 <bin>/tools/arena -engine cmd=<bin>/luft-$p name=$p -engine cmd=<bin>/luft-$base name=main \
    -each nodes=40000 option.Hash=16 option.Threads=1 \
    -openings file=arena/openings/luft-8ply.epd format=epd order=random \
    -rounds 1500 -games 2 -concurrency 1 -seed "$seed" -sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 \
    "${adjudicate[@]}" \
    -pgnout file=$p.pgn -config outname=state.json -recover > arena.log 2>&1
  rc=$?  # taken at once: a $(...) in the echo below would reset $?
  echo "[$(date +%T)] end $p rc=$rc $(grep -E 'LLR|H0|H1' arena.log | tail -2 | tr '\n' ' ')" >> <sprt>/seq.log
  seed=$((seed+1))
done

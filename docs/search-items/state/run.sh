#!/bin/bash
# issue 25 item 4: each search item alone against main (570c91a, gen18-128 built in), 40,000 nodes, [0, 10], cap 3,000
seed=2501
for p in "$@"; do
  d=/work/sprt25/$p; mkdir -p $d; cd $d
  echo "[$(date +%T)] start $p" >> /work/sprt25/seq.log
  nice -n 5 /work/bin/tools/arena -engine cmd=/work/bin/luft-$p name=$p -engine cmd=/work/bin/luft-main name=main \
    -each nodes=40000 option.Hash=16 option.Threads=1 \
    -openings file=/work/main/arena/openings/luft-8ply.epd format=epd order=random \
    -rounds 1500 -games 2 -concurrency 1 -seed $seed -sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 \
    -pgnout file=$p.pgn -config outname=state.json -recover > arena.log 2>&1
  rc=$?  # taken at once: a $(...) in the echo below would reset $?
  echo "[$(date +%T)] end $p rc=$rc $(grep -E 'LLR|H0|H1' arena.log | tail -2 | tr '\n' ' ')" >> /work/sprt25/seq.log
  seed=$((seed+1))
done

#!/bin/bash
# issue 25 item 4 (session 27): after histprune ends, correction history by minor/major pieces
# against main of aa8a727 (gen19-128 built in), 40,000 nodes, [0, 10], cap 3,000 games,
# with draw/resign/Syzygy adjudication to shorten the games
# (started by hand after the gen20 gauntlet)
p=corrmm
d=/work/sprt25/$p; mkdir -p $d; cd $d
echo "[$(date +%T)] start $p" >> /work/sprt25/seq.log
nice -n 5 /work/bin/tools/arena -engine cmd=/work/bin/luft-$p name=$p -engine cmd=/work/bin/luft-main-aa8 name=main \
  -each nodes=40000 option.Hash=16 option.Threads=1 \
  -openings file=/work/main/arena/openings/luft-8ply.epd format=epd order=random \
  -rounds 1500 -games 2 -concurrency 1 -seed 2701 -sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 \
  -draw movenumber=40 movecount=8 score=10 -resign movecount=3 score=1000 twosided=true \
  -tb /work/shared/data/syzygy \
  -pgnout file=$p.pgn -config outname=state.json -recover > arena.log 2>&1
rc=$?
echo "[$(date +%T)] end $p rc=$rc $(grep -E 'LLR' arena.log | tail -1)" >> /work/sprt25/seq.log

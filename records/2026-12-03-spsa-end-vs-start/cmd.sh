#!/bin/bash
# issue 25: the search at the end (1c0ba2d, tuned) against the start (d07712c), both with gen13-128, 10+0.1
cd /work/evs25
exec nice -n 5 /work/bin/tools/arena -engine cmd=/work/bin/luft-s23 name=end -engine cmd=/work/bin/luft-issue25-start name=start \
  -each tc=10+0.1 option.Hash=16 option.Threads=1 option.EvalFile=/work/main/nets/gen13-128.nnue timemargin=100 \
  -openings file=/work/main/arena/openings/luft-8ply.epd format=epd order=random \
  -rounds 150 -games 2 -concurrency 1 -seed 2425 -pgnout file=evs25.pgn -config outname=state.json -recover

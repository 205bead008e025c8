#!/bin/bash
# the search at the end (1c0ba2d, tuned) against the start (d07712c), both with gen13-128, 10+0.1
cd <out>
exec nice -n 5 <bin>/tools/arena -engine cmd=<bin>/luft-1c0ba2d name=end -engine cmd=<bin>/luft-start name=start \
  -each tc=10+0.1 option.Hash=16 option.Threads=1 option.EvalFile=nets/gen13-128.nnue timemargin=100 \
  -openings file=arena/openings/luft-8ply.epd format=epd order=random \
  -rounds 150 -games 2 -concurrency 1 -seed 2425 -pgnout file=evs25.pgn -config outname=state.json -recover

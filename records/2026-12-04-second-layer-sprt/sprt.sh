#!/bin/bash
# the layered net against the plain one, same data and schedule, both from scratch
cd <exp>
while [ ! -f layered/done ]; do sleep 30; done
mkdir -p sprt; cd sprt
exec nice -n 5 <bin>/tools/arena -engine cmd=<bin>/luft-main name=layered option.EvalFile=<exp>/layered/final.nnue \
  -engine cmd=<bin>/luft-main name=plain option.EvalFile=<exp>/plain/final.nnue \
  -each tc=2+0.02 option.Hash=16 option.Threads=1 timemargin=100 \
  -openings file=arena/openings/luft-8ply.epd format=epd order=random \
  -rounds 750 -games 2 -concurrency 1 -seed 2512 -sprt elo0=0 elo1=15 alpha=0.05 beta=0.05 \
  -pgnout file=layered.pgn -config outname=state.json -recover > arena.log 2>&1

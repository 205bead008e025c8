#!/bin/bash
# a second layer against none, both from scratch on one data set and schedule
cd <exp>
data="data/selfplay/*.pack <reference>/data/selfplay/gen13-a.bin <reference>/data/selfplay/gen13-dfrc-a.bin"
for a in plain layered; do
  [ -f $a/done ] && continue
  if [ $a = plain ]; then arch="(768 -> 128)x2 -> 1x8"; else arch="(768 -> 128)x2 -> (16 -> 32 -> 1)x8"; fi

  nice -n 10 <bin>/tools/trainer train --data $data --arch "$arch" --epochs 12 --lr 0.001 --wdl 0.3 --seed 2511 --threads 1 --out $a > $a.log 2>&1 && touch $a/done
done

"""Average nodes a move of each engine in arena PGNs written with `-pgnout nodes=true`.

Usage: python3 scripts/pgn-nodes.py GAMES.pgn [MORE.pgn ...]
Prints one line an engine: its moves and their mean node count (the `n=` of each move's
comment), so a match meant to be at equal nodes a move can be checked (docs/search-sprts.md).
"""
import re
import sys

tot = {}
for path in sys.argv[1:]:
    for g in open(path).read().split('[Event')[1:]:
        w = re.search(r'\[White "([^"]+)"', g).group(1)
        b = re.search(r'\[Black "([^"]+)"', g).group(1)
        fen = re.search(r'\[FEN "([^"]+)"', g)
        stm = fen.group(1).split()[1] if fen else 'w'
        ns = [int(x) for x in re.findall(r'n=(\d+)', g[g.index('\n\n'):])]
        for i, n in enumerate(ns):
            name = w if (i % 2 == 0) == (stm == 'w') else b
            t = tot.setdefault(name, [0, 0])
            t[0] += n
            t[1] += 1
if not tot:
    sys.exit("pgn-nodes.py: no move with a node count (was the PGN written with -pgnout nodes=true?)")
for k, (s, c) in tot.items():
    print(f"{k}: {c} moves, {s / c:.0f} nodes a move")

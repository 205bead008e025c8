"""Average nodes a move of each engine in arena PGNs written with `-pgnout nodes=true`.

Usage: python3 scripts/pgn-nodes.py GAMES.pgn [MORE.pgn ...]
Prints one line an engine: its moves and their mean node count (the `n=` of each move's
comment), so a match meant to be at equal nodes a move can be checked (docs/search-sprts.md).
"""
import re
import sys

TOKEN = re.compile(r'\{[^}]*\}|\(|\)|\$\d+|\d+\.\.\.|\d+\.|[^\s{}()]+')
RESULTS = {'1-0', '0-1', '1/2-1/2', '*'}

tot = {}
for path in sys.argv[1:]:
    for g in open(path).read().split('[Event')[1:]:
        names = {'w': re.search(r'\[White "([^"]+)"', g).group(1),
                 'b': re.search(r'\[Black "([^"]+)"', g).group(1)}
        fen = re.search(r'\[FEN "([^"]+)"', g)
        side = fen.group(1).split()[1] if fen else 'w'
        mover = None
        # Walk the movetext: a move number sets the side to move, a move is the side's and
        # flips it, a comment belongs to the move before it (book moves have no n=).
        for tok in TOKEN.findall(g[g.index('\n\n'):]):
            if tok.startswith('{'):
                n = re.search(r'n=(\d+)', tok)
                if n and mover:
                    t = tot.setdefault(names[mover], [0, 0])
                    t[0] += int(n.group(1))
                    t[1] += 1
            elif tok.endswith('...'):
                side = 'b'
            elif tok.endswith('.'):
                side = 'w'
            elif tok in RESULTS or tok in '()' or tok.startswith('$'):
                continue
            else:
                mover, side = side, ('b' if side == 'w' else 'w')
if not tot:
    sys.exit("pgn-nodes.py: no move with a node count (was the PGN written with -pgnout nodes=true?)")
for k, (s, c) in tot.items():
    print(f"{k}: {c} moves, {s / c:.0f} nodes a move")

#!/usr/bin/env python3
"""Endgame openings for the Syzygy strength check: 60 random legal positions with 6 to 8
pieces (kings included), similar material on both sides, White to move, not in check, whose
static evaluation by luft is within 120 cp. Seeded: the same list every run (with the same
net). Usage: python3 scripts/syzygy-endgames.py [LUFT] [OUT.epd] (pip install chess)."""
import random, subprocess, sys, chess
rng = random.Random(2024)
sets = ["RP", "RPP", "BPP", "NPP", "QP", "PPP", "RB", "BP", "NP", "RN"]
luft = subprocess.Popen([sys.argv[1] if len(sys.argv) > 1 else "target/release/luft"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def ev(fen):
    luft.stdin.write(f"position fen {fen}\neval\n"); luft.stdin.flush()
    while True:
        l = luft.stdout.readline()
        if l.startswith("info string eval"):
            return int(l.split()[3])
out = []
while len(out) < 60:
    a = rng.choice(sets); b = a if rng.random() < 0.6 else rng.choice(sets)
    n = 2 + len(a) + len(b)
    if not 6 <= n <= 8: continue
    board = chess.Board(None)
    sq = list(chess.SQUARES); rng.shuffle(sq)
    ok = True
    for color, letters in ((chess.WHITE, "K"+a), (chess.BLACK, "K"+b)):
        for L in letters:
            s = sq.pop()
            kind = chess.Piece.from_symbol(L).piece_type
            if kind == chess.PAWN and chess.square_rank(s) in (0, 7): ok = False
            board.set_piece_at(s, chess.Piece(kind, color))
    board.turn = chess.WHITE
    if not ok or not board.is_valid() or board.is_check() or board.is_game_over(): continue
    fen = board.fen()
    e = ev(fen)
    if abs(e) <= 120:
        out.append(" ".join(fen.split()[:4]))
open(sys.argv[2] if len(sys.argv) > 2 else "endgames.epd", "w").write("\n".join(out)+"\n")
print(len(out))

#!/usr/bin/env python3
"""Writes the reference list the `tablebase` crate's tests check Luft's prober against.

For every 3- and 4-piece ending whose WDL table is in TABLES (default
../shared/data/syzygy), PER_ENDING random legal positions: half with the
material as named (KRvK: White has the rook), half with colours swapped, each
side to move in turn, halfmove clock 0, no castling; for endings with a pawn of
each side, extra positions where an en passant capture is legal. Each line is
`FEN;WDL;DTZ` with python-chess's `probe_wdl` and `probe_dtz` answers.

    pip install chess==1.11.2
    python3 scripts/syzygy-reference.py [TABLES] > tablebase/tests/data/syzygy-reference.txt

The output is committed, so the tests run without Python; the seed is fixed, so
the list is the same on every run.
"""

import os
import random
import sys

import chess
import chess.syzygy

PER_ENDING = 120
EP_EXTRA = 40
SEED = 24

PIECES = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP, "N": chess.KNIGHT, "P": chess.PAWN}


def random_position(rng, white, black, turn):
    """A random legal position with `white` and `black` piece letters, or None."""
    board = chess.Board(None)
    squares = list(chess.SQUARES)
    rng.shuffle(squares)
    for color, letters in ((chess.WHITE, white), (chess.BLACK, black)):
        for letter in letters:
            kind = PIECES[letter]
            while True:
                sq = squares.pop()
                if kind != chess.PAWN or chess.square_rank(sq) not in (0, 7):
                    break
            board.set_piece_at(sq, chess.Piece(kind, color))
    board.turn = turn
    return board if board.is_valid() else None


def ep_position(rng, white, black, turn):
    """A random legal position where the side to move can capture en passant, or None."""
    board = random_position(rng, white, black, turn)
    if board is None:
        return None
    us, them = turn, not turn
    our_pawns = list(board.pieces(chess.PAWN, us))
    their_pawns = list(board.pieces(chess.PAWN, them))
    if not our_pawns or not their_pawns:
        return None
    # Put their pawn on its fourth rank, ours beside it, the two squares behind empty.
    rank = 4 if us == chess.WHITE else 3  # 0-based rank of the pawn that just double pushed
    step = 8 if them == chess.WHITE else -8
    file = rng.randrange(8)
    side = rng.choice([-1, 1])
    if not 0 <= file + side < 8:
        return None
    theirs, ours = chess.square(file, rank), chess.square(file + side, rank)
    passed, start = theirs - step, theirs - 2 * step
    for sq in (theirs, ours, passed, start):
        if board.piece_at(sq) is not None and sq not in (our_pawns[0], their_pawns[0]):
            return None
    board.remove_piece_at(our_pawns[0])
    board.remove_piece_at(their_pawns[0])
    for sq in (theirs, ours, passed, start):
        if board.piece_at(sq) is not None:
            return None
    board.set_piece_at(theirs, chess.Piece(chess.PAWN, them))
    board.set_piece_at(ours, chess.Piece(chess.PAWN, us))
    board.ep_square = passed
    if not board.is_valid() or not board.has_legal_en_passant():
        return None
    return board


def main():
    tables = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../shared/data/syzygy")
    names = sorted(f[:-5] for f in os.listdir(tables) if f.endswith(".rtbw"))
    rng = random.Random(SEED)
    tb = chess.syzygy.open_tablebase(tables)
    print("# python-chess %s probe_wdl / probe_dtz on the 3-4 piece Syzygy tables; made by" % chess.__version__)
    print("# scripts/syzygy-reference.py (seed %d). FEN;WDL;DTZ" % SEED)
    count = 0
    for name in names:
        strong, weak = name.split("v")
        boards = []
        i = 0
        while len(boards) < PER_ENDING:
            swapped = i % 4 >= 2
            turn = chess.WHITE if i % 2 == 0 else chess.BLACK
            white, black = (weak, strong) if swapped else (strong, weak)
            board = random_position(rng, white, black, turn)
            if board is not None:
                boards.append(board)
                i += 1
        if "P" in strong and "P" in weak:
            extra = 0
            while extra < EP_EXTRA:
                swapped = extra % 4 >= 2
                turn = chess.WHITE if extra % 2 == 0 else chess.BLACK
                white, black = (weak, strong) if swapped else (strong, weak)
                board = ep_position(rng, white, black, turn)
                if board is not None:
                    boards.append(board)
                    extra += 1
        for board in boards:
            print("%s;%d;%d" % (board.fen(en_passant="legal"), tb.probe_wdl(board), tb.probe_dtz(board)))
            count += 1
    print("# %d positions, %d endings" % (count, len(names)))


if __name__ == "__main__":
    main()

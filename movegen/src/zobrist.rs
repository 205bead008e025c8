//! Zobrist keys, generated at compile time from a fixed seed (splitmix64), so a position's
//! key is the same in every build and on every machine. A key covers exactly what makes two
//! positions the same under the repetition rule: pieces on squares, the side to move, the
//! castling rights (with their rook files, for Chess960), and the en passant file, the last
//! only when an en passant capture is legal.

use crate::types::{Color, File, Piece, Square};

/// One SplitMix64 step in a `const` context: (next state, output).
const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(crate::rng::GOLDEN);
    (s, crate::rng::mix(s))
}

struct Keys {
    pieces: [[u64; 64]; 12],
    castling: [[[u64; 8]; 2]; 2],
    en_passant: [u64; 8],
    side: u64,
}

const KEYS: Keys = {
    let mut state = 0x4C75_6674_u64; // "Luft"
    let mut keys = Keys {
        pieces: [[0; 64]; 12],
        castling: [[[0; 8]; 2]; 2],
        en_passant: [0; 8],
        side: 0,
    };
    let mut p = 0;
    while p < 12 {
        let mut s = 0;
        while s < 64 {
            let (next, v) = splitmix(state);
            state = next;
            keys.pieces[p][s] = v;
            s += 1;
        }
        p += 1;
    }
    let mut c = 0;
    while c < 2 {
        let mut side = 0;
        while side < 2 {
            let mut f = 0;
            while f < 8 {
                let (next, v) = splitmix(state);
                state = next;
                keys.castling[c][side][f] = v;
                f += 1;
            }
            side += 1;
        }
        c += 1;
    }
    let mut f = 0;
    while f < 8 {
        let (next, v) = splitmix(state);
        state = next;
        keys.en_passant[f] = v;
        f += 1;
    }
    let (_, v) = splitmix(state);
    keys.side = v;
    keys
};

/// Key of `piece` on `sq`.
#[inline(always)]
pub fn piece(piece: Piece, sq: Square) -> u64 {
    KEYS.pieces[piece.color.index() * 6 + piece.kind.index()][sq.index()]
}

/// Key of a castling right of `color` on side `side` (0 = king side, 1 = queen side) with
/// its rook on `rook_file`.
#[inline(always)]
pub fn castling(color: Color, side: usize, rook_file: File) -> u64 {
    KEYS.castling[color.index()][side][rook_file.index()]
}

/// Key of a legal en passant capture onto `file`.
#[inline(always)]
pub fn en_passant(file: File) -> u64 {
    KEYS.en_passant[file.index()]
}

/// Key XORed in when Black is to move.
#[inline(always)]
pub fn side_to_move() -> u64 {
    KEYS.side
}

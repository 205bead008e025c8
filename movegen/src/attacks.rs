//! Attack lookups. Every table is computed by `build.rs` and included as statics, so each
//! lookup is one or two memory reads: leaper attacks by square, slider attacks by fancy
//! magic (or BMI2 PEXT with the `pext` feature on a CPU built for it), and the `between`
//! and `line` tables the legal move generator uses for check evasions and pins.

use crate::bitboard::Bitboard;
use crate::types::{Color, Square};

pub(crate) struct Magic {
    mask: u64,
    #[cfg_attr(all(feature = "pext", target_feature = "bmi2"), allow(dead_code))]
    magic: u64,
    #[cfg_attr(all(feature = "pext", target_feature = "bmi2"), allow(dead_code))]
    shift: u32,
    offset: usize,
}

include!(concat!(env!("OUT_DIR"), "/tables.rs"));

#[inline(always)]
fn slider_index(entry: &Magic, occupied: Bitboard) -> usize {
    #[cfg(all(feature = "pext", target_feature = "bmi2"))]
    {
        // SAFETY: `_pext_u64` needs BMI2, and this line is compiled only for a target with
        // BMI2 (the `cfg` above), whose code already assumes the CPU has it.
        entry.offset + unsafe { std::arch::x86_64::_pext_u64(occupied.0, entry.mask) } as usize
    }
    #[cfg(not(all(feature = "pext", target_feature = "bmi2")))]
    {
        let _ = USE_PEXT;
        entry.offset + ((occupied.0 & entry.mask).wrapping_mul(entry.magic) >> entry.shift) as usize
    }
}

/// Squares a rook on `sq` attacks given the occupancy `occupied`.
#[inline(always)]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let entry = &ROOK_MAGICS[sq.index()];
    // Indices are in bounds by construction of the table in build.rs.
    Bitboard(ROOK_TABLE[slider_index(entry, occupied)])
}

/// Squares a bishop on `sq` attacks given the occupancy `occupied`.
#[inline(always)]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let entry = &BISHOP_MAGICS[sq.index()];
    Bitboard(BISHOP_TABLE[slider_index(entry, occupied)])
}

/// Squares a queen on `sq` attacks given the occupancy `occupied`: the union of the rook's
/// and the bishop's attacks (each ray stops at, and includes, the first occupied square).
#[inline(always)]
pub fn queen_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    rook_attacks(sq, occupied) | bishop_attacks(sq, occupied)
}

/// Rook rays on an empty board.
#[inline(always)]
pub fn rook_rays(sq: Square) -> Bitboard {
    Bitboard(ROOK_RAYS[sq.index()])
}

/// Bishop rays on an empty board.
#[inline(always)]
pub fn bishop_rays(sq: Square) -> Bitboard {
    Bitboard(BISHOP_RAYS[sq.index()])
}

/// Squares a knight on `sq` attacks (on any board: knights are not blocked).
#[inline(always)]
pub fn knight_attacks(sq: Square) -> Bitboard {
    Bitboard(KNIGHT_ATTACKS[sq.index()])
}

/// Squares a king on `sq` attacks: its up to eight neighbours (castling is not an attack).
#[inline(always)]
pub fn king_attacks(sq: Square) -> Bitboard {
    Bitboard(KING_ATTACKS[sq.index()])
}

/// Squares a pawn of `color` on `sq` attacks.
#[inline(always)]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    match color {
        Color::White => Bitboard(WHITE_PAWN_ATTACKS[sq.index()]),
        Color::Black => Bitboard(BLACK_PAWN_ATTACKS[sq.index()]),
    }
}

/// Squares strictly between `a` and `b` if they share a line, else empty.
#[inline(always)]
pub fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(BETWEEN[a.index() * 64 + b.index()])
}

/// The whole line through `a` and `b` (edge to edge) if they share one, else empty.
#[inline(always)]
pub fn line(a: Square, b: Square) -> Bitboard {
    Bitboard(LINE[a.index() * 64 + b.index()])
}

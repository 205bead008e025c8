//! A set of squares as a 64-bit word, with the set operations, shifts and iteration the
//! move generator uses. Bit `i` stands for `Square(i)` (a1 = bit 0, h8 = bit 63).

use crate::types::{Color, File, Rank, Square};
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of squares: bit `i` of the word is set when `Square(i)` is in the set (a1 = bit 0,
/// h8 = bit 63). Iterating yields the squares in ascending order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 64 squares.
    pub const FULL: Bitboard = Bitboard(!0);
    /// The 32 light squares (h1, a2, ...; a1 is dark).
    pub const LIGHT_SQUARES: Bitboard = Bitboard(0x55AA_55AA_55AA_55AA);
    /// The 32 dark squares (a1, c1, ...).
    pub const DARK_SQUARES: Bitboard = Bitboard(0xAA55_AA55_AA55_AA55);

    /// The set holding only `sq`.
    #[inline]
    pub const fn from_square(sq: Square) -> Self {
        Bitboard(1u64 << sq.index())
    }

    /// The eight squares of `file`.
    #[inline]
    pub const fn file(file: File) -> Self {
        Bitboard(0x0101_0101_0101_0101 << file.index())
    }

    /// The eight squares of `rank`.
    #[inline]
    pub const fn rank(rank: Rank) -> Self {
        Bitboard(0xFF << (8 * rank.index()))
    }

    /// Whether the set holds no square.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the set holds at least one square.
    #[inline]
    pub const fn is_nonempty(self) -> bool {
        self.0 != 0
    }

    /// Whether `sq` is in the set.
    #[inline]
    pub const fn has(self, sq: Square) -> bool {
        self.0 >> sq.index() & 1 != 0
    }

    /// The number of squares in the set (0..=64).
    #[inline]
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// More than one square in the set.
    #[inline]
    pub const fn has_many(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The lowest square, if any.
    #[inline]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_index_unchecked(self.0.trailing_zeros()))
        }
    }

    /// The lowest square of a set known to be non-empty.
    #[inline]
    pub(crate) const fn lsb(self) -> Square {
        Square::from_index_unchecked(self.0.trailing_zeros())
    }

    /// Shifts every square one rank toward `color`'s opponent (White: up).
    #[inline]
    pub const fn forward(self, color: Color) -> Self {
        match color {
            Color::White => Bitboard(self.0 << 8),
            Color::Black => Bitboard(self.0 >> 8),
        }
    }

    /// The squares attacked by pawns of `color` standing on this set.
    #[inline]
    pub const fn pawn_attacks(self, color: Color) -> Self {
        const NOT_A: u64 = !0x0101_0101_0101_0101;
        const NOT_H: u64 = !0x8080_8080_8080_8080;
        let b = self.0;
        match color {
            Color::White => Bitboard(((b & NOT_A) << 7) | ((b & NOT_H) << 9)),
            Color::Black => Bitboard(((b & NOT_A) >> 9) | ((b & NOT_H) >> 7)),
        }
    }
}

impl Iterator for Bitboard {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let sq = self.lsb();
        self.0 &= self.0 - 1;
        Some(sq)
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

macro_rules! bit_op {
    ($tr:ident, $f:ident, $op:tt, $tra:ident, $fa:ident) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $tr<Square> for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Square) -> Bitboard {
                Bitboard(self.0 $op (1u64 << rhs.index()))
            }
        }
        impl $tra for Bitboard {
            #[inline]
            fn $fa(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
        impl $tra<Square> for Bitboard {
            #[inline]
            fn $fa(&mut self, rhs: Square) {
                self.0 = self.0 $op (1u64 << rhs.index());
            }
        }
    };
}

bit_op!(BitAnd, bitand, &, BitAndAssign, bitand_assign);
bit_op!(BitOr, bitor, |, BitOrAssign, bitor_assign);
bit_op!(BitXor, bitxor, ^, BitXorAssign, bitxor_assign);

impl std::ops::Shl<u32> for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn shl(self, n: u32) -> Bitboard {
        Bitboard(self.0 << n)
    }
}

impl std::ops::Shr<u32> for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn shr(self, n: u32) -> Bitboard {
        Bitboard(self.0 >> n)
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl From<Square> for Bitboard {
    #[inline]
    fn from(sq: Square) -> Self {
        Bitboard::from_square(sq)
    }
}

impl std::fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "Bitboard({:#018x})", self.0)?;
        for rank in (0..8).rev() {
            for file in 0..8 {
                let c = if self.0 >> (rank * 8 + file) & 1 != 0 {
                    'X'
                } else {
                    '.'
                };
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

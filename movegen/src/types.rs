//! The small value types every other module speaks: squares, files, ranks, colours, piece
//! types, pieces and moves. Each is a thin wrapper around a byte (a `u16` for moves) with
//! `const` constructors, so they cost nothing in the move generator's inner loops while
//! keeping square, file and piece arithmetic from being mixed up.

use std::fmt;

/// One of the 64 squares, numbered a1 = 0, b1 = 1, ..., h8 = 63.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Square(u8);

impl Square {
    /// The square with index `index` (0..64).
    ///
    /// # Panics
    /// If `index >= 64`.
    #[inline]
    pub const fn new(index: u8) -> Self {
        assert!(index < 64, "square index out of range");
        Square(index)
    }

    /// The square with index `index`, or `None` when out of range.
    #[inline]
    pub const fn try_new(index: u8) -> Option<Self> {
        if index < 64 {
            Some(Square(index))
        } else {
            None
        }
    }

    #[inline]
    pub(crate) const fn from_index_unchecked(index: u32) -> Self {
        Square(index as u8)
    }

    /// The square on `file` and `rank`.
    #[inline]
    pub const fn from_coords(file: File, rank: Rank) -> Self {
        Square(rank.0 * 8 + file.0)
    }

    /// The square's index, 0 (a1) to 63 (h8): `rank * 8 + file`.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The square's file.
    #[inline]
    pub const fn file(self) -> File {
        File(self.0 & 7)
    }

    /// The square's rank.
    #[inline]
    pub const fn rank(self) -> Rank {
        Rank(self.0 >> 3)
    }

    /// The square seen from `color`'s side: a1 stays a1 for White and becomes a8 for Black.
    #[inline]
    pub const fn relative_to(self, color: Color) -> Self {
        match color {
            Color::White => self,
            Color::Black => Square(self.0 ^ 56),
        }
    }

    /// The square `delta` indices away, if on the board (no wrap check across files).
    #[inline]
    pub const fn offset(self, delta: i8) -> Option<Self> {
        let v = self.0 as i16 + delta as i16;
        if v >= 0 && v < 64 {
            Some(Square(v as u8))
        } else {
            None
        }
    }

    /// Whether the square is a light square (h1 is light, a1 dark).
    #[inline]
    pub const fn is_light(self) -> bool {
        (self.file().0 + self.rank().0) % 2 == 1
    }

    /// Parses algebraic coordinates such as `e4`.
    pub fn parse(text: &str) -> Option<Self> {
        let bytes = text.as_bytes();
        if bytes.len() != 2 {
            return None;
        }
        Some(Square::from_coords(
            File::from_char(bytes[0] as char)?,
            Rank::from_char(bytes[1] as char)?,
        ))
    }

    /// All 64 squares in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().to_char(), self.rank().to_char())
    }
}

/// A file, a (0) to h (7).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct File(u8);

impl File {
    /// The a-file.
    pub const A: File = File(0);
    /// The b-file.
    pub const B: File = File(1);
    /// The c-file.
    pub const C: File = File(2);
    /// The d-file.
    pub const D: File = File(3);
    /// The e-file.
    pub const E: File = File(4);
    /// The f-file.
    pub const F: File = File(5);
    /// The g-file.
    pub const G: File = File(6);
    /// The h-file.
    pub const H: File = File(7);

    /// The file with index `index`, 0 (a) to 7 (h).
    ///
    /// # Panics
    /// If `index >= 8`.
    #[inline]
    pub const fn new(index: u8) -> Self {
        assert!(index < 8, "file index out of range");
        File(index)
    }
    /// The file's index, 0 (a) to 7 (h).
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// The file of a lower-case letter `a`..`h`; `None` for anything else.
    pub fn from_char(c: char) -> Option<Self> {
        match c {
            'a'..='h' => Some(File(c as u8 - b'a')),
            _ => None,
        }
    }
    /// The file's lower-case letter, `a`..`h`.
    pub const fn to_char(self) -> char {
        (b'a' + self.0) as char
    }
}

/// A rank, 1 (0) to 8 (7).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Rank(u8);

impl Rank {
    /// The first rank (White's back rank).
    pub const FIRST: Rank = Rank(0);
    /// The second rank.
    pub const SECOND: Rank = Rank(1);
    /// The third rank.
    pub const THIRD: Rank = Rank(2);
    /// The fourth rank.
    pub const FOURTH: Rank = Rank(3);
    /// The fifth rank.
    pub const FIFTH: Rank = Rank(4);
    /// The sixth rank.
    pub const SIXTH: Rank = Rank(5);
    /// The seventh rank.
    pub const SEVENTH: Rank = Rank(6);
    /// The eighth rank (Black's back rank).
    pub const EIGHTH: Rank = Rank(7);

    /// The rank with index `index`, 0 (first) to 7 (eighth).
    ///
    /// # Panics
    /// If `index >= 8`.
    #[inline]
    pub const fn new(index: u8) -> Self {
        assert!(index < 8, "rank index out of range");
        Rank(index)
    }
    /// The rank's index, 0 (first) to 7 (eighth).
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// The rank seen from `color`'s side (White's first rank is Black's eighth).
    #[inline]
    pub const fn relative_to(self, color: Color) -> Self {
        match color {
            Color::White => self,
            Color::Black => Rank(7 - self.0),
        }
    }
    /// The rank of a digit `1`..`8`; `None` for anything else.
    pub fn from_char(c: char) -> Option<Self> {
        match c {
            '1'..='8' => Some(Rank(c as u8 - b'1')),
            _ => None,
        }
    }
    /// The rank's digit, `1`..`8`.
    pub const fn to_char(self) -> char {
        (b'1' + self.0) as char
    }
}

/// White or Black.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Color {
    /// White, who moves first.
    White = 0,
    /// Black.
    Black = 1,
}

impl Color {
    /// Both colours, White first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// 0 for White, 1 for Black (for indexing per-colour tables).
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl std::ops::Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

/// The six kinds of piece.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum PieceType {
    /// A pawn.
    Pawn = 0,
    /// A knight.
    Knight = 1,
    /// A bishop.
    Bishop = 2,
    /// A rook.
    Rook = 3,
    /// A queen.
    Queen = 4,
    /// A king.
    King = 5,
}

impl PieceType {
    /// Every piece type in index order, pawn to king.
    pub const ALL: [PieceType; 6] = [
        PieceType::Pawn,
        PieceType::Knight,
        PieceType::Bishop,
        PieceType::Rook,
        PieceType::Queen,
        PieceType::King,
    ];
    /// The pieces a pawn may promote to, strongest first.
    pub const PROMOTIONS: [PieceType; 4] = [
        PieceType::Queen,
        PieceType::Rook,
        PieceType::Bishop,
        PieceType::Knight,
    ];

    /// The piece type's index, 0 (pawn) to 5 (king).
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The piece type with index `index` (0 pawn .. 5 king); `None` beyond.
    #[inline]
    pub const fn from_index(index: usize) -> Option<Self> {
        match index {
            0 => Some(PieceType::Pawn),
            1 => Some(PieceType::Knight),
            2 => Some(PieceType::Bishop),
            3 => Some(PieceType::Rook),
            4 => Some(PieceType::Queen),
            5 => Some(PieceType::King),
            _ => None,
        }
    }

    /// Lower-case letter: p n b r q k.
    pub const fn to_char(self) -> char {
        match self {
            PieceType::Pawn => 'p',
            PieceType::Knight => 'n',
            PieceType::Bishop => 'b',
            PieceType::Rook => 'r',
            PieceType::Queen => 'q',
            PieceType::King => 'k',
        }
    }

    /// Parses a piece letter in either case.
    pub fn from_char(c: char) -> Option<Self> {
        match c.to_ascii_lowercase() {
            'p' => Some(PieceType::Pawn),
            'n' => Some(PieceType::Knight),
            'b' => Some(PieceType::Bishop),
            'r' => Some(PieceType::Rook),
            'q' => Some(PieceType::Queen),
            'k' => Some(PieceType::King),
            _ => None,
        }
    }
}

/// A piece of a colour.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    /// Whose piece it is.
    pub color: Color,
    /// What kind of piece it is.
    pub kind: PieceType,
}

impl Piece {
    /// The `color` piece of kind `kind`.
    pub const fn new(color: Color, kind: PieceType) -> Self {
        Piece { color, kind }
    }

    /// FEN letter: upper case for White.
    pub const fn to_char(self) -> char {
        let c = self.kind.to_char();
        match self.color {
            Color::White => c.to_ascii_uppercase(),
            Color::Black => c,
        }
    }

    /// The piece of a FEN letter: upper case for White, lower case for Black (`P`, `n`, ...);
    /// `None` for anything else.
    pub fn from_char(c: char) -> Option<Self> {
        let kind = PieceType::from_char(c)?;
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        Some(Piece { color, kind })
    }
}

/// A move packed into 16 bits: from (6), to (6), promotion (3).
///
/// Castling is encoded as the king moving onto its own rook's square ("king takes rook"),
/// which describes standard and Chess960 castling alike; the notation modules translate to
/// and from `e1g1`. En passant and double pushes are recognised from the board when the
/// move is played, so they need no flag.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Move(u16);

impl Move {
    /// The null move (`0000`). Never legal; used as a sentinel.
    pub const NULL: Move = Move(0);

    /// The move from `from` to `to`, promoting to `promotion` (a knight to a queen) when given.
    /// Castling is the king moving onto its own rook's square.
    #[inline]
    pub const fn new(from: Square, to: Square, promotion: Option<PieceType>) -> Self {
        let promo = match promotion {
            Some(p) => p as u16,
            None => 0,
        };
        Move(from.0 as u16 | (to.0 as u16) << 6 | promo << 12)
    }

    /// The square the move starts from.
    #[inline]
    pub const fn from(self) -> Square {
        Square((self.0 & 63) as u8)
    }

    /// The square the move ends on (for castling: the rook's square).
    #[inline]
    pub const fn to(self) -> Square {
        Square(((self.0 >> 6) & 63) as u8)
    }

    /// The piece a pawn promotes to, if the move is a promotion.
    #[inline]
    pub const fn promotion(self) -> Option<PieceType> {
        match self.0 >> 12 {
            1 => Some(PieceType::Knight),
            2 => Some(PieceType::Bishop),
            3 => Some(PieceType::Rook),
            4 => Some(PieceType::Queen),
            _ => None,
        }
    }

    /// The raw 16-bit encoding (for hash tables and data files).
    #[inline]
    pub const fn to_u16(self) -> u16 {
        self.0
    }

    /// Rebuilds a move from [`Move::to_u16`]; `None` for an invalid promotion code.
    #[inline]
    pub const fn from_u16(raw: u16) -> Option<Self> {
        match raw >> 12 {
            0..=4 => Some(Move(raw)),
            _ => None,
        }
    }

    /// Whether this is [`Move::NULL`].
    #[inline]
    pub const fn is_null(self) -> bool {
        self.0 == 0
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// Raw coordinates (`e1h1` for castling); use `Board::to_uci` for protocol text.
impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_null() {
            return f.write_str("0000");
        }
        write!(f, "{}{}", self.from(), self.to())?;
        if let Some(p) = self.promotion() {
            write!(f, "{}", p.to_char())?;
        }
        Ok(())
    }
}

//! Correction history: what searches found about the static evaluation of similar
//! positions, used to correct the evaluation of the next one. Each table maps a key of the
//! position (the pawn structure; each side's non-pawn pieces; both sides' minor pieces and
//! kings; both sides' major pieces and kings; the two previous moves) to an
//! exponential moving average of `search score - static eval`, in units of
//! `1 / CORR_GRAIN` centipawns. The corrected evaluation is the raw one plus a weighted sum
//! of the matching entries; every pruning decision that reads the static evaluation reads
//! the corrected one, while the transposition table keeps the raw one.

use crate::history::PieceTo;
use crate::memory::ZeroedTable;
use crate::params::{
    corr_continuation_weight, corr_major_weight, corr_max, corr_minor_weight, corr_non_pawn_weight,
    corr_pawn_weight, corr_update_max_weight, CORR_GRAIN, CORR_SIZE, CORR_WEIGHT_SCALE,
};
use movegen::{Board, Color, PieceType};

/// A 64-bit mix (the finaliser of SplitMix64) that spreads bitboards over the table.
#[inline]
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The keys of one position for every table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CorrectionKeys {
    pawn: usize,
    non_pawn: [usize; 2],
    minor: usize,
    major: usize,
}

/// The pieces that make a side's non-pawn key.
const NON_PAWN: [PieceType; 5] = [
    PieceType::Knight,
    PieceType::Bishop,
    PieceType::Rook,
    PieceType::Queen,
    PieceType::King,
];
/// The pieces (of both sides) that make the minor key.
const MINOR: [PieceType; 3] = [PieceType::Knight, PieceType::Bishop, PieceType::King];
/// The pieces (of both sides) that make the major key.
const MAJOR: [PieceType; 3] = [PieceType::Rook, PieceType::Queen, PieceType::King];

impl CorrectionKeys {
    /// The keys of `board`, each computed from its pieces.
    pub fn of(board: &Board) -> Self {
        CorrectionKeys {
            pawn: Self::pawn_key(board),
            non_pawn: [Color::White, Color::Black].map(|color| Self::non_pawn_key(board, color)),
            minor: Self::placement_key(board, MINOR),
            major: Self::placement_key(board, MAJOR),
        }
    }

    /// The keys of `child`, a position one move (or a null move) after `parent`, whose
    /// keys are `self`: a key whose pieces the move did not touch is kept, the others are
    /// computed again. Always equal to `CorrectionKeys::of(child)` (a pawn move, the most
    /// common, hashes two bitboards instead of twenty-four).
    #[inline]
    pub fn after(&self, parent: &Board, child: &Board) -> Self {
        let moved = |color: Color, kind: PieceType| {
            parent.colored_pieces(color, kind) != child.colored_pieces(color, kind)
        };
        let either = |kind: PieceType| moved(Color::White, kind) || moved(Color::Black, kind);
        let mut keys = *self;
        if either(PieceType::Pawn) {
            keys.pawn = Self::pawn_key(child);
        }
        for color in [Color::White, Color::Black] {
            if NON_PAWN.iter().any(|&kind| moved(color, kind)) {
                keys.non_pawn[color.index()] = Self::non_pawn_key(child, color);
            }
        }
        if MINOR.iter().any(|&kind| either(kind)) {
            keys.minor = Self::placement_key(child, MINOR);
        }
        if MAJOR.iter().any(|&kind| either(kind)) {
            keys.major = Self::placement_key(child, MAJOR);
        }
        keys
    }

    fn pawn_key(board: &Board) -> usize {
        let pawns = board.pieces(PieceType::Pawn);
        let white = board.colored(Color::White);
        mix((pawns & white).0 ^ mix((pawns & !white).0)) as usize % CORR_SIZE
    }

    fn non_pawn_key(board: &Board, color: Color) -> usize {
        let mut key = color.index() as u64;
        for kind in NON_PAWN {
            key = mix(key ^ board.colored_pieces(color, kind).0);
        }
        key as usize % CORR_SIZE
    }

    /// Both sides' `kinds`, one after another.
    fn placement_key(board: &Board, kinds: [PieceType; 3]) -> usize {
        let mut key = 0x9e37_79b9_7f4a_7c15u64;
        for color in [Color::White, Color::Black] {
            for kind in kinds {
                key = mix(key ^ board.colored_pieces(color, kind).0);
            }
        }
        key as usize % CORR_SIZE
    }
}

/// The correction tables of one search thread, per side to move.
pub struct Correction {
    /// The five tables read by a key of the position, one after another (pawn, white's
    /// non-pawn pieces, black's, minor, major; each `2 * CORR_SIZE` entries, side to move
    /// first), in one block so that they share its huge pages.
    keyed: ZeroedTable<i32>,
    /// By the two previous moves and the side to move.
    continuation: ZeroedTable<i32>,
}

/// Entries of one keyed table (both sides to move).
const KEYED: usize = 2 * CORR_SIZE;

impl std::fmt::Debug for Correction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Correction")
    }
}

impl Default for Correction {
    fn default() -> Self {
        match Correction::try_new() {
            Ok(correction) => correction,
            Err(e) => panic!("cannot allocate a search thread's correction histories: {e}"),
        }
    }
}

impl Correction {
    /// Empty tables, or the allocator's refusal (`crate::memory`).
    pub fn try_new() -> Result<Correction, std::collections::TryReserveError> {
        Ok(Correction {
            keyed: ZeroedTable::new(5 * KEYED)?,
            continuation: ZeroedTable::new(2 * PieceTo::COUNT * PieceTo::COUNT)?,
        })
    }

    /// Empties every table in place.
    pub fn clear(&mut self) {
        self.keyed.fill(0);
        self.continuation.fill(0);
    }

    /// The entries of the five keyed tables for a position with side to move `stm` and its
    /// `keys`: indices into `keyed`, in its order.
    #[inline]
    fn keyed_slots(stm: Color, keys: &CorrectionKeys) -> [usize; 5] {
        let s = stm.index() * CORR_SIZE;
        [
            s + keys.pawn,
            KEYED + s + keys.non_pawn[0],
            2 * KEYED + s + keys.non_pawn[1],
            3 * KEYED + s + keys.minor,
            4 * KEYED + s + keys.major,
        ]
    }
}

fn continuation_index(stm: Color, previous: [PieceTo; 2]) -> Option<usize> {
    let (a, b) = (previous[0].index()?, previous[1].index()?);
    Some((stm.index() * PieceTo::COUNT + a) * PieceTo::COUNT + b)
}

/// Moves `entry` towards `target` (both in grains) with weight `weight / 256`.
#[inline]
fn blend(entry: &mut i32, target: i32, weight: i32) {
    let max = corr_max() * CORR_GRAIN;
    *entry = ((*entry * (256 - weight) + target * weight) / 256).clamp(-max, max);
}

impl Correction {
    /// The correction in centipawns for a position with side to move `stm`, its `keys`
    /// and the two moves before it (`previous[0]` the last).
    pub fn correction(&self, stm: Color, keys: &CorrectionKeys, previous: [PieceTo; 2]) -> i32 {
        let [pawn, white, black, minor, major] = Self::keyed_slots(stm, keys);
        let t = &self.keyed;
        let mut sum = corr_pawn_weight() * t[pawn]
            + corr_non_pawn_weight() * t[white]
            + corr_non_pawn_weight() * t[black]
            + corr_minor_weight() * t[minor]
            + corr_major_weight() * t[major];
        if let Some(i) = continuation_index(stm, previous) {
            sum += corr_continuation_weight() * self.continuation[i];
        }
        sum / (CORR_WEIGHT_SCALE * CORR_GRAIN)
    }

    /// Hints the CPU to fetch the entries [`Correction::correction`] reads for the same
    /// arguments (the search asks when it makes a move, so the reads at the child's static
    /// evaluation hit the cache).
    #[inline]
    pub fn prefetch(&self, stm: Color, keys: &CorrectionKeys, previous: [PieceTo; 2]) {
        #[cfg(target_arch = "x86_64")]
        {
            let continuation = continuation_index(stm, previous).map(|i| &self.continuation[i]);
            for entry in Self::keyed_slots(stm, keys)
                .map(|i| Some(&self.keyed[i]))
                .into_iter()
                .chain([continuation])
                .flatten()
            {
                // SAFETY: prefetching is a hint and never faults; the pointer is to an
                // entry of one of the tables.
                unsafe {
                    std::arch::x86_64::_mm_prefetch(
                        (entry as *const i32).cast::<i8>(),
                        std::arch::x86_64::_MM_HINT_T0,
                    )
                };
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (stm, keys, previous);
    }

    /// Learns from a search at `depth` that found `score` where the raw static
    /// evaluation was `raw_eval` (both centipawns, side to move's view).
    pub fn update(
        &mut self,
        stm: Color,
        keys: &CorrectionKeys,
        previous: [PieceTo; 2],
        depth: i32,
        score: i32,
        raw_eval: i32,
    ) {
        let max = corr_max() * CORR_GRAIN;
        let target = ((score - raw_eval) * CORR_GRAIN).clamp(-max, max);
        let weight = (depth + 1).pow(2).min(corr_update_max_weight());
        for i in Self::keyed_slots(stm, keys) {
            blend(&mut self.keyed[i], target, weight);
        }
        if let Some(i) = continuation_index(stm, previous) {
            blend(&mut self.continuation[i], target, weight);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrections_move_towards_what_searches_find_and_stay_bounded() {
        let board = Board::startpos();
        let keys = CorrectionKeys::of(&board);
        let mut c = Correction::default();
        assert_eq!(c.correction(Color::White, &keys, [PieceTo::NONE; 2]), 0);
        for _ in 0..100 {
            c.update(Color::White, &keys, [PieceTo::NONE; 2], 10, 80, 0);
        }
        let w = c.correction(Color::White, &keys, [PieceTo::NONE; 2]);
        // Three tables at full strength, weighted, out of the weight scale.
        let weights =
            corr_pawn_weight() + 2 * corr_non_pawn_weight() + corr_minor_weight() + corr_major_weight();
        let expected = 80 * weights / CORR_WEIGHT_SCALE;
        assert!((w - expected).abs() <= 1, "{w} vs {expected}");
        // The other side to move is untouched.
        assert_eq!(c.correction(Color::Black, &keys, [PieceTo::NONE; 2]), 0);
        for _ in 0..100 {
            c.update(Color::White, &keys, [PieceTo::NONE; 2], 20, 30000, -30000);
        }
        let max = c.correction(Color::White, &keys, [PieceTo::NONE; 2]);
        assert!(max <= corr_max() * CORR_GRAIN * weights / (CORR_WEIGHT_SCALE * CORR_GRAIN));
    }

    #[test]
    fn keys_depend_on_pawns_and_pieces_only() {
        let a = Board::from_fen("4k3/pp6/8/8/8/8/PP6/4K2R w K - 0 1").unwrap();
        let b = Board::from_fen("4k3/pp6/8/8/8/8/PP6/4K2R b K - 3 9").unwrap();
        let c = Board::from_fen("4k3/p7/1p6/8/8/8/PP6/4K2R w K - 0 1").unwrap();
        let (ka, kb, kc) = (
            CorrectionKeys::of(&a),
            CorrectionKeys::of(&b),
            CorrectionKeys::of(&c),
        );
        assert_eq!(
            (ka.pawn, ka.non_pawn, ka.minor, ka.major),
            (kb.pawn, kb.non_pawn, kb.minor, kb.major)
        );
        assert_ne!(ka.pawn, kc.pawn);
        assert_eq!(
            (ka.non_pawn, ka.minor, ka.major),
            (kc.non_pawn, kc.minor, kc.major)
        );
        // A rook moved changes the major key, not the minor one.
        let d = Board::from_fen("4k3/pp6/8/8/8/8/PP6/4K1R1 w - - 0 1").unwrap();
        let kd = CorrectionKeys::of(&d);
        assert_eq!(kd.minor, ka.minor);
        assert_ne!(kd.major, ka.major);
    }

    /// `after` is `of` of the child for every move of a set of positions with every kind
    /// of move (captures of each piece, promotions, castling both ways in Chess960 and
    /// standard, en passant) and for the null move, two plies deep.
    #[test]
    fn keys_after_a_move_are_the_keys_of_the_child() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "1r2k1r1/pbppnp1p/1b3P2/8/Q7/B1PB1q2/P1P2PPP/1R2K1R1 w BGbg - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        ];
        let mut checked = 0;
        for fen in fens {
            let root = Board::from_fen(fen).unwrap();
            let root_keys = CorrectionKeys::of(&root);
            for &mv in &root.legal_moves() {
                let mut child = root;
                child.play(mv);
                let keys = root_keys.after(&root, &child);
                assert_eq!(keys, CorrectionKeys::of(&child), "{fen} {mv:?}");
                for &reply in &child.legal_moves() {
                    let mut grandchild = child;
                    grandchild.play(reply);
                    assert_eq!(keys.after(&child, &grandchild), CorrectionKeys::of(&grandchild));
                    checked += 1;
                }
            }
            if let Some(null) = root.null_move() {
                assert_eq!(root_keys.after(&root, &null), root_keys);
            }
        }
        assert!(checked > 5_000, "{checked}");
    }
}

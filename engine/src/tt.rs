//! The transposition table, shared by all search threads without locks.
//!
//! Each slot is two `AtomicU64` words: `data` (move, score, static eval, depth, bound, age)
//! and `check = key ^ data`. Writers store both words with relaxed ordering; readers load
//! both and accept the entry only if `check ^ data == key`. Two threads writing the same
//! slot at once can interleave their words, but then the XOR no longer matches either key
//! and the entry reads as a miss: a race costs a lost entry, never a wrong one (the
//! "lockless hashing" scheme of Hyatt and Mann). Any move read back is still checked for
//! legality before it is played, so even a 64-bit key collision cannot corrupt the search.
//!
//! Replacement: a slot is overwritten unless it holds a deeper entry (by more than
//! `tt_replace_depth_margin` plies, against a result that is not exact) of the same position
//! from the current search; entries from earlier searches (older age) always give way.
//! Mate scores are stored relative to the node, not the root (see `score_to_tt`).
//!
//! Allocation is fallible ([`TranspositionTable::try_new`]): a size larger than the
//! machine's memory, or one the allocator refuses, is an error the caller reports, never an
//! abort. The table is a [`ZeroedBlock`] (an all-zero slot is an empty one), so the operating
//! system hands out pages as the search first touches them; on Linux they are transparent
//! huge pages where the kernel has them, which saves a TLB miss on most probes (bench CPU
//! time in `docs/measurements.md`).

use crate::memory::ZeroedBlock;
use movegen::Move;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// The largest `Hash` (MiB) the UCI option offers: 1 TiB. Allocation is fallible and checked
/// against the machine's memory, so a large maximum never aborts; it only stops a GUI
/// from offering sizes no machine has.
pub const MAX_HASH_MIB: usize = 1 << 20;

/// Why a table could not be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TtAllocError {
    /// The size does not fit this platform's address space.
    TooLarge {
        /// The size asked for, in MiB.
        mib: usize,
    },
    /// The size exceeds the memory of this machine (or of its container).
    ExceedsMemory {
        /// The size asked for, in MiB.
        mib: usize,
        /// The memory there is, in MiB.
        memory_mib: u64,
    },
    /// The allocator refused.
    AllocationFailed {
        /// The size asked for, in MiB.
        mib: usize,
    },
}

impl std::fmt::Display for TtAllocError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TtAllocError::TooLarge { mib } => write!(f, "hash of {mib} MiB is too large for this platform"),
            TtAllocError::ExceedsMemory { mib, memory_mib } => write!(
                f,
                "hash of {mib} MiB exceeds this machine's memory ({memory_mib} MiB)"
            ),
            TtAllocError::AllocationFailed { mib } => {
                write!(f, "could not allocate a hash of {mib} MiB")
            }
        }
    }
}

impl std::error::Error for TtAllocError {}

/// The memory this process may use, in bytes: the machine's (`MemTotal`) or, when lower,
/// its cgroup's limit. `None` where neither can be read (not Linux).
pub fn memory_limit_bytes() -> Option<u64> {
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|text| {
        text.lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kib| kib.saturating_mul(1024))
    });
    let cgroup = [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ]
    .iter()
    .find_map(|path| std::fs::read_to_string(path).ok()?.trim().parse::<u64>().ok());
    match (total, cgroup) {
        (Some(t), Some(c)) => Some(t.min(c)),
        (t, c) => t.or(c),
    }
}

/// What a stored score means.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    None = 0,
    /// The score is a lower bound (a fail high).
    Lower = 1,
    /// The score is an upper bound (a fail low).
    Upper = 2,
    Exact = 3,
}

impl Bound {
    /// The bound a search result has: `score` from a window whose lower edge was `alpha`.
    #[inline]
    pub fn of(score: i32, alpha: i32, beta: i32) -> Bound {
        if score >= beta {
            Bound::Lower
        } else if score > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }
}

/// A decoded table entry.
#[derive(Clone, Copy, Debug)]
pub struct TtEntry {
    pub mv: Move,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

impl TtEntry {
    /// Whether the stored score settles a node searched with the window (alpha, beta).
    #[inline]
    pub fn cuts(&self, alpha: i32, beta: i32) -> bool {
        match self.bound {
            Bound::Exact => true,
            Bound::Lower => self.score >= beta,
            Bound::Upper => self.score <= alpha,
            Bound::None => false,
        }
    }
}

#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

pub struct TranspositionTable {
    /// `count` slots, zeroed at allocation.
    block: ZeroedBlock,
    count: usize,
    age: AtomicU8,
}

impl std::fmt::Debug for TranspositionTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TranspositionTable({} slots)", self.count)
    }
}

/// The data word of an entry: move (bits 0-15), score as stored (16-31, the caller has
/// made mate scores node-relative), eval (32-47), depth clamped to 0..=255 (48-55), bound
/// (56-57), age modulo 64 (58-63). Scores and evals must fit an `i16`.
#[inline]
fn pack(mv: Move, score: i32, eval: i32, depth: i32, bound: Bound, age: u8) -> u64 {
    u64::from(mv.to_u16())
        | (u64::from(score as i16 as u16) << 16)
        | (u64::from(eval as i16 as u16) << 32)
        | (u64::from(depth.clamp(0, 255) as u8) << 48)
        | (u64::from(bound as u8) << 56)
        | (u64::from(age & 63) << 58)
}

/// The entry in a data word, its score made relative to the root at `ply`.
#[inline]
fn unpack(data: u64, ply: usize) -> TtEntry {
    let bound = match (data >> 56) & 3 {
        1 => Bound::Lower,
        2 => Bound::Upper,
        3 => Bound::Exact,
        _ => Bound::None,
    };
    TtEntry {
        mv: Move::from_u16(data as u16).unwrap_or(Move::NULL),
        score: score_from_tt(i32::from((data >> 16) as u16 as i16), ply),
        eval: i32::from((data >> 32) as u16 as i16),
        depth: depth_of(data),
        bound,
    }
}

/// The search generation a data word was stored in (modulo 64).
#[inline]
fn age_of(data: u64) -> u8 {
    ((data >> 58) & 63) as u8
}

/// The depth of a data word.
#[inline]
fn depth_of(data: u64) -> i32 {
    i32::from((data >> 48) as u8)
}

impl TranspositionTable {
    /// A table of about `mib` MiB (at least one slot); aborts like `Vec` if it cannot be
    /// allocated. For sizes chosen by a user, use [`TranspositionTable::try_new`].
    pub fn new(mib: usize) -> Self {
        match Self::try_new(mib) {
            Ok(table) => table,
            Err(e) => panic!("{e}"),
        }
    }

    /// A table of about `mib` MiB (at least one slot), or why there cannot be one: too
    /// large for the address space or for the machine's memory, or refused by the allocator.
    pub fn try_new(mib: usize) -> Result<Self, TtAllocError> {
        let mib = mib.max(1);
        let bytes = mib
            .checked_mul(1024 * 1024)
            .ok_or(TtAllocError::TooLarge { mib })?;
        if let Some(limit) = memory_limit_bytes() {
            if bytes as u64 > limit {
                return Err(TtAllocError::ExceedsMemory {
                    mib,
                    memory_mib: limit / (1024 * 1024),
                });
            }
        }
        let count = (bytes / std::mem::size_of::<Slot>()).max(1);
        let block = ZeroedBlock::new(count * std::mem::size_of::<Slot>())
            .ok_or(TtAllocError::AllocationFailed { mib })?;
        Ok(TranspositionTable {
            block,
            count,
            age: AtomicU8::new(0),
        })
    }

    /// The slots.
    #[inline]
    fn slots(&self) -> &[Slot] {
        debug_assert!(self.count * std::mem::size_of::<Slot>() <= self.block.len());
        // SAFETY: the block holds `count` slots' bytes, 64-byte aligned (a `Slot` needs 8),
        // zeroed at allocation and written since only through these atomics; a `Slot` is two
        // `AtomicU64`, for which all-zero bytes are a valid value (the empty slot, equal to
        // `Slot::default()`). The slice lives as long as `self`, which owns the block.
        unsafe { std::slice::from_raw_parts(self.block.as_ptr().cast::<Slot>(), self.count) }
    }

    /// The number of slots (16 bytes each).
    pub fn slot_count(&self) -> usize {
        self.count
    }

    /// Empties the table (requires no search running).
    pub fn clear(&self) {
        for slot in self.slots() {
            slot.check.store(0, Ordering::Relaxed);
            slot.data.store(0, Ordering::Relaxed);
        }
        self.age.store(0, Ordering::Relaxed);
    }

    /// Starts a new search generation.
    pub fn new_search(&self) {
        self.age.fetch_add(1, Ordering::Relaxed);
    }

    fn current_age(&self) -> u8 {
        self.age.load(Ordering::Relaxed) & 63
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        ((u128::from(key) * self.count as u128) >> 64) as usize
    }

    /// Hints the CPU to fetch the slot of `key`.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let ptr = &self.slots()[self.index(key)] as *const Slot as *const i8;
            // SAFETY: prefetching is a hint and never faults; `ptr` points into `slots`.
            unsafe { std::arch::x86_64::_mm_prefetch(ptr, std::arch::x86_64::_MM_HINT_T0) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The entry for `key`, with its score converted to be relative to the root at `ply`.
    pub fn probe(&self, key: u64, ply: usize) -> Option<TtEntry> {
        let slot = &self.slots()[self.index(key)];
        let data = slot.data.load(Ordering::Relaxed);
        let check = slot.check.load(Ordering::Relaxed);
        if check ^ data != key || data == 0 {
            return None;
        }
        Some(unpack(data, ply))
    }

    /// Stores a search result for `key` found at `ply`.
    #[allow(clippy::too_many_arguments)]
    pub fn store(&self, key: u64, ply: usize, mv: Move, score: i32, eval: i32, depth: i32, bound: Bound) {
        let slot = &self.slots()[self.index(key)];
        let age = self.current_age();
        let old_data = slot.data.load(Ordering::Relaxed);
        let old_check = slot.check.load(Ordering::Relaxed);
        let same_position = old_check ^ old_data == key;
        let old_age = age_of(old_data);
        let old_depth = depth_of(old_data);
        if same_position
            && old_age == age
            && bound != Bound::Exact
            && depth + crate::params::tt_replace_depth_margin() < old_depth
        {
            return;
        }
        // Keep a known best move when this result has none.
        let mv = if mv.is_null() && same_position {
            Move::from_u16(old_data as u16).unwrap_or(Move::NULL)
        } else {
            mv
        };
        let data = pack(mv, score_to_tt(score, ply), eval, depth, bound, age);
        slot.data.store(data, Ordering::Relaxed);
        slot.check.store(key ^ data, Ordering::Relaxed);
    }

    /// Permille of sampled slots filled in the current search.
    pub fn hashfull(&self) -> u32 {
        let age = self.current_age();
        let sample = self.count.min(1000);
        let used = self.slots()[..sample]
            .iter()
            .filter(|s| {
                let d = s.data.load(Ordering::Relaxed);
                d != 0 && age_of(d) == age
            })
            .count();
        (used * 1000 / sample.max(1)) as u32
    }
}

/// Mate and tablebase-win scores are stored as distance from the node, read back as
/// distance from the root.
fn score_to_tt(score: i32, ply: usize) -> i32 {
    use crate::search::TB_WIN_BOUND as MATE_BOUND;
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_tt(score: i32, ply: usize) -> i32 {
    use crate::search::TB_WIN_BOUND as MATE_BOUND;
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_refusals() {
        let table = TranspositionTable::try_new(2).unwrap();
        assert_eq!(table.slot_count(), 2 * 1024 * 1024 / 16);
        // Zeroed slots are empty.
        assert!(table.probe(0x1234_5678_9abc_def0, 0).is_none());
        assert_eq!(table.hashfull(), 0);
        assert_eq!(
            TranspositionTable::try_new(usize::MAX).err(),
            Some(TtAllocError::TooLarge { mib: usize::MAX })
        );
        // More than any machine this runs on has: refused, not aborted.
        let huge = TranspositionTable::try_new(MAX_HASH_MIB);
        assert!(
            matches!(
                huge,
                Err(TtAllocError::ExceedsMemory { .. } | TtAllocError::AllocationFailed { .. })
            ),
            "{:?}",
            huge.err()
        );
    }

    #[test]
    fn a_stored_entry_reads_back() {
        let table = TranspositionTable::try_new(1).unwrap();
        let mv = Move::new(
            movegen::Square::parse("e2").unwrap(),
            movegen::Square::parse("e4").unwrap(),
            None,
        );
        table.store(42, 0, mv, 17, 5, 6, Bound::Exact);
        let entry = table.probe(42, 0).unwrap();
        assert_eq!(
            (entry.mv, entry.score, entry.eval, entry.depth, entry.bound),
            (mv, 17, 5, 6, Bound::Exact)
        );
        table.clear();
        assert!(table.probe(42, 0).is_none());
    }

    /// Every field of the data word round-trips at its extremes, alone and together;
    /// mate scores come back relative to the probing ply.
    #[test]
    fn entry_packing_round_trips_every_field_at_its_extremes() {
        use crate::params::MAX_PLY;
        use crate::search::{INFINITY, MATE, MATE_BOUND, TB_WIN, TB_WIN_BOUND};
        use movegen::{PieceType, Square};

        let sq = |name: &str| Square::parse(name).unwrap();
        let moves = [
            Move::NULL,
            Move::new(sq("e2"), sq("e4"), None),
            Move::new(sq("a7"), sq("a8"), Some(PieceType::Queen)),
            Move::new(sq("h2"), sq("h1"), Some(PieceType::Knight)),
            // The largest encoding: h8h8 promoting to a queen (all 15 low bits set but one).
            Move::new(Square::new(63), Square::new(63), Some(PieceType::Queen)),
            // Castling as the king taking its rook (Chess960 style, as movegen encodes it).
            Move::new(sq("e1"), sq("h1"), None),
        ];
        let max_ply = MAX_PLY as i32;
        let scores = [
            0,
            1,
            -1,
            TB_WIN_BOUND - 1,
            -(TB_WIN_BOUND - 1),
            TB_WIN_BOUND,
            -TB_WIN_BOUND,
            TB_WIN - 1,
            -(TB_WIN - 1),
            MATE_BOUND + max_ply,
            -(MATE_BOUND + max_ply),
            MATE - 1,
            -MATE + 1,
            MATE,
            -MATE,
            INFINITY,
            -INFINITY,
        ];
        let evals = [
            0,
            1,
            -1,
            MATE_BOUND - 1,
            -(MATE_BOUND - 1),
            i32::from(i16::MAX),
            i32::from(i16::MIN),
        ];
        let depths = [0, 1, 100, 254, 255];
        let bounds = [Bound::None, Bound::Lower, Bound::Upper, Bound::Exact];
        let ages = [0u8, 1, 31, 62, 63];
        let plies = [0, 1, 64, MAX_PLY];

        let check = |mv: Move, score: i32, eval: i32, depth: i32, bound: Bound, age: u8, ply: usize| {
            // A mate (or tablebase win) found at `ply` is never nearer the root than `ply`.
            if score.abs() >= MATE_BOUND && score.abs() <= MATE && MATE - score.abs() < ply as i32 {
                return;
            }
            if (TB_WIN_BOUND..MATE_BOUND).contains(&score.abs()) && TB_WIN - score.abs() < ply as i32 {
                return;
            }
            let data = pack(mv, score_to_tt(score, ply), eval, depth, bound, age);
            let e = unpack(data, ply);
            assert_eq!(
                (e.mv, e.score, e.eval, e.depth, e.bound, age_of(data)),
                (mv, score, eval, depth, bound, age),
                "mv {mv} score {score} eval {eval} depth {depth} bound {bound:?} age {age} ply {ply}"
            );
            // Probed from another ply, a mate or tablebase score is the same result
            // counted from there; other scores are unchanged.
            for other in [0, ply / 2, MAX_PLY] {
                let moved = unpack(data, other).score;
                if score >= TB_WIN_BOUND {
                    assert_eq!(moved, score + ply as i32 - other as i32);
                } else if score <= -TB_WIN_BOUND {
                    assert_eq!(moved, score - ply as i32 + other as i32);
                } else {
                    assert_eq!(moved, score);
                }
            }
        };
        // Each field through all its extremes, the others fixed at an extreme too...
        for &mv in &moves {
            for &score in &scores {
                for &ply in &plies {
                    check(mv, score, -(MATE_BOUND - 1), 255, Bound::Exact, 63, ply);
                }
            }
        }
        // ...and every combination of the others.
        for &eval in &evals {
            for &depth in &depths {
                for &bound in &bounds {
                    for &age in &ages {
                        for &ply in &plies {
                            for &score in &[MATE - 1 - max_ply, -(MATE - max_ply), 0, -INFINITY] {
                                check(moves[4], score, eval, depth, bound, age, ply);
                                check(Move::NULL, score, eval, depth, bound, age, ply);
                            }
                        }
                    }
                }
            }
        }
        // Out-of-range depths and ages saturate and wrap as documented.
        let data = pack(Move::NULL, 0, 0, 300, Bound::Lower, 64 + 5);
        assert_eq!((depth_of(data), age_of(data)), (255, 5));
        assert_eq!(depth_of(pack(Move::NULL, 0, 0, -3, Bound::Lower, 0)), 0);
        // Only the all-zero word (which no search stores: its bound is never None) is empty.
        assert_eq!(pack(Move::NULL, 0, 0, 0, Bound::None, 0), 0);
        assert_ne!(pack(Move::NULL, 0, 0, 0, Bound::Upper, 0), 0);
    }

    /// Through the table: a mate stored at one ply reads back from another, and the
    /// replacement policy keeps a deeper entry of the current search only.
    #[test]
    fn mates_move_with_the_ply_and_replacement_follows_depth_and_age() {
        use crate::params::tt_replace_depth_margin;
        use crate::search::MATE;
        let table = TranspositionTable::try_new(1).unwrap();
        // Mate in 5 plies from a node at ply 10 (MATE - 15 from the root)...
        table.store(7, 10, Move::NULL, MATE - 15, 0, 3, Bound::Lower);
        // ...is mate in 5 from the same node reached at ply 4.
        assert_eq!(table.probe(7, 4).unwrap().score, MATE - 9);
        table.store(8, 3, Move::NULL, -MATE + 3, 0, 3, Bound::Upper);
        assert_eq!(table.probe(8, 0).unwrap().score, -MATE);

        let mv = Move::new(
            movegen::Square::parse("g1").unwrap(),
            movegen::Square::parse("f3").unwrap(),
            None,
        );
        let margin = tt_replace_depth_margin();
        table.store(9, 0, mv, 10, 0, 12, Bound::Exact);
        // A shallower non-exact result of the same search keeps the deeper entry.
        table.store(9, 0, Move::NULL, 20, 0, 12 - margin - 1, Bound::Lower);
        assert_eq!(table.probe(9, 0).unwrap().depth, 12);
        // Within the margin it replaces it, keeping the known move.
        table.store(9, 0, Move::NULL, 30, 0, 12 - margin, Bound::Lower);
        let e = table.probe(9, 0).unwrap();
        assert_eq!((e.depth, e.score, e.mv), (12 - margin, 30, mv));
        // An exact result always replaces; so does anything from a later search.
        table.store(9, 0, mv, 40, 0, 1, Bound::Exact);
        assert_eq!(table.probe(9, 0).unwrap().depth, 1);
        table.store(9, 0, mv, 40, 0, 60, Bound::Exact);
        table.new_search();
        table.store(9, 0, mv, 50, 0, 0, Bound::Upper);
        assert_eq!(table.probe(9, 0).unwrap().depth, 0);
        // Ages wrap after 64 searches without breaking anything.
        for _ in 0..64 {
            table.new_search();
        }
        table.store(9, 0, mv, 60, 0, 5, Bound::Exact);
        assert_eq!(table.probe(9, 0).unwrap().score, 60);
    }
}

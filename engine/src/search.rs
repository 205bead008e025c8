//! The search of one thread: iterative deepening with aspiration windows over a principal
//! variation search (negamax alpha-beta), and a quiescence search at the leaves. The steps
//! of `negamax` are numbered so each heuristic can be found by name; every constant lives
//! in `params`. Threads share only the transposition table, the stop flag and their node
//! counters (see `threads`).

use crate::accumulator::AccumulatorStack;
use crate::correction::CorrectionKeys;
use crate::history::{bonus, History, PieceTo};
use crate::move_picker::MovePicker;
use crate::params::*;
use crate::root_moves::RootMoves;
use crate::see::{gain, see};
use crate::time_manager::{search_scale, TimeManager, SOFT_NODES_MEAN_SCALE};
use crate::tt::{Bound, TranspositionTable};
use movegen::{Bitboard, Board, Move, PieceType};
use std::collections::TryReserveError;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// Larger than any score: the window of a full-width search.
pub const INFINITY: i32 = 32000;
/// The score of mating at once; a mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 31000;
/// Scores at or beyond this magnitude are mates.
pub const MATE_BOUND: i32 = MATE - 2 * MAX_PLY as i32;
/// A tablebase win at the root: below every mate, above every evaluation. A win the tables
/// found `ply` plies from the root scores `TB_WIN - ply`.
pub const TB_WIN: i32 = MATE_BOUND - 1;
/// Scores at or beyond this magnitude are tablebase wins (or mates); static evaluations
/// stay below it.
pub const TB_WIN_BOUND: i32 = TB_WIN - MAX_PLY as i32;

/// The tablebases one search probes, and how (the engine's Syzygy options).
#[derive(Clone, Debug)]
pub struct SearchTables {
    /// The tables.
    pub tables: Arc<tablebase::Tablebases>,
    /// The most pieces a probed position may have (0: no probes in the search).
    pub cardinality: u32,
    /// Positions with exactly `cardinality` pieces are probed from this depth on.
    pub probe_depth: i32,
    /// Cursed wins and blessed losses are draws (`Syzygy50MoveRule`).
    pub rule50: bool,
}

/// The limits of one search as every thread obeys them: a caller's [`crate::Limits`]
/// resolved against the position and the engine's settings by `crate::threads::Job::new`
/// (the one conversion): MultiPV, `UseSoftNodes`, the strength limit, the root moves and
/// the tablebases applied. The clock is the job's time manager, not a field here.
#[derive(Clone, Debug, Default)]
pub struct ResolvedLimits {
    /// Deepest iteration.
    pub depth: Option<i32>,
    /// Hard node limit over all threads.
    pub nodes: Option<u64>,
    /// Datagen's soft node budget ([`crate::Limits::soft_nodes`]).
    pub soft_nodes: Option<u64>,
    /// Stop once a mate in this many moves (or fewer) is found.
    pub mate: Option<i32>,
    /// Lines to search (at least 1).
    pub multipv: usize,
    /// The root moves to search (`go searchmoves`, less what the tablebases' root filter
    /// drops).
    pub root: RootMoves,
    /// Tablebases to probe in the search, if any.
    pub syzygy: Option<SearchTables>,
}

/// One principal variation found at a depth.
#[derive(Clone, Debug, Default)]
pub struct PvLine {
    /// Its score (exact).
    pub score: i32,
    /// Its moves from the root.
    pub pv: Vec<Move>,
}

/// What a finished iteration reports.
#[derive(Clone, Debug, Default)]
pub struct IterationReport {
    /// The iteration's depth.
    pub depth: i32,
    /// The deepest ply reached.
    pub seldepth: usize,
    /// The lines, best first.
    pub lines: Vec<PvLine>,
}

/// What the main thread reports while it searches.
#[derive(Debug)]
pub enum Progress<'a> {
    /// An iteration finished.
    Iteration(&'a IterationReport),
    /// A root search at `depth` failed outside its aspiration window: `score` is a lower
    /// bound (`fail_high`) or an upper bound, and the window widens.
    Bound {
        /// The iteration's depth.
        depth: i32,
        /// The deepest ply reached so far.
        seldepth: usize,
        /// The MultiPV line being searched (0 for the best).
        pv_index: usize,
        /// The bound.
        score: i32,
        /// Whether the score is a lower bound (else an upper bound).
        fail_high: bool,
        /// The line behind it: the move that failed high, or on a fail low the previous
        /// iteration's best line.
        pv: Vec<Move>,
    },
}

/// A per-thread counter alone on its cache lines (128 bytes: two 64-byte lines, as
/// adjacent-line prefetchers fetch pairs), so one thread's count at every node never
/// evicts another thread's: without it, Threads > 1 ping-pongs one line between cores at
/// every node (false sharing).
#[derive(Debug, Default)]
#[repr(align(128))]
pub struct ThreadCounter(pub AtomicU64);

impl std::ops::Deref for ThreadCounter {
    type Target = AtomicU64;
    fn deref(&self) -> &AtomicU64 {
        &self.0
    }
}

/// State shared by every thread of one search.
#[derive(Debug)]
pub struct Shared {
    /// The transposition table.
    pub tt: Arc<TranspositionTable>,
    /// Set to stop every thread.
    pub stop: AtomicBool,
    /// Node counters, one per thread, each on its own cache lines.
    pub nodes: Vec<ThreadCounter>,
    /// Tablebase hits, one counter per thread, each on its own cache lines.
    pub tbhits: Vec<ThreadCounter>,
    /// How many threads the last search that could not start them all said it ran on
    /// (the count of threads before that): a shortfall is told once (`crate::threads`).
    pub started_reported: AtomicUsize,
}

impl Shared {
    /// State for `threads` threads over `tt`, not stopped.
    pub fn new(tt: Arc<TranspositionTable>, threads: usize) -> Shared {
        Shared {
            tt,
            stop: AtomicBool::new(false),
            nodes: (0..threads.max(1)).map(|_| ThreadCounter::default()).collect(),
            tbhits: (0..threads.max(1)).map(|_| ThreadCounter::default()).collect(),
            started_reported: AtomicUsize::new(threads.max(1)),
        }
    }

    /// Clears the stop flag and the node and tablebase counters before a search (the
    /// table is aged by the engine alone: see `crate::Searcher`).
    pub fn reset(&self) {
        self.stop.store(false, Ordering::Relaxed);
        self.nodes
            .iter()
            .chain(&self.tbhits)
            .for_each(|n| n.store(0, Ordering::Relaxed));
    }

    /// Tablebase probes answered for every thread.
    pub fn total_tbhits(&self) -> u64 {
        self.tbhits.iter().map(|n| n.load(Ordering::Relaxed)).sum()
    }

    /// Nodes searched by every thread.
    pub fn total_nodes(&self) -> u64 {
        self.nodes.iter().map(|n| n.load(Ordering::Relaxed)).sum()
    }
}

#[derive(Clone, Copy, Default)]
struct PlyState {
    static_eval: i32,
    moved: PieceTo,
    /// The move played from this ply (null for a null move).
    mv: Move,
    /// Whether `mv` is quiet (no capture, no promotion).
    quiet: bool,
    /// The squares the opponent of the side to move attacks here (set by the move loop).
    threats: Bitboard,
    excluded: Move,
    /// Double singular extensions on the path to this ply.
    double_extensions: i32,
    /// The correction-history keys of the position at this ply (set by the move, or the
    /// null move, that leads here; at the root by `search`).
    correction_keys: CorrectionKeys,
}

/// One search thread's private state.
pub struct Worker {
    /// 0 for the main thread.
    pub id: usize,
    /// What the threads share.
    pub shared: Arc<Shared>,
    /// The NNUE accumulators.
    pub nnue: AccumulatorStack,
    /// Move ordering and correction histories (kept between searches of a game).
    pub history: History,
    /// Keys of the game so far (up to the root) and then of the search path.
    keys: Vec<u64>,
    root_keys: usize,
    stack: Vec<PlyState>,
    pv: Vec<[Move; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    nodes: u64,
    tbhits: u64,
    /// The most pieces of a position probed in the search (0: none; from `limits.syzygy`).
    tb_cardinality: u32,
    seldepth: usize,
    reductions: Box<[[i32; 64]; 64]>,
    root_excluded: Vec<Move>,
    /// The depth of the current iteration.
    root_depth: i32,
    limits: ResolvedLimits,
    time: Option<TimeManager>,
    /// Nodes spent below each root move in this search, by from and to square (the time
    /// manager's best-move node fraction).
    root_move_nodes: Box<[[u64; 64]; 64]>,
    /// Consecutive completed iterations whose best move was the same (0 after a change).
    best_move_stability: u32,
    /// The factor of both soft limits (clock and soft nodes) that the last iteration set
    /// ([`search_scale`]; none before `tm_min_depth`). Main thread only.
    soft_scale: Option<f64>,
    /// The last completed iteration.
    pub completed: IterationReport,
}

impl std::fmt::Debug for Worker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Worker({})", self.id)
    }
}

fn reduction_table() -> Result<Box<[[i32; 64]; 64]>, TryReserveError> {
    let rows: Box<[[i32; 64]]> = crate::memory::try_vec(64, [0; 64])?.into_boxed_slice();
    let mut table: Box<[[i32; 64]; 64]> = match rows.try_into() {
        Ok(table) => table,
        // 64 rows were made: the conversion cannot fail.
        Err(_) => Box::new([[0; 64]; 64]),
    };
    fill_reduction_table(&mut table);
    Ok(table)
}

/// The LMR reductions by depth and move number from `lmr_base` and `lmr_divisor` (a tune
/// build refills the table before each search, as `setoption` may have changed them).
fn fill_reduction_table(table: &mut [[i32; 64]; 64]) {
    for (depth, row) in table.iter_mut().enumerate().skip(1) {
        for (moves, r) in row.iter_mut().enumerate().skip(1) {
            // Both parameters are in hundredths.
            let (base, divisor) = (f64::from(lmr_base()) / 100.0, f64::from(lmr_divisor()) / 100.0);
            *r = (base + (depth as f64).ln() * (moves as f64).ln() / divisor) as i32;
        }
    }
}

/// Whether a score is a mate score.
pub fn is_mate(score: i32) -> bool {
    score.abs() >= MATE_BOUND
}

impl Worker {
    /// Thread `id`'s state over `shared`, evaluating with `nnue` (aborts, as `Vec` does,
    /// when the memory cannot be had; for a number of threads a user chooses use
    /// [`Worker::try_new`]).
    pub fn new(id: usize, shared: Arc<Shared>, nnue: AccumulatorStack) -> Self {
        match Worker::try_new(id, shared, nnue) {
            Ok(worker) => worker,
            Err(e) => panic!("cannot allocate a search thread's tables: {e}"),
        }
    }

    /// Thread `id`'s state over `shared`, evaluating with `nnue`, or the allocator's
    /// refusal (`crate::memory`).
    pub fn try_new(id: usize, shared: Arc<Shared>, nnue: AccumulatorStack) -> Result<Self, TryReserveError> {
        Ok(Worker {
            id,
            shared,
            nnue,
            history: History::try_new()?,
            keys: crate::memory::try_with_capacity(1024)?,
            root_keys: 0,
            stack: crate::memory::try_vec(MAX_PLY + 4, PlyState::default())?,
            pv: crate::memory::try_vec(MAX_PLY + 1, [Move::NULL; MAX_PLY + 1])?,
            pv_len: [0; MAX_PLY + 1],
            nodes: 0,
            tbhits: 0,
            tb_cardinality: 0,
            seldepth: 0,
            reductions: reduction_table()?,
            root_excluded: Vec::new(),
            root_depth: 0,
            limits: ResolvedLimits::default(),
            time: None,
            root_move_nodes: Box::new([[0; 64]; 64]),
            best_move_stability: 0,
            soft_scale: None,
            completed: IterationReport::default(),
        })
    }

    fn is_main(&self) -> bool {
        self.id == 0
    }

    /// Runs iterative deepening on `root` with the game's earlier keys `history`, calling
    /// `report` after each completed iteration and each root fail high or low (main thread
    /// only).
    pub fn search(
        &mut self,
        root: &Board,
        history: &[u64],
        limits: ResolvedLimits,
        time: Option<TimeManager>,
        mut report: impl FnMut(Progress<'_>),
    ) {
        self.limits = limits;
        self.limits.multipv = self.limits.multipv.max(1);
        self.time = time;
        self.nodes = 0;
        self.tbhits = 0;
        self.tb_cardinality = self.limits.syzygy.as_ref().map_or(0, |t| t.cardinality);
        self.completed = IterationReport::default();
        for row in self.root_move_nodes.iter_mut() {
            row.fill(0);
        }
        self.best_move_stability = 0;
        self.soft_scale = None;
        self.keys.clear();
        self.keys.extend_from_slice(history);
        self.root_keys = self.keys.len();
        self.keys.push(root.hash());
        self.nnue.refresh(root);
        self.stack[0].correction_keys = CorrectionKeys::of(root);
        // A tune build's `setoption` may have changed the reduction table's parameters.
        // Refilled in place: a search allocates nothing it could fail to get.
        #[cfg(feature = "tune")]
        fill_reduction_table(&mut self.reductions);

        let multipv = self.limits.multipv.min(self.limits.root.allowed().len().max(1));
        let max_depth = self.limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        // Helper threads start at staggered depths so they explore different trees.
        let first_depth = if self.is_main() {
            1
        } else {
            1 + (self.id % 2) as i32
        };
        let mut previous_score = 0;

        for depth in first_depth..=max_depth {
            self.root_excluded.clear();
            self.root_excluded.extend_from_slice(self.limits.root.excluded());
            self.root_depth = depth;
            self.seldepth = 0;
            let mut lines = Vec::with_capacity(multipv);
            for pv_index in 0..multipv {
                let score = self.aspiration(
                    root,
                    depth,
                    if pv_index == 0 { previous_score } else { -INFINITY },
                    pv_index,
                    &mut report,
                );
                if self.stopped() && !(depth == 1 && self.completed.lines.is_empty()) {
                    break;
                }
                let pv: Vec<Move> = self.pv[0][..self.pv_len[0]].to_vec();
                let Some(&best) = pv.first() else { break };
                lines.push(PvLine { score, pv });
                self.root_excluded.push(best);
            }
            if lines.len() < multipv && (self.stopped() && !self.completed.lines.is_empty()) {
                break;
            }
            if lines.is_empty() {
                break;
            }
            lines.sort_by_key(|line| std::cmp::Reverse(line.score));
            let same_best = self.completed.lines.first().and_then(|l| l.pv.first()) == lines[0].pv.first();
            self.best_move_stability = if same_best {
                self.best_move_stability + 1
            } else {
                0
            };
            let score_drop = if self.completed.lines.is_empty() {
                0
            } else {
                previous_score - lines[0].score
            };
            previous_score = lines[0].score;
            if self.is_main() && depth >= tm_min_depth() {
                if let Some(&best) = lines[0].pv.first() {
                    let fraction = self.root_move_nodes[best.from().index()][best.to().index()] as f64
                        / self.nodes.max(1) as f64;
                    let scale = search_scale(fraction, self.best_move_stability, score_drop);
                    self.soft_scale = Some(scale);
                    if let Some(time) = self.time.as_mut() {
                        time.scale_soft(scale);
                    }
                }
            }
            self.completed = IterationReport {
                depth,
                seldepth: self.seldepth,
                lines,
            };
            if self.is_main() {
                report(Progress::Iteration(&self.completed));
                if self.should_stop_after_iteration() {
                    break;
                }
            }
            if self.stopped() {
                break;
            }
        }
        // The tables' last owner may want to free them once the search is over.
        self.limits.syzygy = None;
        self.tb_cardinality = 0;
    }

    fn should_stop_after_iteration(&self) -> bool {
        let best = self.completed.lines[0].score;
        if let Some(mate) = self.limits.mate {
            if best >= MATE_BOUND && (MATE - best + 1) / 2 <= mate {
                return true;
            }
        }
        // A new iteration usually costs about as much as all before it: start one only
        // while at most half the soft node budget is spent, so moves average about the
        // budget instead of overshooting it. From `tm_min_depth` on the budget is scaled
        // as the clock's soft limit is: less on a clear move, more on a contested one, over
        // the scale's mean so that moves still average about the budget.
        let node_scale = self.soft_scale.map_or(1.0, |s| s / SOFT_NODES_MEAN_SCALE);
        if self
            .limits
            .soft_nodes
            .is_some_and(|n| self.nodes.saturating_mul(2) as f64 >= n as f64 * node_scale)
        {
            return true;
        }
        self.time.as_ref().is_some_and(|t| t.soft_limit_reached())
    }

    fn stopped(&self) -> bool {
        self.shared.stop.load(Ordering::Relaxed)
    }

    /// Counts a node and checks the limits: the node limit on every thread (so `go nodes N`
    /// with Threads > 1 holds even when the main thread is not scheduled: the total ends
    /// below N plus one node a thread), the clock on the main thread. A node met once the
    /// search is stopped is left at once, not searched, and not counted, so a node limit is
    /// exact on one thread (`go nodes N` reports at most N nodes; the unwinding after the
    /// stop used to add a few dozen).
    #[inline]
    fn count_node(&mut self) {
        if self.stopped() {
            return;
        }
        self.nodes += 1;
        self.shared.nodes[self.id].store(self.nodes, Ordering::Relaxed);
        if let Some(limit) = self.limits.nodes {
            let total = if self.shared.nodes.len() == 1 {
                self.nodes
            } else {
                self.shared.total_nodes()
            };
            if total >= limit {
                self.shared.stop.store(true, Ordering::Relaxed);
            }
        }
        if !self.is_main() {
            return;
        }
        if self.nodes.is_multiple_of(1024) && self.time.as_ref().is_some_and(|t| t.hard_limit_reached()) {
            self.shared.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Step 0. Aspiration windows around the previous iteration's score. The main thread
    /// reports each fail high or low through `report`.
    fn aspiration(
        &mut self,
        root: &Board,
        depth: i32,
        previous: i32,
        pv_index: usize,
        report: &mut impl FnMut(Progress<'_>),
    ) -> i32 {
        let mut delta = aspiration_initial_window();
        let (mut alpha, mut beta) =
            if depth >= aspiration_min_depth() && previous > -INFINITY && !is_mate(previous) {
                (
                    (previous - delta).max(-INFINITY),
                    (previous + delta).min(INFINITY),
                )
            } else {
                (-INFINITY, INFINITY)
            };
        loop {
            let score = self.negamax(root, alpha, beta, depth, 0, false);
            if self.stopped() {
                return score;
            }
            let failed_low = score <= alpha && alpha > -INFINITY;
            let failed_high = score >= beta && beta < INFINITY;
            if self.is_main() && (failed_low || failed_high) {
                let pv = match self.completed.lines.first() {
                    Some(line) if failed_low && pv_index == 0 => line.pv.clone(),
                    _ => self.pv[0][..self.pv_len[0]].to_vec(),
                };
                report(Progress::Bound {
                    depth,
                    seldepth: self.seldepth,
                    pv_index,
                    score,
                    fail_high: failed_high,
                    pv,
                });
            }
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITY);
            } else if score >= beta {
                beta = (score + delta).min(INFINITY);
            } else {
                return score;
            }
            delta += (delta * aspiration_widening_percent() / 100).max(1);
            if delta > aspiration_max_window() {
                alpha = -INFINITY;
                beta = INFINITY;
            }
        }
    }

    /// Whether the position at `ply` (the last key) repeats: once within the search path,
    /// or twice counting the game's history.
    fn is_repetition(&self, board: &Board, ply: usize) -> bool {
        let key = board.hash();
        let n = self.keys.len();
        let reversible = (board.halfmove_clock() as usize).min(n - 1);
        let mut seen = 0;
        let mut distance = 2;
        while distance <= reversible {
            if self.keys[n - 1 - distance] == key {
                if distance <= ply {
                    return true;
                }
                seen += 1;
                if seen >= 2 {
                    return true;
                }
            }
            distance += 2;
        }
        false
    }

    fn evaluate(&self, board: &Board) -> i32 {
        self.nnue
            .evaluate(board)
            .clamp(-TB_WIN_BOUND + 1, TB_WIN_BOUND - 1)
    }

    /// The static evaluation `raw` plus correction history, kept off the tablebase and
    /// mate ranges.
    fn corrected(&self, raw: i32, us: movegen::Color, keys: &CorrectionKeys, previous: [PieceTo; 2]) -> i32 {
        (raw + self.history.correction.correction(us, keys, previous))
            .clamp(-TB_WIN_BOUND + 1, TB_WIN_BOUND - 1)
    }

    /// Step 5b's probe: the tablebases' verdict on `board` as a score at `ply` and its
    /// bound, when the position is one the search probes (right after a capture or a pawn
    /// move, no castling rights, few enough pieces, deep enough).
    fn probe_tablebases(&mut self, board: &Board, depth: i32, ply: usize) -> Option<(i32, Bound)> {
        let pieces = board.occupied().len();
        if pieces > self.tb_cardinality
            || (pieces == self.tb_cardinality && depth < self.limits.syzygy.as_ref()?.probe_depth)
            || board.halfmove_clock() != 0
            || !board.castling_rights().is_empty()
        {
            return None;
        }
        let syzygy = self.limits.syzygy.as_ref()?;
        let wdl = syzygy.tables.probe_wdl(board)?.value();
        self.tbhits += 1;
        self.shared.tbhits[self.id].store(self.tbhits, Ordering::Relaxed);
        // With the 50-move rule, cursed wins and blessed losses are draws, a little off 0.
        let draw = i32::from(syzygy.rule50);
        Some(if wdl < -draw {
            (-TB_WIN + ply as i32, Bound::Upper)
        } else if wdl > draw {
            (TB_WIN - ply as i32, Bound::Lower)
        } else {
            (2 * wdl * draw, Bound::Exact)
        })
    }

    fn play(&mut self, board: &Board, mv: Move, ply: usize) -> Board {
        let mut child = *board;
        child.play(mv);
        self.shared.tt.prefetch(child.hash());
        self.nnue.push(board, mv);
        self.keys.push(child.hash());
        self.stack[ply].moved = PieceTo::of_move(board, mv);
        self.stack[ply].mv = mv;
        self.stack[ply].quiet = board.is_quiet(mv);
        // The child's correction keys, and its correction entries fetched while the move's
        // other work goes on.
        let keys = self.stack[ply].correction_keys.after(board, &child);
        self.stack[ply + 1].correction_keys = keys;
        self.history
            .correction
            .prefetch(child.side_to_move(), &keys, self.previous_moves(ply + 1));
        child
    }

    fn undo(&mut self) {
        self.nnue.pop();
        self.keys.pop();
    }

    /// The moves the side to move made one and two of its own turns ago... for continuation
    /// history: the previous ply (opponent's move) and the one before.
    fn previous_moves(&self, ply: usize) -> [PieceTo; 2] {
        let at = |back: usize| {
            if ply >= back {
                self.stack[ply - back].moved
            } else {
                PieceTo::NONE
            }
        };
        [at(1), at(2)]
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        self.pv[ply][0] = mv;
        let child_len = if ply < MAX_PLY { self.pv_len[ply + 1] } else { 0 };
        for i in 0..child_len {
            self.pv[ply][i + 1] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len + 1;
    }

    /// Alpha-beta principal variation search.
    fn negamax(
        &mut self,
        board: &Board,
        mut alpha: i32,
        mut beta: i32,
        mut depth: i32,
        ply: usize,
        cut_node: bool,
    ) -> i32 {
        #[cfg(test)]
        tests::probe_stack(ply);
        let pv_node = beta - alpha > 1;
        let root = ply == 0;
        self.pv_len[ply] = 0;

        // Step 1. Quiescence at the horizon.
        if depth <= 0 {
            return self.quiescence(board, alpha, beta, ply);
        }

        // Step 2. Node accounting and the stop flag.
        self.count_node();
        if self.stopped() && !root {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply + 1);
        if ply >= MAX_PLY {
            return self.evaluate(board);
        }
        let in_check = board.in_check();

        // Step 3. Draws: repetition, fifty-move rule, dead position.
        if !root {
            if board.halfmove_clock() >= 100 && (!in_check || board.has_legal_move()) {
                return 0;
            }
            if self.is_repetition(board, ply) || board.is_dead_position() {
                return 0;
            }

            // Step 4. Mate distance pruning.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }

        // Step 5. Transposition table probe.
        let excluded = self.stack[ply].excluded;
        let tt_entry = if excluded.is_null() {
            self.shared.tt.probe(board.hash(), ply)
        } else {
            None
        };
        let tt_move = tt_entry.map_or(Move::NULL, |e| e.mv);
        if let Some(entry) = tt_entry {
            if !pv_node && entry.depth >= depth && entry.cuts(alpha, beta) {
                // A quiet TT move that cuts here is rewarded as if searched to a cutoff.
                if entry.score >= beta
                    && !tt_move.is_null()
                    && board.is_quiet(tt_move)
                    && board.is_legal(tt_move)
                {
                    let us = board.side_to_move();
                    let previous = self.previous_moves(ply);
                    let piece_to = PieceTo::of_move(board, tt_move);
                    let threats = board.attacks_by(!us);
                    self.history
                        .update_quiet(us, tt_move, piece_to, previous, threats, bonus(depth));
                }
                return entry.score;
            }
        }

        // Step 5b. Tablebase probe: an exact draw, or a win or loss that already cuts,
        // returns at once (stored deep); at PV nodes a win raises alpha and a loss caps
        // the score the moves can reach.
        let mut max_score = INFINITY;
        let mut tb_floor = -INFINITY;
        if !root && excluded.is_null() && self.tb_cardinality > 0 {
            if let Some((score, bound)) = self.probe_tablebases(board, depth, ply) {
                let cuts = match bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    _ => score <= alpha,
                };
                if cuts {
                    let stored_depth = (depth + 6).min(MAX_PLY as i32 - 1);
                    let eval = if in_check { 0 } else { self.evaluate(board) };
                    self.shared
                        .tt
                        .store(board.hash(), ply, Move::NULL, score, eval, stored_depth, bound);
                    return score;
                }
                if pv_node {
                    if bound == Bound::Lower {
                        tb_floor = score;
                        alpha = alpha.max(score);
                    } else {
                        max_score = score;
                    }
                }
            }
        }

        // Step 6. Static evaluation, corrected by correction history, and whether it
        // improved over two plies ago.
        let us = board.side_to_move();
        let previous = self.previous_moves(ply);
        let correction_keys = self.stack[ply].correction_keys;
        debug_assert_eq!(correction_keys, CorrectionKeys::of(board));
        let (raw_eval, static_eval) = if in_check {
            (-INFINITY, -INFINITY)
        } else {
            let raw = tt_entry.map_or_else(|| self.evaluate(board), |e| e.eval);
            (raw, self.corrected(raw, us, &correction_keys, previous))
        };
        self.stack[ply].static_eval = static_eval;
        let improving = !in_check && ply >= 2 && static_eval > self.stack[ply - 2].static_eval;
        if ply + 2 < self.stack.len() {
            self.history.killers[ply + 1] = [Move::NULL; 2];
        }

        // Step 7. Internal iterative reduction: no hash move, search shallower first.
        if depth >= iir_min_depth() && tt_move.is_null() && (pv_node || cut_node) {
            depth -= 1;
        }

        if !pv_node && !in_check && excluded.is_null() {
            // Step 8. Reverse futility pruning.
            if depth <= rfp_max_depth()
                && static_eval - rfp_margin() * (depth - i32::from(improving)) >= beta
                && !is_mate(beta)
            {
                return static_eval;
            }

            // Step 9. Null move pruning (not with only pawns and king: zugzwang).
            let non_pawn = board.colored(board.side_to_move())
                & !(board.pieces(PieceType::Pawn) | board.pieces(PieceType::King));
            if depth >= nmp_min_depth()
                && static_eval >= beta
                && non_pawn.is_nonempty()
                && ply >= 1
                && self.stack[ply - 1].moved != PieceTo::NONE
            {
                if let Some(child) = board.null_move() {
                    let reduction = nmp_base_reduction() + depth / nmp_depth_divisor();
                    self.nnue.push_null();
                    self.keys.push(child.hash());
                    // The same pieces: the same keys.
                    self.stack[ply + 1].correction_keys = self.stack[ply].correction_keys;
                    self.stack[ply].moved = PieceTo::NONE;
                    self.stack[ply].mv = Move::NULL;
                    let score =
                        -self.negamax(&child, -beta, -beta + 1, depth - reduction, ply + 1, !cut_node);
                    self.undo();
                    if self.stopped() {
                        return 0;
                    }
                    if score >= beta {
                        return if is_mate(score) { beta } else { score };
                    }
                }
            }
        }

        // Step 10. The move loop.
        let counter = self.history.counter(previous[0]);
        let killers = self.history.killers[ply];
        let threats = board.attacks_by(!us);
        self.stack[ply].threats = threats;
        let mut picker = MovePicker::new(board, tt_move, killers, counter, previous, threats);
        let mut best_score = tb_floor;
        let mut best_move = Move::NULL;
        let mut moves_searched = 0;
        let mut quiets_tried: [Move; 64] = [Move::NULL; 64];
        let mut quiets_count = 0;
        let mut captures_tried: [Move; 32] = [Move::NULL; 32];
        let mut captures_count = 0;
        let original_alpha = alpha;

        while let Some(mv) = picker.next(board, &self.history) {
            if mv == excluded || (root && self.root_excluded.contains(&mv)) {
                continue;
            }
            let is_quiet = board.is_quiet(mv);
            let history_score = if is_quiet {
                self.history
                    .quiet_score(us, mv, PieceTo::of_move(board, mv), previous, threats)
            } else {
                0
            };

            // Step 11. Pruning of late and losing moves (never before a move is searched,
            // never when every move so far loses to a mate).
            if !root && best_score > -MATE_BOUND && moves_searched > 0 {
                if is_quiet {
                    // Late move pruning.
                    let lmp_limit = (lmp_base() + depth * depth) / (2 - i32::from(improving));
                    if !pv_node && !in_check && moves_searched >= lmp_limit {
                        picker.skip_quiets();
                        continue;
                    }
                    // Futility pruning.
                    if !in_check
                        && depth <= fp_max_depth()
                        && static_eval + fp_base() + fp_per_depth() * depth <= alpha
                    {
                        picker.skip_quiets();
                        continue;
                    }
                }
                // SEE pruning (a good capture the picker tested at a higher bar passes).
                if depth <= see_prune_max_depth() {
                    let margin = if is_quiet {
                        see_quiet_margin() * depth
                    } else {
                        see_noisy_margin() * depth * depth
                    };
                    let passed =
                        !is_quiet && picker.last_passed_see() && margin <= mp_good_noisy_see_margin();
                    if !passed && !see(board, mv, margin) {
                        continue;
                    }
                }
            }

            // Step 12. Extensions. Singular extension: when the TT move's stored score is a
            // reliable lower bound, the other moves are searched at half depth against a
            // bound a little below it. If all fail low the TT move is singular and searched
            // one ply deeper (two at non-PV nodes when they fail low by a margin, at most
            // se_max_double_extensions times on a path). If even that bound is beaten and it
            // is at least beta, several moves beat beta: cut (multi-cut). Otherwise, when
            // the TT score alone beats beta, or at a cut node, the TT move is searched one
            // ply shallower (negative extension). Other moves that give check get one ply.
            let mut extension = 0;
            if let Some(entry) = tt_entry.filter(|e| {
                !root
                    && mv == tt_move
                    && excluded.is_null()
                    && depth >= se_min_depth()
                    && e.depth >= depth - se_tt_depth_margin()
                    && matches!(e.bound, Bound::Lower | Bound::Exact)
                    && !is_mate(e.score)
                    && (ply as i32) < 2 * self.root_depth
            }) {
                let singular_beta = entry.score - se_beta_margin() * depth / 16;
                let singular_depth = (depth - 1) / 2;
                self.stack[ply].excluded = mv;
                let score = self.negamax(
                    board,
                    singular_beta - 1,
                    singular_beta,
                    singular_depth,
                    ply,
                    cut_node,
                );
                self.stack[ply].excluded = Move::NULL;
                if self.stopped() {
                    return 0;
                }
                if score < singular_beta {
                    extension = 1;
                    if !pv_node
                        && score < singular_beta - se_double_margin()
                        && self.stack[ply].double_extensions < se_max_double_extensions()
                    {
                        extension = 2;
                    }
                } else if singular_beta >= beta {
                    return singular_beta;
                } else if entry.score >= beta || cut_node {
                    extension = -1;
                }
            }
            self.stack[ply + 1].double_extensions =
                self.stack[ply].double_extensions + i32::from(extension >= 2);
            let nodes_before = self.nodes;
            let child = self.play(board, mv, ply);
            moves_searched += 1;
            if extension == 0 && child.in_check() {
                extension = 1;
            }
            let new_depth = depth - 1 + extension;

            // Step 13. Principal variation search with late move reductions.
            let mut score;
            if moves_searched == 1 {
                score = -self.negamax(&child, -beta, -alpha, new_depth, ply + 1, false);
            } else {
                let mut reduction = 0;
                if depth >= lmr_min_depth() && moves_searched > 1 + usize::from(root) as i32 && is_quiet {
                    reduction = self.reductions[depth.min(63) as usize][(moves_searched as usize).min(63)];
                    reduction += i32::from(!pv_node);
                    reduction -= i32::from(improving);
                    reduction += i32::from(cut_node);
                    reduction -= history_score / lmr_history_divisor();
                    reduction -= i32::from(child.in_check());
                    reduction = reduction.clamp(0, (new_depth - 1).max(0));
                }
                score = -self.negamax(&child, -alpha - 1, -alpha, new_depth - reduction, ply + 1, true);
                if score > alpha && reduction > 0 {
                    score = -self.negamax(&child, -alpha - 1, -alpha, new_depth, ply + 1, !cut_node);
                }
                if score > alpha && pv_node {
                    score = -self.negamax(&child, -beta, -alpha, new_depth, ply + 1, false);
                }
            }
            self.undo();
            if root {
                self.root_move_nodes[mv.from().index()][mv.to().index()] += self.nodes - nodes_before;
            }
            if self.stopped() && !(root && best_move.is_null()) {
                return 0;
            }

            // Step 14. Best move bookkeeping.
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = mv;
                    if pv_node {
                        self.update_pv(ply, mv);
                    }
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
            if best_move.is_null() && root && moves_searched == 1 {
                // Keep some move at the root even if every move fails low.
                self.pv[0][0] = mv;
                self.pv_len[0] = 1;
            }
            if is_quiet && quiets_count < quiets_tried.len() {
                quiets_tried[quiets_count] = mv;
                quiets_count += 1;
            } else if !is_quiet && captures_count < captures_tried.len() {
                captures_tried[captures_count] = mv;
                captures_count += 1;
            }
        }

        // Step 15. Checkmate and stalemate.
        if moves_searched == 0 {
            if !excluded.is_null() {
                return alpha;
            }
            if root && !self.root_excluded.is_empty() {
                return -INFINITY;
            }
            return if in_check { -MATE + ply as i32 } else { 0 };
        }

        // A tablebase loss caps what the moves found.
        best_score = best_score.min(max_score);

        // Step 16. History updates on a cutoff.
        if best_score >= beta && !best_move.is_null() {
            let b = bonus(depth);
            let best_is_quiet = board.is_quiet(best_move);
            if best_is_quiet {
                self.history.add_killer(ply, best_move);
                self.history.set_counter(previous[0], best_move);
                for &mv in &quiets_tried[..quiets_count] {
                    let piece_to = PieceTo::of_move(board, mv);
                    let delta = if mv == best_move { b } else { -b };
                    self.history
                        .update_quiet(us, mv, piece_to, previous, threats, delta);
                }
            }
            for &mv in &captures_tried[..captures_count] {
                let moving = board.piece_type_on(mv.from()).unwrap_or(PieceType::Pawn);
                let captured = board.piece_type_on(mv.to()).unwrap_or(PieceType::Pawn);
                let delta = if mv == best_move { b } else { -b };
                self.history.update_capture(moving, mv.to(), captured, delta);
            }
        }

        // Step 16b. Prior move bonus: when every move here fails low, the opponent's quiet
        // move that led here refuted our previous play: reward it in its side's histories.
        if best_score <= original_alpha && ply >= 1 && excluded.is_null() {
            let prior = self.stack[ply - 1];
            if !prior.mv.is_null() && prior.quiet {
                let prior_previous = self.previous_moves(ply - 1);
                self.history.update_quiet(
                    !us,
                    prior.mv,
                    prior.moved,
                    prior_previous,
                    prior.threats,
                    bonus(depth),
                );
            }
        }

        // Step 17. Correction history learns how far the static evaluation was from what
        // the search found, where the bound says which side of it the truth lies.
        let bound = Bound::of(best_score, original_alpha, beta);
        if !in_check
            && excluded.is_null()
            && (best_move.is_null() || board.is_quiet(best_move))
            && !is_mate(best_score)
            && !(bound == Bound::Lower && best_score <= static_eval)
            && !(bound == Bound::Upper && best_score >= static_eval)
        {
            self.history
                .correction
                .update(us, &correction_keys, previous, depth, best_score, raw_eval);
        }

        // Step 18. Store the result (with the raw static evaluation).
        if excluded.is_null() && (!root || self.root_excluded.is_empty()) {
            let eval = if in_check { 0 } else { raw_eval };
            self.shared
                .tt
                .store(board.hash(), ply, best_move, best_score, eval, depth, bound);
        }
        best_score
    }

    /// Quiescence search: captures and promotions until the position is quiet (all evasions
    /// when in check), with stand pat, delta pruning and SEE pruning.
    fn quiescence(&mut self, board: &Board, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        #[cfg(test)]
        tests::probe_stack(ply);
        self.count_node();
        if self.stopped() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply + 1);
        if ply >= MAX_PLY {
            return self.evaluate(board);
        }
        if board.is_dead_position() {
            return 0;
        }
        let pv_node = beta - alpha > 1;
        let in_check = board.in_check();

        // Transposition table.
        let tt_entry = self.shared.tt.probe(board.hash(), ply);
        if let Some(entry) = tt_entry {
            if !pv_node && entry.cuts(alpha, beta) {
                return entry.score;
            }
        }

        // Stand pat on the corrected static evaluation.
        let (raw_eval, static_eval) = if in_check {
            (-INFINITY, -INFINITY)
        } else {
            let raw = tt_entry.map_or_else(|| self.evaluate(board), |e| e.eval);
            let keys = self.stack[ply].correction_keys;
            debug_assert_eq!(keys, CorrectionKeys::of(board));
            let previous = self.previous_moves(ply);
            (raw, self.corrected(raw, board.side_to_move(), &keys, previous))
        };
        let mut best_score = static_eval;
        if !in_check {
            if static_eval >= beta {
                return static_eval;
            }
            alpha = alpha.max(static_eval);
        }

        let mut picker = MovePicker::quiescence(board, tt_entry.map_or(Move::NULL, |e| e.mv));
        let mut best_move = Move::NULL;
        let mut moves_searched = 0;
        let original_alpha = alpha;
        while let Some(mv) = picker.next(board, &self.history) {
            if !in_check {
                // The bad captures the picker hands out last failed SEE at a bar no higher
                // than the one below: all would be pruned.
                if picker.last_failed_see() && qs_see_margin() >= mp_good_noisy_see_margin() {
                    break;
                }
                // Delta pruning: even winning the piece cannot reach alpha.
                if static_eval + gain(board, mv) + qs_delta_margin() <= alpha && mv.promotion().is_none() {
                    continue;
                }
                if !see(board, mv, qs_see_margin()) {
                    continue;
                }
            }
            let child = self.play(board, mv, ply);
            moves_searched += 1;
            let score = -self.quiescence(&child, -beta, -alpha, ply + 1);
            self.undo();
            if self.stopped() {
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = mv;
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
        }
        if in_check && moves_searched == 0 {
            return -MATE + ply as i32;
        }
        let bound = Bound::of(best_score, original_alpha, beta);
        let eval = if in_check { 0 } else { raw_eval };
        self.shared
            .tt
            .store(board.hash(), ply, best_move, best_score, eval, 0, bound);
        best_score
    }
}

#[cfg(test)]
mod tests {
    use crate::params::MAX_PLY;
    use crate::threads::MIN_SEARCH_STACK_BYTES;
    use std::cell::Cell;

    thread_local! {
        /// The stack address at the root (ply 0) of this thread's search.
        static ROOT: Cell<usize> = const { Cell::new(0) };
        /// The most stack per ply seen below the root: (bytes from the root) / ply.
        static PER_PLY: Cell<usize> = const { Cell::new(0) };
    }

    /// Called at every node in test builds: measures how much stack a ply takes.
    #[inline(never)]
    pub(super) fn probe_stack(ply: usize) {
        let marker = 0u8;
        let here = std::hint::black_box(&marker) as *const u8 as usize;
        if ply == 0 {
            ROOT.with(|r| r.set(here));
            return;
        }
        let root = ROOT.with(Cell::get);
        if root > here {
            PER_PLY.with(|p| p.set(p.get().max((root - here) / ply)));
        }
    }

    /// Each thread's counters lie on cache lines of their own.
    #[test]
    fn per_thread_counters_share_no_cache_line() {
        let tt = std::sync::Arc::new(crate::tt::TranspositionTable::new(1));
        let shared = super::Shared::new(tt, 3);
        for counters in [&shared.nodes, &shared.tbhits] {
            let addresses: Vec<usize> = counters.iter().map(|c| &c.0 as *const _ as usize).collect();
            assert!(addresses.iter().all(|a| a % 128 == 0), "{addresses:x?}");
            assert!(addresses.windows(2).all(|w| w[1] - w[0] >= 128), "{addresses:x?}");
        }
    }

    /// The search's depth is bounded by `MAX_PLY`, so its stack is too: measured over the
    /// bench positions (every ply's share of the stack from the root, the largest), a line
    /// to the deepest ply must fit the smallest stack a search thread falls back to twice
    /// over; and a search runs on a thread with that stack.
    #[test]
    fn a_whole_line_fits_the_smallest_search_stack() {
        let measured = std::thread::Builder::new()
            .stack_size(MIN_SEARCH_STACK_BYTES)
            .spawn(|| {
                let net = crate::default_net();
                crate::bench::run_quiet(10, &net, |_, _, _| {}).unwrap();
                PER_PLY.with(Cell::get)
            })
            .unwrap()
            .join()
            .unwrap();
        let line = measured * (MAX_PLY + 1);
        eprintln!("{measured} bytes of stack a ply at most: {line} bytes for {MAX_PLY} plies");
        assert!(measured > 100, "the probe saw the search: {measured}");
        assert!(
            2 * line <= MIN_SEARCH_STACK_BYTES,
            "{line} bytes for a whole line"
        );
    }
}

//! Lazy SMP: every thread runs its own iterative deepening on the same root, sharing only
//! the transposition table, the stop flag and per-thread node counters. Helpers start at
//! staggered depths; what they store in the table steers the main thread. The main thread
//! alone watches the clock and the node limit and reports to the [`Listener`]; when it
//! stops it stops the helpers, waits for them, and answers with the best move of the thread
//! that completed the deepest iteration (the main thread on ties). The answer's move is
//! always the first move of the last `multipv 1` line reported: when a helper's iteration
//! wins (or a bound was reported last), its line is reported again first. With a strength
//! limit (`crate::strength`) the answer is the line the limit chooses among the main
//! thread's last lines, reported alone as the best line.
//!
//! This module builds typed reports ([`Iteration`], [`SearchResult`]); turning them into
//! text is the UCI front end's business.

use crate::report::{hard_nodes_for, Iteration, Limits, Line, Listener, Score, ScoreBound, SearchResult};
use crate::root_moves::RootMoves;
use crate::search::{IterationReport, Progress, PvLine, ResolvedLimits, SearchTables, Shared, Worker, MATE};
use crate::strength::StrengthLimit;
use crate::time_manager::TimeManager;
use movegen::{Board, Move};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{JoinHandle, Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

/// Stack size for search threads. The search recurses at most `MAX_PLY` (128) plies deep;
/// its negamax and quiescence frames, move lists included, take at most about 4.9 KB a ply
/// of stack from the root (measured over the bench positions by
/// `search::tests::a_whole_line_fits_the_smallest_search_stack`, which holds it to half of
/// [`MIN_SEARCH_STACK_BYTES`]), so a line to the deepest ply takes about 0.6 MiB: 8 MiB
/// (the size of a main thread's stack) leaves over ten times that. (It was 64 MiB, which
/// under an address-space limit such as `ulimit -v 300000` left no room for a second
/// thread beside a 256 MiB hash.)
pub const SEARCH_STACK_BYTES: usize = 8 * 1024 * 1024;

/// The stack a search thread falls back to when the system cannot give it
/// [`SEARCH_STACK_BYTES`]: over three times a line to the deepest ply.
pub const MIN_SEARCH_STACK_BYTES: usize = 2 * 1024 * 1024;

/// The stack sizes a search thread is started with, in the order tried.
const STACKS: [usize; 2] = [SEARCH_STACK_BYTES, MIN_SEARCH_STACK_BYTES];

/// What a thread is to work on, taken out by the thread that starts (a thread that cannot
/// be started leaves it for the next try, or for the caller).
pub(crate) fn take<D>(work: &Mutex<Option<D>>) -> Option<D> {
    work.lock().unwrap_or_else(PoisonError::into_inner).take()
}

/// Starts a thread named `name` that runs `run` on the data in `work` (its result `None`
/// only if the data was already taken), with [`SEARCH_STACK_BYTES`] of stack or, when the
/// system cannot give that much, [`MIN_SEARCH_STACK_BYTES`]. Errors: neither could be had;
/// the data is then still in `work`.
pub(crate) fn spawn_search<D, T>(
    name: &str,
    work: &Arc<Mutex<Option<D>>>,
    run: fn(D) -> T,
) -> std::io::Result<JoinHandle<Option<T>>>
where
    D: Send + 'static,
    T: Send + 'static,
{
    let mut last = None;
    for stack in STACKS {
        let work = work.clone();
        match std::thread::Builder::new()
            .name(name.into())
            .stack_size(stack)
            .spawn(move || take(&work).map(run))
        {
            Ok(handle) => return Ok(handle),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no stack size to try")))
}

/// [`spawn_search`] for a thread of `scope`.
pub(crate) fn spawn_search_scoped<'scope, D, T>(
    scope: &'scope Scope<'scope, '_>,
    work: &'scope Mutex<Option<D>>,
    run: fn(D) -> T,
) -> std::io::Result<ScopedJoinHandle<'scope, Option<T>>>
where
    D: Send + 'scope,
    T: Send + 'scope,
{
    let mut last = None;
    for stack in STACKS {
        match std::thread::Builder::new()
            .stack_size(stack)
            .spawn_scoped(scope, move || take(work).map(run))
        {
            Ok(handle) => return Ok(handle),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no stack size to try")))
}

/// Runs work that is a closure.
fn call<T>(f: impl FnOnce() -> T) -> T {
    f()
}

/// What a search runs with besides its [`Limits`]: the engine's options
/// (`crate::Engine`), or a [`crate::Searcher`]'s fixed ones (`SearchSettings::default()`:
/// one line, no move overhead, hard node limits, no WDL, no strength limit, no tables).
#[derive(Clone, Debug, Default)]
pub struct SearchSettings {
    /// Lines to search (MultiPV; 0 counts as 1).
    pub multipv: usize,
    /// Milliseconds kept back from the clock for each move (`Move Overhead`).
    pub move_overhead_ms: u64,
    /// `UseSoftNodes`: a node limit without a soft one becomes datagen's soft budget with
    /// its hard cap ([`crate::hard_nodes_for`]).
    pub use_soft_nodes: bool,
    /// Reports carry win/draw/loss chances (`UCI_ShowWDL`).
    pub show_wdl: bool,
    /// A strength limit and the random number its choice uses.
    pub strength: Option<(StrengthLimit, u64)>,
    /// Tablebases, with the Syzygy options, when they are loaded.
    pub tables: Option<SearchTables>,
}

/// Everything one search needs: the caller's [`Limits`] resolved once, by [`Job::new`].
#[derive(Clone, Debug)]
pub struct Job {
    /// The root.
    pub board: Board,
    /// Keys of the positions before `board` in the game (for repetitions).
    pub history: Vec<u64>,
    /// The limits every thread obeys, with the strength limit and the root moves applied.
    pub limits: ResolvedLimits,
    /// The clock, if the search has one.
    pub time: Option<TimeManager>,
    /// Answer only after `stop` (`go infinite`, or a search without limits).
    pub infinite: bool,
    /// Answer only after `stop` or `ponderhit`.
    pub ponder: bool,
    /// Set while pondering; cleared by `ponderhit`.
    pub pondering: Arc<AtomicBool>,
    /// When the search started.
    pub start: Instant,
    /// Reports carry win/draw/loss chances.
    pub show_wdl: bool,
    /// A strength limit and the random number its choice uses.
    pub strength: Option<(StrengthLimit, u64)>,
    /// The root is in the tablebases: the score each root move shows unless the search
    /// finds a mate (a win, a draw, a loss, or a little off a draw for a cursed win).
    pub tb_scores: Vec<(Move, i32)>,
    /// Tablebase probes of the root filter (one per legal move).
    pub root_tbhits: u64,
}

impl Job {
    /// The search of `board` (after the game's positions `history`) within `limits`, run
    /// with `settings`, starting at `start`: the one conversion from a caller's limits to
    /// what the threads obey. The root moves come from `searchmoves`
    /// ([`RootMoves::new`]) less those the tablebases' root filter drops when the root is
    /// in the tables (`crate::syzygy`); the clock becomes a time manager (none for
    /// `infinite`); `UseSoftNodes` turns a node limit into a soft budget; the strength
    /// limit sets its node budget and lines. A search with no limit at all is `infinite`.
    pub fn new(
        board: Board,
        history: Vec<u64>,
        limits: &Limits,
        settings: SearchSettings,
        start: Instant,
    ) -> Job {
        let mut root = RootMoves::new(&board, &limits.search_moves);
        // The tablebases: the root filter leaves out the moves that spoil the result.
        let mut syzygy = settings.tables;
        let (mut tb_scores, mut root_tbhits) = (Vec::new(), 0);
        if let Some(tables) = syzygy
            .as_mut()
            .filter(|t| board.occupied().len() <= t.cardinality)
        {
            let filter =
                crate::syzygy::filter_root(&tables.tables, &board, &history, root.allowed(), tables.rule50);
            if let Some(filter) = filter {
                root.exclude(&filter.excluded);
                tb_scores = filter.scores;
                root_tbhits = filter.probes;
                if !filter.probe_in_search {
                    tables.cardinality = 0;
                }
            }
        }
        let pondering = Arc::new(AtomicBool::new(limits.ponder));
        let time = if limits.infinite {
            None
        } else {
            limits.clock.and_then(|clock| {
                TimeManager::new(clock, settings.move_overhead_ms, start, pondering.clone())
            })
        };
        let unlimited = time.is_none()
            && limits.depth.is_none()
            && limits.nodes.is_none()
            && limits.soft_nodes.is_none()
            && limits.mate.is_none();
        let (nodes, soft_nodes) = match (settings.use_soft_nodes, limits.nodes, limits.soft_nodes) {
            (true, Some(n), None) => (Some(hard_nodes_for(n)), Some(n)),
            _ => (limits.nodes, limits.soft_nodes),
        };
        let mut resolved = ResolvedLimits {
            depth: limits.depth,
            nodes,
            soft_nodes,
            mate: limits.mate,
            multipv: settings.multipv.max(1),
            root,
            syzygy,
        };
        if let Some((limit, _)) = &settings.strength {
            limit.apply(&mut resolved);
        }
        Job {
            board,
            history,
            limits: resolved,
            time,
            infinite: limits.infinite || unlimited,
            ponder: limits.ponder,
            pondering,
            start,
            show_wdl: settings.show_wdl,
            strength: settings.strength,
            tb_scores,
            root_tbhits,
        }
    }

    /// The score a line starting with `first` shows: the root's tablebase score when it
    /// has one and the search found no mate, else `score`.
    fn shown_score(&self, first: Option<&Move>, score: i32) -> i32 {
        if crate::search::is_mate(score) {
            return score;
        }
        first
            .and_then(|mv| self.tb_scores.iter().find(|(m, _)| m == mv))
            .map_or(score, |&(_, tb)| tb)
    }

    /// Tablebase hits so far, or `None` without tables.
    fn tbhits(&self, shared: &Shared) -> Option<u64> {
        self.limits
            .syzygy
            .as_ref()
            .map(|_| shared.total_tbhits() + self.root_tbhits)
    }
}

/// A report of `lines` at `depth`, each PV cut at its first move that is not legal.
fn iteration(job: &Job, shared: &Shared, depth: i32, seldepth: usize, lines: Vec<Line>) -> Iteration {
    Iteration {
        depth,
        seldepth,
        nodes: shared.total_nodes(),
        elapsed: job.start.elapsed(),
        hashfull: shared.tt.hashfull(),
        tbhits: job.tbhits(shared),
        lines,
    }
}

/// A typed line at `root`: rank, score, bound, WDL (when `show_wdl`) and the legal
/// prefix of `pv`.
fn line(
    root: &Board,
    show_wdl: bool,
    multipv: usize,
    score: i32,
    bound: Option<ScoreBound>,
    pv: &[Move],
) -> Line {
    let mut board = *root;
    let mut legal = Vec::with_capacity(pv.len());
    for &mv in pv {
        if !board.is_legal(mv) {
            break;
        }
        legal.push(mv);
        board.play(mv);
    }
    Line {
        multipv,
        score: Score::new(score),
        bound,
        wdl: show_wdl.then(|| crate::wdl::wdl(score, root)),
        pv: legal,
    }
}

fn iteration_of(job: &Job, shared: &Shared, report: &IterationReport) -> Iteration {
    let lines = report
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let score = job.shown_score(l.pv.first(), l.score);
            line(&job.board, job.show_wdl, i + 1, score, None, &l.pv)
        })
        .collect();
    iteration(job, shared, report.depth, report.seldepth, lines)
}

/// Runs one search on `workers` (the first is the main thread, run on this thread; the
/// helpers get their own), reporting to `listener`, and returns the answer (also given to
/// `listener.best_move`). The caller has prepared the workers' shared state for the search
/// ([`Shared::reset`]; the engine also ages the table). One worker and the `()` listener
/// make the synchronous, silent search of [`crate::Searcher`].
pub fn run(
    workers: &mut [Worker],
    shared: &Arc<Shared>,
    job: &Job,
    listener: &mut dyn Listener,
) -> SearchResult {
    let board = job.board;
    // The root moves this search may play (at least one when there is a legal move).
    let Some(&first_allowed) = job.limits.root.allowed().first() else {
        // Checkmated or stalemated: report the score, then no move.
        let (score, wdl) = if board.in_check() {
            (-MATE, [0, 0, 1000])
        } else {
            (0, [0, 1000, 0])
        };
        let typed = iteration(
            job,
            shared,
            0,
            0,
            vec![Line {
                multipv: 1,
                score: Score::new(score),
                bound: None,
                wdl: job.show_wdl.then_some(wdl),
                pv: Vec::new(),
            }],
        );
        listener.iteration(&typed);
        wait_until_released(shared, job);
        return answer(job, shared, listener, None, typed);
    };
    // The first move of the `multipv 1` line reported last.
    let mut last_reported: Option<Move> = None;

    let Some((main, helpers)) = workers.split_first_mut() else {
        return answer_with(
            job,
            shared,
            listener,
            IterationReport::default(),
            first_allowed,
            true,
        );
    };
    let helper_count = helpers.len();
    let work: Vec<Mutex<Option<_>>> = helpers
        .iter_mut()
        .map(|helper| {
            Mutex::new(Some(move || {
                helper.search(&board, &job.history, job.limits.clone(), None, |_| {});
            }))
        })
        .collect();
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        let mut failure = None;
        for work in &work {
            // A helper that cannot be started only makes the search narrower.
            match spawn_search_scoped(scope, work, call) {
                Ok(handle) => handles.push(handle),
                Err(e) => failure = Some(e),
            }
        }
        let started = handles.len() + 1;
        // A shortfall is said once, not at every search (again only after a change).
        if shared.started_reported.swap(started, Ordering::Relaxed) != started {
            if let Some(e) = failure {
                listener.note(&format!(
                    "{} of {} search threads could not be started ({e}); the search runs on the {started} that did",
                    helper_count + 1 - started,
                    helper_count + 1,
                ));
            }
        }
        main.search(
            &board,
            &job.history,
            job.limits.clone(),
            job.time.clone(),
            |progress| match progress {
                Progress::Iteration(report) => {
                    listener.iteration(&iteration_of(job, shared, report));
                    last_reported = report.lines.first().and_then(|l| l.pv.first().copied());
                }
                Progress::Bound {
                    depth,
                    seldepth,
                    pv_index,
                    score,
                    fail_high,
                    pv,
                } => {
                    if pv.is_empty() {
                        return;
                    }
                    let bound = if fail_high {
                        ScoreBound::Lower
                    } else {
                        ScoreBound::Upper
                    };
                    let lines = vec![line(
                        &job.board,
                        job.show_wdl,
                        pv_index + 1,
                        job.shown_score(pv.first(), score),
                        Some(bound),
                        &pv,
                    )];
                    listener.bound(&iteration(job, shared, depth, seldepth, lines));
                    if pv_index == 0 {
                        last_reported = pv.first().copied();
                    }
                }
            },
        );
        wait_until_released(shared, job);
        shared.stop.store(true, Ordering::Relaxed);
        for handle in handles {
            let _ = handle.join();
        }
    });
    drop(work);

    let choice = job.strength.and_then(|(limit, random)| {
        strength_choice(&workers[0].completed, &board, &job.limits.root, &limit, random)
    });
    let (report, best, from_helper) = match choice {
        // The chosen line is always reported, as the best line.
        Some((report, best)) => (report, Some(best), true),
        None => best_of(workers, &job.limits.root),
    };
    let best = best.unwrap_or(first_allowed);
    // The line behind the answer must be the last one reported: report it again when it
    // comes from a helper (or a choice), or when a bound or another move was reported last.
    answer_with(
        job,
        shared,
        listener,
        report,
        best,
        from_helper || last_reported != Some(best),
    )
}

/// Reports the line behind `best` (from `report`, or `best` alone when `report` does not
/// start with it) when `report_again`, then answers with it ([`answer`]).
fn answer_with(
    job: &Job,
    shared: &Shared,
    listener: &mut dyn Listener,
    mut report: IterationReport,
    best: Move,
    report_again: bool,
) -> SearchResult {
    if report.lines.first().and_then(|l| l.pv.first()) != Some(&best) {
        // No iteration stands behind this move: report it alone.
        report.lines = vec![PvLine {
            score: 0,
            pv: vec![best],
        }];
    }
    let typed = iteration_of(job, shared, &report);
    if report_again {
        listener.iteration(&typed);
    }
    answer(job, shared, listener, Some(best), typed)
}

/// The answer to a search, given to `listener.best_move` and returned: `best` (`None`
/// only without a legal move) and the lines of `typed`, the report behind it, whose first
/// line starts with `best`; the ponder move is the reply in that line when it is legal
/// after `best`. The one place a [`SearchResult`] is made.
fn answer(
    job: &Job,
    shared: &Shared,
    listener: &mut dyn Listener,
    best: Option<Move>,
    typed: Iteration,
) -> SearchResult {
    let first = typed.lines.first();
    let ponder_move = best
        .zip(first.and_then(|l| l.pv.get(1).copied()))
        .and_then(|(mv, reply)| {
            let mut next = job.board;
            next.play(mv);
            next.is_legal(reply).then_some(reply)
        });
    let result = SearchResult {
        best_move: best,
        ponder_move,
        score: first.map(|l| l.score),
        depth: typed.depth,
        seldepth: typed.seldepth,
        nodes: shared.total_nodes(),
        tbhits: job.tbhits(shared),
        elapsed: job.start.elapsed(),
        lines: typed.lines,
    };
    listener.best_move(&result);
    result
}

/// The deepest completed iteration of any thread (the main thread on ties), its best move
/// when the search may play it, and whether it comes from a helper.
fn best_of(workers: &[Worker], root: &RootMoves) -> (IterationReport, Option<Move>, bool) {
    let best_worker = workers
        .iter()
        .enumerate()
        .filter(|(_, w)| !w.completed.lines.is_empty())
        .max_by_key(|(i, w)| (w.completed.depth, usize::from(*i == 0)));
    let from_helper = best_worker.is_some_and(|(i, _)| i != 0);
    let report = best_worker.map(|(_, w)| w.completed.clone()).unwrap_or_default();
    let best = report
        .lines
        .first()
        .and_then(|l| l.pv.first().copied())
        .filter(|&m| root.allows(m));
    (report, best, from_helper)
}

/// The line `limit` chooses among the main thread's last lines (legal, allowed ones),
/// as a one-line report, and its move.
fn strength_choice(
    completed: &IterationReport,
    board: &Board,
    root: &RootMoves,
    limit: &StrengthLimit,
    random: u64,
) -> Option<(IterationReport, Move)> {
    let lines: Vec<PvLine> = completed
        .lines
        .iter()
        .filter(|l| l.pv.first().is_some_and(|&m| board.is_legal(m) && root.allows(m)))
        .cloned()
        .collect();
    let scores: Vec<Score> = lines.iter().map(|l| Score::new(l.score)).collect();
    let index = limit.choose(&scores, crate::wdl::material(board), random)?;
    let chosen = lines.get(index)?.clone();
    let best = *chosen.pv.first()?;
    let report = IterationReport {
        depth: completed.depth,
        seldepth: completed.seldepth,
        lines: vec![chosen],
    };
    Some((report, best))
}

/// With `infinite` the answer waits for `stop`; with `ponder` for `stop` or `ponderhit`
/// (a ponder search that already finished then answers at once).
fn wait_until_released(shared: &Shared, job: &Job) {
    if !job.infinite && !job.ponder {
        return;
    }
    while !shared.stop.load(Ordering::Relaxed) {
        if job.ponder && !job.pondering.load(Ordering::Relaxed) {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

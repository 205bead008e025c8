//! The engine as one object, in the spirit of Stockfish's `engine.h`: [`Engine`] owns the
//! net, the transposition table, the search threads (Lazy SMP workers with their
//! histories) and the stop flag, and offers what a front end needs: set a position, start
//! a search with typed reports to a [`Listener`], stop it, `ponderhit`, start a new game,
//! set an option. Only it and [`crate::Searcher`] build search workers.
//!
//! A search runs on its own thread ([`Engine::start`]); every other call that changes the
//! engine (a position, an option, a new game, another search) first stops it and waits for
//! its answer, so the listener's `best_move` of one search always comes before anything of
//! the next. [`Engine::go`] is the blocking form for searches that end by themselves.
//!
//! The machine's limits are refusals, never aborts: `Threads` whose tables cannot be had is
//! refused with the old threads kept (as a `Hash` that cannot be had keeps the old table);
//! a search thread that cannot get its stack tries a smaller one, helpers that cannot start
//! leave the search to those that did (said once, [`Listener::note`]), and when not even
//! the search thread starts, the caller's thread searches (an `infinite` or `ponder` search
//! cut short, its answer held for `stop` or `ponderhit`), so a legal position always gets a
//! move.
//! Tools that search many positions one by one (bench, genfens, datagen) use the lighter
//! [`crate::Searcher`].

use crate::accumulator::AccumulatorStack;
use crate::options::{
    truncate, OptionError, OptionSpec, OptionValue, Options, Setting, EMBEDDED_NET_NAME, NO_SYZYGY_PATH,
};
use crate::report::{Limits, Listener, SearchResult};
use crate::search::{SearchTables, Shared, Worker};
use crate::strength::StrengthLimit;
use crate::threads::{self, Job, SearchSettings};
use crate::time_manager::TimeManager;
use crate::tt::TranspositionTable;
use movegen::rng::SplitMix64;
use movegen::{Board, Move};
use nnue::Network;
use std::collections::TryReserveError;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;
use tablebase::Tablebases;

/// The embedded default net's bytes.
pub static DEFAULT_NET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/default.nnue"));

/// The embedded default net. It is read with the same loader as any `EvalFile`; the
/// default one is checked by the tests, and a bad file embedded with `EVALFILE=` at build
/// time fails here, at start-up, with the loader's reason.
pub fn default_net() -> Arc<Network> {
    match Network::from_bytes(DEFAULT_NET) {
        Ok(net) => Arc::new(net),
        Err(e) => panic!("the embedded net is not valid: {e}"),
    }
}

/// The search threads and what they share.
#[derive(Debug)]
pub(crate) struct Pool {
    pub shared: Arc<Shared>,
    pub workers: Vec<Worker>,
}

impl Pool {
    /// `threads` workers (at least one) over `net` and `tt`; aborts, as `Vec` does, when
    /// the memory cannot be had (the engine's start, with its default one thread).
    pub fn new(threads: usize, net: &Arc<Network>, tt: &Arc<TranspositionTable>) -> Pool {
        match Pool::try_new(threads, net, tt) {
            Ok(pool) => pool,
            Err(e) => panic!("cannot allocate the search threads' tables: {e}"),
        }
    }

    /// `threads` workers (at least one) over `net` and `tt`, or the allocator's refusal
    /// (`crate::memory`): for the numbers of threads users choose.
    pub fn try_new(
        threads: usize,
        net: &Arc<Network>,
        tt: &Arc<TranspositionTable>,
    ) -> Result<Pool, TryReserveError> {
        let shared = Arc::new(Shared::new(tt.clone(), threads));
        let mut workers = crate::memory::try_with_capacity(threads.max(1))?;
        for id in 0..threads.max(1) {
            let nnue = AccumulatorStack::try_new(net.clone())?;
            workers.push(Worker::try_new(id, shared.clone(), nnue)?);
        }
        Ok(Pool { shared, workers })
    }

    /// Prepares a search: ages the transposition table (a game's searches each get their
    /// own age, for the table's replacement) and clears the stop flag and the counters.
    fn reset(&self) {
        self.shared.tt.new_search();
        self.shared.reset();
    }
}

/// A search that was started.
enum Running {
    /// On its own thread.
    Thread {
        handle: JoinHandle<Option<(Pool, SearchResult)>>,
        shared: Arc<Shared>,
        pondering: Arc<AtomicBool>,
        ponderhit_at: Option<Arc<AtomicU64>>,
        start: Instant,
    },
    /// An `infinite` or `ponder` search that ran on the caller's thread, because no search
    /// thread could be started: its answer waits for `stop` or `ponderhit`.
    Held {
        listener: Box<dyn Listener + Send>,
        result: SearchResult,
    },
}

/// What a search thread of [`Engine::start`] works on.
type StartWork = (Pool, Job, Box<dyn Listener + Send>);

fn run_start(work: StartWork) -> (Pool, SearchResult) {
    let (mut pool, job, mut listener) = work;
    let result = threads::run(&mut pool.workers, &pool.shared, &job, &mut *listener);
    (pool, result)
}

/// The depth an `infinite` or `ponder` search without a search thread is cut to (it runs
/// on the caller's thread, which must get back to reading `stop`).
const HELD_SEARCH_DEPTH: i32 = 8;

/// A listener that passes everything on but the answer, which the caller gives (see
/// [`Running::Held`]).
struct HoldAnswer<'a> {
    inner: &'a mut (dyn Listener + Send),
}

impl Listener for HoldAnswer<'_> {
    fn iteration(&mut self, report: &crate::report::Iteration) {
        self.inner.iteration(report);
    }
    fn bound(&mut self, report: &crate::report::Iteration) {
        self.inner.bound(report);
    }
    fn note(&mut self, text: &str) {
        self.inner.note(text);
    }
    fn best_move(&mut self, _result: &SearchResult) {}
}

/// Why a search was not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GoError {
    /// [`Engine::go`] waits for the end of the search, so it refuses one that would end
    /// only on `stop`: `infinite`, `ponder`, or no limit at all. Use [`Engine::start`].
    Unbounded,
    /// The search thread could not be started (the reason from the system).
    Thread(String),
}

impl fmt::Display for GoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GoError::Unbounded => write!(
                f,
                "a blocking search needs a limit (depth, nodes, mate or a clock) and neither infinite nor ponder"
            ),
            GoError::Thread(e) => write!(f, "cannot start the search thread: {e}"),
        }
    }
}

impl std::error::Error for GoError {}

/// A move of [`Engine::set_position`]'s list that is not legal where it stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalMoveError {
    /// Its index in the list (the moves before it were played).
    pub index: usize,
    /// The move.
    pub mv: Move,
}

impl fmt::Display for IllegalMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "move {} of the list ({}) is illegal; the position is the one after the moves before it",
            self.index + 1,
            self.mv
        )
    }
}

impl std::error::Error for IllegalMoveError {}

/// The engine: net, transposition table, search threads, position and options. See the
/// module documentation for how a search runs.
pub struct Engine {
    net: Arc<Network>,
    tt: Arc<TranspositionTable>,
    /// `None` only while a search runs (its thread holds the workers).
    pool: Option<Pool>,
    running: Option<Running>,
    options: Options,
    board: Board,
    /// Keys of the positions before `board` (for repetitions).
    history: Vec<u64>,
    /// Random numbers for the strength limit's choice when `Strength Seed` is 0.
    rng: SplitMix64,
    /// The Syzygy tables of `SyzygyPath`, if any.
    tablebases: Option<Arc<Tablebases>>,
}

impl fmt::Debug for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Engine")
            .field("options", &self.options)
            .field("position", &self.board.to_fen())
            .field("searching", &self.running.is_some())
            .finish_non_exhaustive()
    }
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.finish();
    }
}

/// A seed that differs from run to run (for the strength limit's choice with seed 0).
fn start_up_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    movegen::rng::hash(nanos ^ u64::from(std::process::id()) << 32)
}

impl Engine {
    /// An engine with the embedded net and the default options (16 MiB hash, one thread),
    /// at the start position.
    pub fn new() -> Engine {
        Engine::with_network(default_net())
    }

    /// An engine evaluating with `net`, otherwise as [`Engine::new`].
    pub fn with_network(net: Arc<Network>) -> Engine {
        let options = Options::default();
        let tt = Arc::new(TranspositionTable::new(options.hash_mib));
        let pool = Pool::new(options.threads, &net, &tt);
        Engine {
            net,
            tt,
            pool: Some(pool),
            running: None,
            options,
            board: Board::startpos(),
            history: Vec::new(),
            rng: SplitMix64(start_up_seed()),
            tablebases: None,
        }
    }

    /// The options as set.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The net the engine evaluates with.
    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    /// The Syzygy tables loaded by `SyzygyPath`, if any.
    pub fn tablebases(&self) -> Option<&Arc<Tablebases>> {
        self.tablebases.as_ref()
    }

    /// The position searches start from.
    pub fn position(&self) -> &Board {
        &self.board
    }

    /// The reference evaluation of `board` by the engine's net, in centipawns from the side
    /// to move's view (the search's static evaluation before correction history).
    pub fn evaluate(&self, board: &Board) -> i32 {
        self.net.evaluate(board)
    }

    /// Sets option `name` (case-insensitive; see [`crate::OPTIONS`]) from `value` as text,
    /// stopping a running search first, and returns its declaration. A refused value
    /// changes nothing.
    pub fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<OptionSpec, OptionError> {
        self.finish();
        let spec = OptionSpec::find(name).ok_or_else(|| OptionError::Unknown(truncate(name)))?;
        let value = spec.read(value)?;
        self.apply(spec.setting, &value)?;
        Ok(spec)
    }

    /// Searches will start from `start` after `moves` (the game so far, for repetitions),
    /// after stopping a running search. Errors: a move that is not legal where it stands;
    /// the position is then the one after the moves before it.
    pub fn set_position(&mut self, start: Board, moves: &[Move]) -> Result<(), IllegalMoveError> {
        self.finish();
        self.board = start;
        self.history.clear();
        for (index, &mv) in moves.iter().enumerate() {
            if !self.board.is_legal(mv) {
                return Err(IllegalMoveError { index, mv });
            }
            self.history.push(self.board.hash());
            self.board.play(mv);
        }
        Ok(())
    }

    /// A new game: stops a running search, empties the transposition table and every
    /// thread's histories, and returns to the start position.
    pub fn new_game(&mut self) {
        self.finish();
        self.tt.clear();
        if let Some(pool) = &mut self.pool {
            pool.workers.iter_mut().for_each(|w| w.history.clear());
        }
        self.board = Board::startpos();
        self.history.clear();
    }

    /// Starts a search of the current position on its own thread and returns at once
    /// (after stopping a running one). `listener` receives the reports and, exactly once,
    /// the answer; [`Engine::wait`] returns it too. With `infinite`, `ponder` or no limit
    /// the answer waits for [`Engine::stop`] (or [`Engine::ponderhit`]).
    pub fn start(&mut self, limits: Limits, listener: Box<dyn Listener + Send>) -> Result<(), GoError> {
        self.finish();
        let job = self.job(limits);
        let pool = self.take_pool()?;
        pool.reset();
        let running_shared = pool.shared.clone();
        let (pondering, ponderhit_at, start) = (
            job.pondering.clone(),
            job.time.as_ref().map(TimeManager::ponderhit_cell),
            job.start,
        );
        let work: Arc<Mutex<Option<StartWork>>> = Arc::new(Mutex::new(Some((pool, job, listener))));
        match threads::spawn_search("search", &work, run_start) {
            Ok(handle) => {
                self.running = Some(Running::Thread {
                    handle,
                    shared: running_shared,
                    pondering,
                    ponderhit_at,
                    start,
                });
                Ok(())
            }
            Err(e) => match threads::take(&work) {
                Some((pool, job, listener)) => {
                    self.search_here(pool, job, listener, &e.to_string());
                    Ok(())
                }
                None => Err(GoError::Thread(e.to_string())),
            },
        }
    }

    /// The last resort when no search thread can be started: the search runs on the
    /// caller's thread (said first), so that a legal position still gets a move. A bounded
    /// search answers at once; an `infinite` or `ponder` one is cut to
    /// [`HELD_SEARCH_DEPTH`] and its answer held for `stop` or `ponderhit`.
    fn search_here(
        &mut self,
        mut pool: Pool,
        mut job: Job,
        mut listener: Box<dyn Listener + Send>,
        why: &str,
    ) {
        listener.note(&format!(
            "cannot start the search thread ({why}); searching on the engine's own thread"
        ));
        let held = job.infinite || job.ponder;
        if held {
            job.infinite = false;
            job.ponder = false;
            job.pondering.store(false, Ordering::Relaxed);
            job.limits.depth = Some(
                job.limits
                    .depth
                    .map_or(HELD_SEARCH_DEPTH, |d| d.min(HELD_SEARCH_DEPTH)),
            );
        }
        let mut hold = HoldAnswer {
            inner: &mut *listener,
        };
        let result = threads::run(&mut pool.workers, &pool.shared, &job, &mut hold);
        self.pool = Some(pool);
        if held {
            self.running = Some(Running::Held { listener, result });
        } else {
            listener.best_move(&result);
        }
    }

    /// Searches the current position and returns the answer, reporting to `listener` on
    /// the way. Only for searches that end by themselves: errors with
    /// [`GoError::Unbounded`] for `infinite`, `ponder`, or limits that have none of depth,
    /// nodes, soft nodes, mate or a clock with a time. When no search thread can be
    /// started, it searches on the caller's thread.
    pub fn go(
        &mut self,
        limits: Limits,
        listener: &mut (dyn Listener + Send),
    ) -> Result<SearchResult, GoError> {
        if limits.infinite || limits.ponder {
            return Err(GoError::Unbounded);
        }
        self.finish();
        let job = self.job(limits);
        if job.infinite {
            return Err(GoError::Unbounded);
        }
        if self.pool.is_none() {
            self.pool = Some(self.new_pool().map_err(|e| GoError::Thread(e.to_string()))?);
        }
        let Some(pool) = self.pool.as_mut() else {
            return Err(GoError::Thread("no search threads".into()));
        };
        pool.reset();
        let work = Mutex::new(Some((pool, &job, listener)));
        let run = |(pool, job, listener): (&mut Pool, &Job, &mut (dyn Listener + Send))| {
            threads::run(&mut pool.workers, &pool.shared, job, listener)
        };
        let spawned = std::thread::scope(|scope| match threads::spawn_search_scoped(scope, &work, run) {
            Ok(handle) => match handle.join() {
                Ok(Some(result)) => Ok(Some(result)),
                _ => Err(GoError::Thread("the search thread failed".into())),
            },
            Err(_) => Ok(None),
        })?;
        match spawned {
            Some(result) => Ok(result),
            None => match threads::take(&work) {
                Some((pool, job, listener)) => {
                    listener.note("cannot start the search thread; searching on the caller's thread");
                    Ok(threads::run(&mut pool.workers, &pool.shared, job, listener))
                }
                None => Err(GoError::Thread("the search thread failed".into())),
            },
        }
    }

    /// Stops a running search (its answer follows at once). Does nothing when none runs.
    pub fn stop(&self) {
        if let Some(Running::Thread {
            shared, pondering, ..
        }) = &self.running
        {
            shared.stop.store(true, Ordering::Relaxed);
            pondering.store(false, Ordering::Relaxed);
        }
    }

    /// The opponent played the expected move: a `ponder` search becomes a normal one, its
    /// clock starting now. Does nothing when no search runs. (The held answer of a ponder
    /// search that ran on the caller's thread, see the module notes, is given now.)
    pub fn ponderhit(&mut self) {
        match &self.running {
            Some(Running::Thread {
                pondering,
                ponderhit_at,
                start,
                ..
            }) => {
                if let Some(cell) = ponderhit_at {
                    cell.store(start.elapsed().as_millis() as u64, Ordering::Relaxed);
                }
                pondering.store(false, Ordering::Relaxed);
            }
            Some(Running::Held { .. }) => {
                self.wait();
            }
            None => {}
        }
    }

    /// Waits for a running search to end and returns its answer; `None` when none was
    /// running. Waits forever for an `infinite` search nobody stops.
    pub fn wait(&mut self) -> Option<SearchResult> {
        match self.running.take()? {
            Running::Thread { handle, .. } => match handle.join() {
                Ok(Some((pool, result))) => {
                    self.pool = Some(pool);
                    Some(result)
                }
                _ => {
                    // The workers went with the thread: made again at the next search.
                    self.pool = self.new_pool().ok();
                    None
                }
            },
            Running::Held { mut listener, result } => {
                listener.best_move(&result);
                Some(result)
            }
        }
    }

    /// Stops and waits for a running search.
    fn finish(&mut self) {
        self.stop();
        self.wait();
    }

    fn new_pool(&self) -> Result<Pool, TryReserveError> {
        Pool::try_new(self.options.threads, &self.net, &self.tt)
    }

    /// The workers (made afresh should a failed search have lost them).
    fn take_pool(&mut self) -> Result<Pool, GoError> {
        match self.pool.take() {
            Some(pool) => Ok(pool),
            None => self
                .new_pool()
                .map_err(|e| GoError::Thread(format!("cannot allocate the search threads' tables: {e}"))),
        }
    }

    /// The search job for `limits` on the current position, with the engine's options
    /// ([`Job::new`] resolves them).
    fn job(&mut self, limits: Limits) -> Job {
        let start = Instant::now();
        let board = self.board;
        let strength = self.options.limit_strength.then(|| {
            let limit = StrengthLimit::new(self.options.elo, self.options.strength_seed);
            (limit, limit.random_for(&board, &mut self.rng))
        });
        let settings = SearchSettings {
            multipv: self.options.multipv,
            move_overhead_ms: self.options.move_overhead_ms,
            use_soft_nodes: self.options.use_soft_nodes,
            show_wdl: self.options.show_wdl,
            strength,
            tables: self.search_tables(),
        };
        Job::new(board, self.history.clone(), &limits, settings, start)
    }

    /// The tables and the Syzygy options for a search, when tables are loaded.
    fn search_tables(&self) -> Option<SearchTables> {
        let tables = self.tablebases.as_ref()?;
        Some(SearchTables {
            tables: tables.clone(),
            cardinality: self.options.syzygy_probe_limit.min(tables.max_pieces()),
            probe_depth: self.options.syzygy_probe_depth,
            rule50: self.options.syzygy_50_move_rule,
        })
    }

    // What the options set (`crate::options`); the search is already stopped.

    /// Applies `value`, read by its option's kind, to what the option sets.
    fn apply(&mut self, setting: Setting, value: &OptionValue) -> Result<(), OptionError> {
        let options = &mut self.options;
        match setting {
            Setting::Hash => return self.resize_hash(value.int() as usize),
            Setting::Threads => return self.set_threads(value.int() as usize),
            Setting::EvalFile => return self.load_eval_file(value.text()),
            Setting::SyzygyPath => return self.load_syzygy(value.text()),
            Setting::ClearHash => self.tt.clear(),
            Setting::MultiPv => options.multipv = value.int() as usize,
            Setting::MoveOverhead => options.move_overhead_ms = value.int() as u64,
            Setting::Chess960 => options.chess960 = value.flag(),
            Setting::Ponder => options.ponder = value.flag(),
            Setting::ShowWdl => options.show_wdl = value.flag(),
            Setting::LimitStrength => options.limit_strength = value.flag(),
            Setting::Elo => options.elo = value.int() as i32,
            Setting::StrengthSeed => options.strength_seed = value.int() as u64,
            Setting::UseSoftNodes => options.use_soft_nodes = value.flag(),
            Setting::Minimal => options.minimal = value.flag(),
            Setting::SyzygyProbeDepth => options.syzygy_probe_depth = value.int() as i32,
            Setting::Syzygy50MoveRule => options.syzygy_50_move_rule = value.flag(),
            Setting::SyzygyProbeLimit => options.syzygy_probe_limit = value.int() as u32,
            #[cfg(feature = "tune")]
            Setting::Tunable(tunable) => tunable.set(value.int() as i32),
        }
        Ok(())
    }

    /// `Hash`: a new table of `mib` MiB (and threads over it); the old ones stay when they
    /// cannot be made.
    fn resize_hash(&mut self, mib: usize) -> Result<(), OptionError> {
        let refused = |error| OptionError::Hash {
            error,
            kept_mib: self.options.hash_mib,
        };
        let table = Arc::new(TranspositionTable::try_new(mib).map_err(refused)?);
        let pool = Pool::try_new(self.options.threads, &self.net, &table)
            .map_err(|_| refused(crate::tt::TtAllocError::AllocationFailed { mib }))?;
        self.options.hash_mib = mib;
        self.tt = table;
        self.pool = Some(pool);
        Ok(())
    }

    /// `Threads`: the old threads stay when the new ones' tables cannot be had.
    fn set_threads(&mut self, threads: usize) -> Result<(), OptionError> {
        let pool = Pool::try_new(threads, &self.net, &self.tt).map_err(|e| OptionError::Threads {
            threads,
            error: e.to_string(),
            kept: self.options.threads,
        })?;
        self.options.threads = threads;
        self.pool = Some(pool);
        Ok(())
    }

    /// `SyzygyPath`: [`NO_SYZYGY_PATH`] for no tables, else one or more directories
    /// separated by `:`. A path that does not load keeps the tables (and the value) there
    /// were; the tables of the old path are freed before the new ones load.
    fn load_syzygy(&mut self, path: &str) -> Result<(), OptionError> {
        if path == NO_SYZYGY_PATH {
            self.tablebases = None;
            self.options.syzygy_path = NO_SYZYGY_PATH.into();
            return Ok(());
        }
        // The same directories are shared at once; others need the old tables freed first
        // (the process holds one set), after the path has been checked.
        let tables = match Tablebases::open(path) {
            Ok(tables) => tables,
            Err(tablebase::TablebaseError::Busy { .. }) if self.tablebases.is_some() => {
                Tablebases::check(path).map_err(OptionError::SyzygyPath)?;
                let old = self.tablebases.take();
                let old_path = old.as_ref().map(|t| t.path().to_string());
                drop(old);
                match Tablebases::open(path) {
                    Ok(tables) => tables,
                    Err(error) => {
                        self.tablebases = old_path.and_then(|p| Tablebases::open(&p).ok());
                        return Err(OptionError::SyzygyPath(error));
                    }
                }
            }
            Err(error) => return Err(OptionError::SyzygyPath(error)),
        };
        self.tablebases = Some(tables);
        self.options.syzygy_path = path.to_string();
        Ok(())
    }

    /// `EvalFile`: [`EMBEDDED_NET_NAME`] (or `<default>`, or `default`) for the embedded
    /// net, else a net file; the old net stays when the file is refused.
    fn load_eval_file(&mut self, path: &str) -> Result<(), OptionError> {
        let net = if [EMBEDDED_NET_NAME, "<default>", "default"].contains(&path) {
            default_net()
        } else {
            Arc::new(
                Network::load(std::path::Path::new(path)).map_err(|error| OptionError::EvalFile {
                    path: path.to_string(),
                    error,
                })?,
            )
        };
        let pool = Pool::try_new(self.options.threads, &net, &self.tt).map_err(|e| OptionError::Threads {
            threads: self.options.threads,
            error: e.to_string(),
            kept: self.options.threads,
        })?;
        self.net = net;
        self.options.eval_file = path.to_string();
        self.pool = Some(pool);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{hard_nodes_for, Iteration, ScoreBound, SOFT_NODES_HARD_FACTOR};
    use crate::tt::MAX_HASH_MIB;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Collect {
        iterations: Vec<Iteration>,
        bounds: Vec<Iteration>,
        answers: Vec<SearchResult>,
    }

    impl Listener for Collect {
        fn iteration(&mut self, report: &Iteration) {
            self.iterations.push(report.clone());
        }
        fn bound(&mut self, report: &Iteration) {
            self.bounds.push(report.clone());
        }
        fn best_move(&mut self, result: &SearchResult) {
            self.answers.push(result.clone());
        }
    }

    fn depth(d: i32) -> Limits {
        Limits {
            depth: Some(d),
            ..Limits::default()
        }
    }

    #[test]
    fn go_reports_typed_iterations_and_answers_once() {
        let mut engine = Engine::new();
        let mut seen = Collect::default();
        let result = engine.go(depth(6), &mut seen).unwrap();
        assert_eq!(seen.answers, std::slice::from_ref(&result));
        assert_eq!(
            seen.iterations.iter().map(|i| i.depth).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5, 6]
        );
        let last = seen.iterations.last().unwrap();
        let best = result.best_move.unwrap();
        assert_eq!(last.lines[0].pv[0], best);
        assert_eq!(result.lines, last.lines);
        assert!(Board::startpos().is_legal(best));
        assert!(result.nodes > 100 && result.depth == 6 && result.score.is_some());
        assert!(last.lines[0].wdl.is_none() && last.lines[0].bound.is_none());
        // Every PV is a legal sequence.
        for it in &seen.iterations {
            let mut board = Board::startpos();
            for &mv in &it.lines[0].pv {
                assert!(board.is_legal(mv));
                board.play(mv);
            }
        }
    }

    #[test]
    fn use_soft_nodes_makes_a_node_limit_datagens_soft_budget() {
        // Searches from a fresh engine are deterministic on one thread: `nodes N` with
        // UseSoftNodes is exactly a soft budget of N with the hard cap of 8 N.
        let search = |use_soft: bool, limits: Limits| {
            let mut engine = Engine::new();
            if use_soft {
                engine.set_option("UseSoftNodes", Some("true")).unwrap();
            }
            let mut seen = Collect::default();
            let result = engine.go(limits, &mut seen).unwrap();
            let depths: Vec<(i32, u64)> = seen.iterations.iter().map(|i| (i.depth, i.nodes)).collect();
            (result.best_move, result.nodes, depths)
        };
        let nodes = |n: u64| Limits {
            nodes: Some(n),
            ..Limits::default()
        };
        assert_eq!(hard_nodes_for(3000), 3000 * SOFT_NODES_HARD_FACTOR);
        for n in [1500, 4000, 12_000] {
            let soft = search(true, nodes(n));
            let explicit = search(
                false,
                Limits {
                    nodes: Some(hard_nodes_for(n)),
                    soft_nodes: Some(n),
                    ..Limits::default()
                },
            );
            assert_eq!(soft, explicit, "{n}");
            // No iteration starts once half the budget, at its largest scale, is spent.
            let (_, total, depths) = &soft;
            let most = n as f64 * crate::TM_MAX_SCALE / crate::SOFT_NODES_MEAN_SCALE;
            assert!(
                depths[..depths.len() - 1]
                    .iter()
                    .all(|&(_, k)| 2.0 * (k as f64) < most),
                "{n}: {depths:?}"
            );
            assert!(*total <= hard_nodes_for(n));
            // Without the option the limit is hard, and exact.
            let (_, hard_total, hard) = search(false, nodes(n));
            assert!(hard.iter().all(|&(_, k)| k <= n), "{n}: {hard:?}");
            assert!(hard_total <= n, "{n}: {hard_total}");
        }
    }

    #[test]
    fn a_soft_node_budget_follows_the_search() {
        // The budget is scaled as the clock's soft limit is: over the first bench positions
        // some searches start no new iteration though less than half the budget is spent (a
        // clear best move), others start one past half of it (a contested one); the
        // unscaled rule did neither. And over the scale's mean the searches still average
        // about the budget.
        let n = 4000;
        let (mut stopped_early, mut went_on, mut total) = (0, 0, 0);
        for fen in crate::bench::BENCH_FENS
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(16)
        {
            let mut engine = Engine::new();
            engine.set_position(Board::from_fen(fen).unwrap(), &[]).unwrap();
            let mut seen = Collect::default();
            let limits = Limits {
                nodes: Some(hard_nodes_for(n)),
                soft_nodes: Some(n),
                ..Limits::default()
            };
            total += engine.go(limits, &mut seen).unwrap().nodes;
            let nodes: Vec<u64> = seen.iterations.iter().map(|i| i.nodes).collect();
            let last = *nodes.last().unwrap();
            if 2 * last < n && nodes.len() < crate::MAX_DEPTH as usize {
                stopped_early += 1;
            }
            if nodes[..nodes.len() - 1].iter().any(|&k| 2 * k >= n) {
                went_on += 1;
            }
        }
        assert!(stopped_early > 0 && went_on > 0, "{stopped_early} {went_on}");
        let mean = total / 16;
        assert!(
            (n * 3 / 5..=n * 3 / 2).contains(&mean),
            "{mean} nodes a search on average"
        );
    }

    #[test]
    fn a_node_limit_holds_across_threads_even_when_the_main_thread_is_starved() {
        // More threads than cores: the main thread is often not running, and the helpers
        // must stop at the limit themselves. The total may pass N by at most one node a
        // thread (each counts a node, then checks).
        let threads = 8;
        for n in [100u64, 2000, 30_000] {
            let mut engine = Engine::new();
            engine.set_option("Threads", Some(&threads.to_string())).unwrap();
            let mut seen = Collect::default();
            let limits = Limits {
                nodes: Some(n),
                ..Limits::default()
            };
            let result = engine.go(limits, &mut seen).unwrap();
            assert!(
                result.nodes <= n + threads as u64,
                "go nodes {n}: {} nodes",
                result.nodes
            );
            assert!(result.best_move.is_some_and(|m| Board::startpos().is_legal(m)));
        }
    }

    #[test]
    fn a_blocking_search_needs_a_limit() {
        let mut engine = Engine::new();
        for limits in [
            Limits::default(),
            Limits {
                infinite: true,
                ..depth(3)
            },
            Limits {
                ponder: true,
                ..depth(3)
            },
        ] {
            assert_eq!(engine.go(limits, &mut ()), Err(GoError::Unbounded));
        }
    }

    #[test]
    fn options_multipv_wdl_and_searchmoves_shape_the_reports() {
        let mut engine = Engine::new();
        engine.set_option("multipv", Some("3")).unwrap();
        engine.set_option("UCI_ShowWDL", Some("true")).unwrap();
        let mut seen = Collect::default();
        let result = engine.go(depth(4), &mut seen).unwrap();
        assert_eq!(result.lines.len(), 3);
        assert_eq!(
            result.lines.iter().map(|l| l.multipv).collect::<Vec<_>>(),
            [1, 2, 3]
        );
        assert!(result.lines.windows(2).all(|w| w[0].score >= w[1].score));
        for line in &result.lines {
            let wdl = line.wdl.unwrap();
            assert_eq!(wdl.iter().sum::<u32>(), 1000);
        }
        engine.set_option("MultiPV", Some("1")).unwrap();
        let board = Board::startpos();
        let a3 = board.parse_uci("a2a3").unwrap();
        let only = Limits {
            search_moves: vec![a3],
            ..depth(5)
        };
        assert_eq!(engine.go(only, &mut ()).unwrap().best_move, Some(a3));
        // No legal move among them: every move is searched.
        let mut after = board;
        after.play(board.parse_uci("e2e4").unwrap());
        let black_move = after.parse_uci("e7e5").unwrap();
        let illegal = Limits {
            search_moves: vec![black_move],
            ..depth(3)
        };
        assert!(engine.go(illegal, &mut ()).unwrap().best_move.is_some());
    }

    #[test]
    fn positions_without_moves_answer_none_with_a_depth_0_report() {
        let mut engine = Engine::new();
        engine.set_option("UCI_ShowWDL", Some("true")).unwrap();
        for (fen, mate, wdl) in [
            ("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", true, [0, 0, 1000]),
            ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", false, [0, 1000, 0]),
        ] {
            engine.set_position(Board::from_fen(fen).unwrap(), &[]).unwrap();
            let mut seen = Collect::default();
            let result = engine.go(depth(5), &mut seen).unwrap();
            assert_eq!(result.best_move, None);
            assert_eq!(result.score.unwrap().mate_in(), mate.then_some(0));
            assert_eq!(seen.iterations.len(), 1);
            assert_eq!(seen.iterations[0].depth, 0);
            assert_eq!(seen.iterations[0].lines[0].wdl, Some(wdl));
        }
    }

    #[test]
    fn set_position_plays_the_legal_prefix() {
        let mut engine = Engine::new();
        let board = Board::startpos();
        let e4 = board.parse_uci("e2e4").unwrap();
        let mut after = board;
        after.play(e4);
        let e5 = after.parse_uci("e7e5").unwrap();
        assert_eq!(
            engine.set_position(board, &[e4, e4, e5]),
            Err(IllegalMoveError { index: 1, mv: e4 })
        );
        assert_eq!(*engine.position(), after);
        assert_eq!(engine.history, [board.hash()]);
        engine.new_game();
        assert_eq!(*engine.position(), Board::startpos());
    }

    #[test]
    fn start_stop_and_ponderhit_control_the_answer() {
        let mut engine = Engine::new();
        let answers = Arc::new(Mutex::new(Vec::new()));
        struct Shared(Arc<Mutex<Vec<SearchResult>>>);
        impl Listener for Shared {
            fn best_move(&mut self, result: &SearchResult) {
                self.0.lock().unwrap().push(result.clone());
            }
        }
        // Infinite: no answer until stop, even after the depth limit ended the search.
        let infinite = Limits {
            infinite: true,
            ..depth(2)
        };
        engine.start(infinite, Box::new(Shared(answers.clone()))).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert!(answers.lock().unwrap().is_empty());
        engine.stop();
        let result = engine.wait().unwrap();
        assert_eq!(*answers.lock().unwrap(), [result]);
        assert_eq!(engine.wait(), None);
        // Ponder: the answer follows ponderhit once the search is done.
        let ponder = Limits {
            ponder: true,
            ..depth(2)
        };
        engine.start(ponder, Box::new(Shared(answers.clone()))).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert_eq!(answers.lock().unwrap().len(), 1);
        engine.ponderhit();
        assert!(engine.wait().unwrap().best_move.is_some());
        assert_eq!(answers.lock().unwrap().len(), 2);
        // Another call stops a running search first; dropping the engine stops it too.
        engine
            .start(Limits::default(), Box::new(Shared(answers.clone())))
            .unwrap();
        engine.new_game();
        assert_eq!(answers.lock().unwrap().len(), 3);
        engine.start(Limits::default(), Box::new(())).unwrap();
        drop(engine);
    }

    /// The last resort when no search thread can be started (`Engine::search_here`): the
    /// search runs on the caller's thread, says so first, and answers a legal move; an
    /// infinite or ponder one holds its answer for `stop` or `ponderhit`.
    #[test]
    fn without_a_search_thread_the_caller_searches_and_holds_an_unbounded_answer() {
        #[derive(Default)]
        struct Seen {
            notes: Vec<String>,
            answers: Vec<SearchResult>,
        }
        struct Record(Arc<Mutex<Seen>>);
        impl Listener for Record {
            fn note(&mut self, text: &str) {
                self.0.lock().unwrap().notes.push(text.to_string());
            }
            fn best_move(&mut self, result: &SearchResult) {
                self.0.lock().unwrap().answers.push(result.clone());
            }
        }
        let mut engine = Engine::new();
        let here = |engine: &mut Engine, limits: Limits, seen: &Arc<Mutex<Seen>>| {
            let job = engine.job(limits);
            let pool = engine.take_pool().unwrap();
            pool.reset();
            engine.search_here(pool, job, Box::new(Record(seen.clone())), "no threads today");
        };
        // Bounded: answered at once, after the note.
        let seen = Arc::new(Mutex::new(Seen::default()));
        here(&mut engine, depth(4), &seen);
        {
            let seen = seen.lock().unwrap();
            assert_eq!(
                seen.notes,
                ["cannot start the search thread (no threads today); searching on the engine's own thread"]
            );
            assert_eq!(seen.answers.len(), 1);
            assert_eq!(seen.answers[0].depth, 4);
            assert!(Board::startpos().is_legal(seen.answers[0].best_move.unwrap()));
        }
        assert!(engine.running.is_none() && engine.pool.is_some());
        // Infinite: cut to the held depth, answered at stop and not before.
        for ponder in [false, true] {
            let seen = Arc::new(Mutex::new(Seen::default()));
            let limits = Limits {
                infinite: !ponder,
                ponder,
                ..Limits::default()
            };
            here(&mut engine, limits, &seen);
            assert!(seen.lock().unwrap().answers.is_empty());
            if ponder {
                // `ponderhit` gives it (the search is over).
                engine.ponderhit();
                assert_eq!(engine.wait(), None, "given once");
            } else {
                // `stop`, then `wait` (as every front end does) gives it.
                engine.stop();
                assert!(engine.wait().is_some());
            }
            assert_eq!(seen.lock().unwrap().answers.len(), 1, "ponder {ponder}");
            let answer = seen.lock().unwrap().answers[0].clone();
            assert_eq!(answer.depth, HELD_SEARCH_DEPTH);
            assert!(Board::startpos().is_legal(answer.best_move.unwrap()));
        }
    }

    #[test]
    fn each_option_sets_its_own_value() {
        let mut engine = Engine::new();
        // Every option with a value of its own, each to a value no other field holds.
        let values = [
            ("Hash", "2"),
            ("Threads", "3"),
            ("MultiPV", "4"),
            ("Move Overhead", "55"),
            ("UCI_Chess960", "true"),
            ("Ponder", "true"),
            ("UCI_ShowWDL", "true"),
            ("UCI_LimitStrength", "true"),
            ("UCI_Elo", "1500"),
            ("Strength Seed", "7"),
            ("UseSoftNodes", "true"),
            ("Minimal", "true"),
            ("SyzygyProbeDepth", "6"),
            ("Syzygy50MoveRule", "false"),
            ("SyzygyProbeLimit", "5"),
        ];
        // The rest: the net, the tables (their own tests) and the `Clear Hash` button.
        assert_eq!(values.len() + 3, crate::OPTIONS.len());
        for (name, value) in values {
            assert_eq!(engine.set_option(name, Some(value)).unwrap().name, name);
        }
        assert_eq!(
            *engine.options(),
            Options {
                hash_mib: 2,
                threads: 3,
                multipv: 4,
                move_overhead_ms: 55,
                eval_file: EMBEDDED_NET_NAME.into(),
                chess960: true,
                ponder: true,
                show_wdl: true,
                limit_strength: true,
                elo: 1500,
                strength_seed: 7,
                use_soft_nodes: true,
                minimal: true,
                syzygy_path: NO_SYZYGY_PATH.into(),
                syzygy_probe_depth: 6,
                syzygy_50_move_rule: false,
                syzygy_probe_limit: 5,
            }
        );
        assert_eq!(engine.tt.slot_count(), 2 * 1024 * 1024 / 16);
        assert_eq!(engine.pool.as_ref().unwrap().workers.len(), 3);
    }

    #[test]
    fn option_values_are_checked_and_refusals_change_nothing() {
        let mut engine = Engine::new();
        for (name, value, error) in [
            (
                "Hash",
                Some("0"),
                "bad value \"0\" for Hash (integer from 1 to 1048576)",
            ),
            (
                "Threads",
                Some("x"),
                "bad value \"x\" for Threads (integer from 1 to 256)",
            ),
            (
                "Ponder",
                Some("yes"),
                "bad value \"yes\" for Ponder (true or false)",
            ),
            (
                "UCI_Chess960",
                None,
                "option \"UCI_Chess960\" needs a value (true or false)",
            ),
            (
                "Hash",
                None,
                "option \"Hash\" needs a value (integer from 1 to 1048576)",
            ),
            ("EvalFile", Some(" "), "option \"EvalFile\" needs a value (text)"),
            ("Contempt", Some("5"), "unknown option \"Contempt\""),
        ] {
            assert_eq!(engine.set_option(name, value).unwrap_err().to_string(), error);
        }
        assert!(matches!(
            engine.set_option("EvalFile", Some("/nonexistent/net.nnue")),
            Err(OptionError::EvalFile {
                error: nnue::NetError::Io(_),
                ..
            })
        ));
        // A file that is there but no net is named too, with the loader's reason.
        let readme = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        let refused = engine
            .set_option("EvalFile", Some(readme))
            .unwrap_err()
            .to_string();
        assert_eq!(
            refused,
            format!("EvalFile {readme}: {}", nnue::NetError::BadMagic)
        );
        assert_eq!(*engine.options(), Options::default());
        assert_eq!(engine.set_option("threads", Some("3")).unwrap().name, "Threads");
        engine.set_option("MultiPV", Some("4")).unwrap();
        assert_eq!((engine.options.threads, engine.options.multipv), (3, 4));
        assert_eq!(engine.pool.as_ref().unwrap().workers.len(), 3);
        let result = engine.go(depth(5), &mut ()).unwrap();
        assert_eq!(result.lines.len(), 4);
    }

    #[test]
    fn a_hash_that_cannot_be_allocated_keeps_the_old_table() {
        let mut engine = Engine::new();
        engine.set_option("Hash", Some("2")).unwrap();
        assert_eq!(engine.tt.slot_count(), 2 * 1024 * 1024 / 16);
        let old = Arc::as_ptr(&engine.tt);
        let error = engine
            .set_option("Hash", Some(&MAX_HASH_MIB.to_string()))
            .unwrap_err();
        assert!(
            matches!(error, OptionError::Hash { kept_mib: 2, .. }),
            "{error:?}"
        );
        let text = error.to_string();
        assert!(
            text.starts_with("hash of 1048576 MiB") && text.ends_with("; keeping the 2 MiB table"),
            "{text}"
        );
        assert_eq!(engine.options.hash_mib, 2);
        assert_eq!(Arc::as_ptr(&engine.tt), old, "the old table stays");
        assert!(Arc::ptr_eq(&engine.pool.as_ref().unwrap().shared.tt, &engine.tt));
    }

    #[test]
    fn fail_highs_and_lows_are_reported_with_their_bound() {
        // A position where the score swings between iterations (a tactic is found), at a
        // depth where aspiration windows are used.
        let mut engine = Engine::new();
        let mut bounds = 0;
        for fen in crate::bench::BENCH_FENS.lines().take(12) {
            engine
                .set_position(Board::from_fen(fen.trim()).unwrap(), &[])
                .unwrap();
            let mut seen = Collect::default();
            let result = engine.go(depth(11), &mut seen).unwrap();
            let mut first_at_depth = std::collections::HashSet::new();
            for report in &seen.bounds {
                bounds += 1;
                let line = &report.lines[0];
                assert!(line.bound.is_some() && !line.pv.is_empty());
                let mut board = Board::from_fen(fen.trim()).unwrap();
                for &mv in &line.pv {
                    assert!(board.is_legal(mv), "{fen}");
                    board.play(mv);
                }
                // The first failure of an iteration is outside the window around the
                // score of the iteration before: above it when high, below when low.
                if first_at_depth.insert(report.depth) {
                    let previous = seen.iterations.iter().find(|i| i.depth == report.depth - 1);
                    let before = previous.unwrap().lines[0].score;
                    match line.bound {
                        Some(ScoreBound::Lower) => assert!(line.score > before, "{fen}"),
                        Some(ScoreBound::Upper) => assert!(line.score < before, "{fen}"),
                        None => unreachable!(),
                    }
                }
            }
            // The answer is the first move of the last `multipv 1` line reported.
            let last = seen.iterations.last().unwrap();
            assert_eq!(Some(last.lines[0].pv[0]), result.best_move, "{fen}");
        }
        assert!(bounds > 0, "no fail high or low in twelve searches");
    }
}

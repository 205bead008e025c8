//! `engine`: Luft's search and evaluation. A multithreaded (Lazy SMP) alpha-beta search
//! with a shared lock-free transposition table, a staged move picker, the usual pruning and
//! reductions, and an NNUE evaluation updated incrementally on an accumulator stack; a UCI
//! front end, `bench`, `genfens`, and the `luft` binary (`src/main.rs`).
//!
//! The public surface is a facade; the search's parts (workers, accumulators, tables,
//! SIMD code paths) stay inside:
//!
//! - [`Engine`]: the engine as a front end drives it. It owns the net, the transposition
//!   table, the search threads and the stop flag: [`Engine::set_position`],
//!   [`Engine::start`] / [`Engine::go`] with a [`Listener`] that receives typed reports
//!   ([`Iteration`]: depth, score, bound, PV, WDL when on) and the [`SearchResult`],
//!   [`Engine::stop`], [`Engine::ponderhit`], [`Engine::new_game`], [`Engine::set_option`]
//!   by the option table [`OPTIONS`].
//! - [`Searcher`]: a one-thread, synchronous search that reuses its worker from call to
//!   call, for tools (bench, genfens, datagen).
//! - [`Evaluator`]: the engine's NNUE inference of one position.
//! - [`uci`]: the UCI front end, the only place that writes UCI text.
//! - [`wdl`] and [`strength`]: the win/draw/loss model and the strength limit.
//! - [`openings`]: the playability check of self-play openings (datagen and [`genfens`]
//!   draw from `movegen::openings::OpeningSource` through it).
//! - [`TUNABLES`]: the search's tunable constants with their ranges, and [`spsa_lines`],
//!   their list for OpenBench's SPSA tuner. Built with the `tune` feature
//!   ([`TUNE_BUILD`]), the engine offers each as a UCI spin option ([`all_options`]).
//!
//! Units: scores are centipawns from the side to move's view ([`Score`]), depths plies,
//! node counts nodes of all threads, times milliseconds ([`Clock`]) or [`std::time::Duration`].

#![warn(missing_docs)]

pub mod bench;
pub mod genfens;
pub mod openings;
pub mod strength;
pub mod uci;
pub mod wdl;

mod accumulator;
mod correction;
mod engine;
mod evaluator;
mod history;
mod memory;
mod move_picker;
mod options;
mod params;
mod report;
mod root_moves;
mod search;
mod searcher;
mod see;
mod syzygy;
mod threads;
mod time_manager;
mod tt;

pub use engine::{default_net, Engine, GoError, IllegalMoveError, DEFAULT_NET};
pub use evaluator::Evaluator;
pub use options::{
    all_options, OptionError, OptionKind, OptionSpec, OptionValue, Options, EMBEDDED_NET_NAME, MAX_SEED,
    NO_SYZYGY_PATH, OPTIONS,
};
pub use params::{spsa_lines, Tunable, MAX_DEPTH, SPSA_R_END, TUNABLES};
pub use report::{
    hard_nodes_for, Clock, Iteration, Limits, Line, Listener, Score, ScoreBound, SearchResult,
    SOFT_NODES_HARD_FACTOR,
};
pub use searcher::{SearchStopper, Searcher};
pub use time_manager::{search_scale, SOFT_NODES_MEAN_SCALE, TM_MAX_SCALE, TM_MIN_SCALE};

/// Whether this build has the `tune` feature: the search tunables are UCI options and
/// `luft spsa` prints them.
pub const TUNE_BUILD: bool = cfg!(feature = "tune");
pub use threads::{MIN_SEARCH_STACK_BYTES, SEARCH_STACK_BYTES};
pub use tt::{memory_limit_bytes, TtAllocError, MAX_HASH_MIB};

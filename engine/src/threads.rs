//! Lazy SMP: every thread runs its own iterative deepening on the same root, sharing only
//! the transposition table, the stop flag and per-thread node counters. Helpers start at
//! staggered depths; what they store in the table steers the main thread. The main thread
//! alone watches the clock and the node limit, reports `info` lines, and when it stops it
//! stops the helpers, waits for them, and reports the best move of the thread that
//! completed the deepest iteration (the main thread on ties). The `bestmove` is always the
//! first move of the last `pv` printed: when a helper's iteration wins, its `info` line is
//! printed before the `bestmove`. `go searchmoves` reaches the threads as the root moves
//! they must not search (`Limits::root_excluded`).

use crate::search::{is_mate, IterationReport, Limits, Shared, Worker, MATE};
use crate::time_manager::TimeManager;
use movegen::{Board, Move};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Stack size for search threads (the search recurses up to `MAX_PLY` with move lists
/// on the stack).
pub const SEARCH_STACK_BYTES: usize = 64 * 1024 * 1024;

/// Everything one `go` needs.
#[derive(Clone, Debug)]
pub struct Job {
    pub board: Board,
    /// Keys of the positions before `board` in the game (for repetitions).
    pub history: Vec<u64>,
    pub limits: Limits,
    pub time: Option<TimeManager>,
    /// `go infinite`: report `bestmove` only after `stop`.
    pub infinite: bool,
    /// `go ponder`: report `bestmove` only after `stop` or `ponderhit`.
    pub ponder: bool,
    /// Set while pondering; cleared by `ponderhit`.
    pub pondering: Arc<AtomicBool>,
    pub chess960: bool,
    pub start: Instant,
    /// `UCI_ShowWDL`: `info` lines carry `wdl W D L` after the score.
    pub show_wdl: bool,
}

/// Formats a score for UCI: `cp N` or `mate N` (moves, negative when being mated).
pub fn uci_score(score: i32) -> String {
    if is_mate(score) {
        let moves = if score > 0 {
            (MATE - score + 1) / 2
        } else {
            -(MATE + score) / 2
        };
        format!("mate {moves}")
    } else {
        format!("cp {score}")
    }
}

/// The `info` lines of one iteration's report (one per PV line), for `job`'s root.
pub fn info_lines(report: &IterationReport, shared: &Shared, job: &Job) -> Vec<String> {
    let (board, start, chess960) = (&job.board, job.start, job.chess960);
    let nodes = shared.total_nodes();
    let elapsed = start.elapsed();
    let nps = (nodes as f64 / elapsed.as_secs_f64().max(1e-3)) as u64;
    let hashfull = shared.tt.hashfull();
    report
        .lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let mut pv_board = *board;
            let mut pv = String::new();
            for &mv in &line.pv {
                if !pv_board.is_legal(mv) {
                    break;
                }
                pv.push(' ');
                pv.push_str(&pv_board.to_uci(mv, chess960));
                pv_board.play(mv);
            }
            let wdl = if job.show_wdl {
                format!(" {}", crate::wdl::uci_wdl(line.score, board))
            } else {
                String::new()
            };
            format!(
                "info depth {} seldepth {} multipv {} score {}{wdl} nodes {} nps {} hashfull {} time {} pv{}",
                report.depth,
                report.seldepth,
                i + 1,
                uci_score(line.score),
                nodes,
                nps,
                hashfull,
                elapsed.as_millis(),
                pv
            )
        })
        .collect()
}

/// Runs one search on `workers` (the first is the main thread), printing `info` lines and
/// the final `bestmove` through `out`. Returns the best move (`Move::NULL` with no legal
/// move).
pub fn run(workers: &mut [Worker], shared: &Arc<Shared>, job: &Job, out: &(dyn Fn(&str) + Sync)) -> Move {
    shared.tt.new_search();
    let board = job.board;
    let legal = board.legal_moves();
    if legal.is_empty() {
        // Checkmated or stalemated: report the score, then the null move.
        let (score, wdl) = if board.in_check() {
            ("mate 0", "wdl 0 0 1000")
        } else {
            ("cp 0", "wdl 0 1000 0")
        };
        if job.show_wdl {
            out(&format!("info depth 0 score {score} {wdl}"));
        } else {
            out(&format!("info depth 0 score {score}"));
        }
        wait_until_released(shared, job);
        out("bestmove 0000");
        return Move::NULL;
    }

    // The root moves this search may play (`go searchmoves` excludes the others).
    let allowed: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|m| !job.limits.root_excluded.contains(m))
        .collect();
    let Some(&first_allowed) = allowed.first() else {
        // Nothing left to search (the UCI front end keeps this from happening).
        out("info string error: searchmoves excludes every legal move");
        wait_until_released(shared, job);
        out(&format!("bestmove {}", board.to_uci(legal[0], job.chess960)));
        return legal[0];
    };
    // The first move of the `multipv 1` line printed last.
    let last_printed: Mutex<Option<Move>> = Mutex::new(None);

    let (main, helpers) = workers.split_first_mut().expect("at least one worker");
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for helper in helpers.iter_mut() {
            let builder = std::thread::Builder::new().stack_size(SEARCH_STACK_BYTES);
            let handle = builder
                .spawn_scoped(scope, move || {
                    helper.search(&board, &job.history, job.limits.clone(), None, |_, _| {});
                })
                .expect("spawn a search thread");
            handles.push(handle);
        }
        main.search(
            &board,
            &job.history,
            job.limits.clone(),
            job.time.clone(),
            |worker, report| {
                for line in info_lines(report, &worker.shared, job) {
                    out(&line);
                }
                if let Ok(mut last) = last_printed.lock() {
                    *last = report.lines.first().and_then(|l| l.pv.first().copied());
                }
            },
        );
        wait_until_released(shared, job);
        shared.stop.store(true, Ordering::Relaxed);
        for handle in handles {
            let _ = handle.join();
        }
    });

    // The deepest completed iteration wins; the main thread on ties.
    let best_worker = workers
        .iter()
        .enumerate()
        .filter(|(_, w)| !w.completed.lines.is_empty())
        .max_by_key(|(i, w)| (w.completed.depth, usize::from(*i == 0)));
    let from_helper = best_worker.is_some_and(|(i, _)| i != 0);
    let best_worker = best_worker.map(|(_, w)| w);
    let line = best_worker.and_then(|w| w.completed.lines.first());
    let best = line
        .and_then(|l| l.pv.first().copied())
        .filter(|m| allowed.contains(m));
    let best = best.unwrap_or(first_allowed);
    // The GUI takes the last `pv` as the line behind the `bestmove` (and its ponder move):
    // when the move comes from a helper's iteration (or from no iteration), print that line.
    let printed = last_printed.lock().ok().and_then(|last| *last);
    if from_helper || printed != Some(best) {
        let mut report = best_worker.map(|w| w.completed.clone()).unwrap_or_default();
        if report.lines.first().and_then(|l| l.pv.first()) != Some(&best) {
            // No iteration stands behind this move: report it alone.
            report.lines = vec![crate::search::PvLine {
                score: 0,
                pv: vec![best],
                bound: None,
            }];
        }
        for text in info_lines(&report, shared, job) {
            out(&text);
        }
    }
    let mut text = format!("bestmove {}", board.to_uci(best, job.chess960));
    let ponder = line
        .filter(|l| l.pv.first() == Some(&best))
        .and_then(|l| l.pv.get(1));
    if let Some(&ponder) = ponder {
        let mut next = board;
        next.play(best);
        if next.is_legal(ponder) {
            text.push_str(&format!(" ponder {}", next.to_uci(ponder, job.chess960)));
        }
    }
    out(&text);
    best
}

/// With `go infinite` the answer waits for `stop`; with `go ponder` for `stop` or
/// `ponderhit` (a ponder search that already finished then answers at once).
fn wait_until_released(shared: &Shared, job: &Job) {
    wait_for_release(&shared.stop, job.infinite, job.ponder, &job.pondering);
}

/// Waits as [`run`] does before its `bestmove`: for `stop` (`infinite`), or for `stop` or
/// the end of `pondering` (`ponder`); returns at once otherwise.
pub fn wait_for_release(stop: &AtomicBool, infinite: bool, ponder: bool, pondering: &AtomicBool) {
    if !infinite && !ponder {
        return;
    }
    while !stop.load(Ordering::Relaxed) {
        if ponder && !pondering.load(Ordering::Relaxed) {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

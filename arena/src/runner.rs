//! The tournament: a schedule of encounters (two engines, one opening, one or two games
//! with colours reversed), as fastchess builds it — round by round, each pairing of the
//! round robin (every engine against every other) or gauntlet (the first `-seeds` engines
//! against everyone after them) in order, each encounter with the next opening — spread
//! over `-concurrency` worker threads, each with its own engine processes. Game `N` and
//! `N+1` of an encounter are numbered consecutively with the first engine White in the
//! first (unless `-noswap` / `-reverse`), so OpenBench's pairing of game numbers holds.
//!
//! A worker that finishes a game does the bookkeeping under one lock before it starts its
//! next game: `Finished game N` is printed, the PGN and EPD written, the trinomial count
//! (and, once both games of the encounter have ended, the pentanomial count) updated, the
//! report printed every `-ratinginterval` pairs, the SPRT checked, and the state saved every
//! `-autosaveinterval` games; so with `-concurrency 1` each `Finished game N` comes before
//! `Started game N+1`. Faults restart the faulty engine with `-recover` and stop the match
//! with an error otherwise; with `-strict` a warning does too. Ctrl-C stops the match
//! between moves and prints the report so far (and saves the state for `-config file=`
//! when saving is on).
//!
//! The end, as fastchess ends: the report once (not repeated when the last pair already
//! printed it at its interval), `SPRT ([elo0, elo1]) completed - H0|H1 was accepted` when
//! the test decided and no SPRT line when the rounds ran out first, then (from `main`)
//! `Finished match` and `Total Time`; exit code 0 (see [`MatchEnd::exit_code`]).
//!
//! On a terminal, a progress bar on stderr (`progress`) counts the finished games; the
//! lines on stdout are printed around it. With `-sprt-plot FILE`, each SPRT check also
//! records the LLR and the Elo estimate, drawn into FILE when the match ends
//! (`sprt_plot`).

use crate::cli::{MatchConfig, TournamentKind};
use crate::engine_process::{EngineProcess, ProcessSetup};
use crate::log::{self, Level, LogError};
use crate::openings::{self, BookError};
use crate::pgn_out::{self, GameTags};
use crate::play::{play_game, FinishedGame, GameResult, GameSettings, Opening};
use crate::progress::Progress;
use crate::rating::{self, FitOptions, GameRecord};
use crate::report::{self, MatchLabel, RULE};
use crate::sprt_plot::{self, SprtPlot, SprtPoint};
use matchcore::sprt::{sprt_llr, Verdict};
use matchcore::state::{self, SavedState, StateFileError};
use matchcore::stats::sprt_bounds;
use matchcore::tally::{estimate, Tally};
use matchcore::termination::Termination;
use movegen::{Board, Color};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Why a match could not start, or stopped with an error. The messages are arena's last
/// words after `arena: error: `.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// An output (state, plot, PGN, EPD, log) that is the openings book.
    #[error(transparent)]
    BookAsOutput(std::io::Error),
    /// Two outputs that are one file: the state saved over the PGN would replace its games.
    #[error("{first} and {second} are one file ({path}): give each output a file of its own")]
    SharedOutput {
        /// The first output's option.
        first: &'static str,
        /// The second's.
        second: &'static str,
        /// The file, as the first names it.
        path: String,
    },
    /// The log file cannot be opened.
    #[error(transparent)]
    Log(#[from] LogError),
    /// The openings file cannot be read.
    #[error(transparent)]
    Book(#[from] BookError),
    /// The openings file holds no book.
    #[error("openings {file}: {source}")]
    Openings {
        /// The book's file.
        file: String,
        /// Why.
        source: BookError,
    },
    /// The tables of `-tb` do not load.
    #[error("-tb {path}: {source}")]
    Tablebases {
        /// The `-tb` path.
        path: String,
        /// Why.
        source: tablebase::TablebaseError,
    },
    /// No engines to pair, no rounds, or games that are not one or two a pairing.
    #[error("a tournament needs two engines and at least one round of one or two games")]
    Empty,
    /// The PGN or EPD output cannot be opened.
    #[error("cannot open {what} output {path}: {source}")]
    OpenOutput {
        /// `PGN` or `EPD`.
        what: &'static str,
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A saved state whose counts name engines the match does not have.
    #[error("the saved state names engines the tournament does not have")]
    StateEngines,
    /// A saved state's finished game (1-based) whose engines are not its encounter's.
    #[error("the saved state's game {0} names engines its pairing does not have")]
    StatePairing(u64),
    /// The length of an output of a resumed match cannot be read.
    #[error("cannot read the {what} output: {source}")]
    ReadOutput {
        /// `PGN` or `EPD`.
        what: &'static str,
        /// Why.
        source: std::io::Error,
    },
    /// An output of a resumed match cannot be cut back to what the state counts.
    #[error("cannot cut the {what} output back to the saved state: {source}")]
    CutOutput {
        /// `PGN` or `EPD`.
        what: &'static str,
        /// Why.
        source: std::io::Error,
    },
    /// An output of a resumed match shorter than the state counts.
    #[error(
        "the {what} output holds {now} bytes, fewer than the {saved} the saved state counts: it was changed since \
         the state was saved (resume with the file as it was, or start again)"
    )]
    OutputShrunk {
        /// `PGN` or `EPD`.
        what: &'static str,
        /// Its length now, in bytes.
        now: u64,
        /// The length the state counts.
        saved: u64,
    },
    /// The length of a new match's output cannot be read.
    #[error("cannot read an output's length: {0}")]
    OutputLength(std::io::Error),
    /// The state cannot be saved before the first game; `note` says what that leaves.
    #[error("{source}{note}")]
    FirstSave {
        /// Why.
        source: SaveError,
        /// What can be resumed.
        note: String,
    },
    /// What stopped the match: an engine's fault without `-recover`, an output that
    /// cannot be written, a warning under `-strict`, ...
    #[error("{0}")]
    Stopped(String),
    /// What stopped the match, and (on the next line) what its state file holds and how to
    /// resume it: a match saved to a state file whose test had not decided.
    #[error("{why}\n{resume}")]
    StoppedResumable {
        /// What stopped it.
        why: String,
        /// What can be resumed, and how.
        resume: String,
    },
}

/// The tournament state cannot be saved.
#[derive(Debug, thiserror::Error)]
#[error("cannot save the tournament state: {0}")]
pub struct SaveError(#[from] StateFileError);

/// How a tournament ended (the process exit code follows it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchEnd {
    /// The SPRT accepted H1 or H0, or ran out of games ([`Verdict::Undecided`]).
    Sprt(Verdict),
    /// Every game played, no SPRT.
    Finished,
    /// Stopped by Ctrl-C.
    Interrupted,
}

impl MatchEnd {
    /// The process exit code. As fastchess, 0 after every match that ended by itself
    /// (played out, or stopped by its SPRT whatever it accepted); with `sprt_codes`
    /// (`-sprt-exit-codes`, for scripts that branch on the outcome) 0 H1 accepted or a
    /// match without an SPRT played out, 1 H0 accepted, 2 no decision. Ctrl-C is 2 either
    /// way (fastchess exits non-zero too).
    pub fn exit_code(self, sprt_codes: bool) -> u8 {
        match self {
            MatchEnd::Interrupted => 2,
            _ if !sprt_codes => 0,
            MatchEnd::Sprt(Verdict::H1) | MatchEnd::Finished => 0,
            MatchEnd::Sprt(Verdict::H0) => 1,
            MatchEnd::Sprt(Verdict::Undecided) => 2,
        }
    }
}

/// One game to play.
#[derive(Clone, Debug)]
struct GameJob {
    /// 1-based game number.
    number: u64,
    encounter: u64,
    round: u64,
    /// The pairing's engines, in schedule order.
    first: usize,
    second: usize,
    first_is_white: bool,
    opening: Opening,
}

/// The pairings of one round: (first, second) engine indices.
pub fn pairings(kind: TournamentKind, engines: usize, seeds: usize) -> Vec<(usize, usize)> {
    let limit = match kind {
        TournamentKind::RoundRobin => engines.saturating_sub(1),
        TournamentKind::Gauntlet => seeds.min(engines.saturating_sub(1)),
    };
    let mut out = Vec::new();
    for first in 0..limit {
        for second in first + 1..engines {
            out.push((first, second));
        }
    }
    out
}

/// Per pair of engines (first < second), the counts from the first's side.
type Tallies = BTreeMap<(usize, usize), Tally>;

/// Everything the workers share, under one lock.
struct Shared {
    next_game: u64,
    stop: bool,
    /// The SPRT's decision once an LLR bound is crossed (H0 or H1).
    verdict: Option<Verdict>,
    error: Option<String>,
    /// Counts of every finished game (pairs once complete).
    live: Tallies,
    /// Counts of done encounters only (what a saved state holds).
    done_tallies: Tallies,
    done: BTreeSet<u64>,
    /// Finished games of unfinished encounters, per encounter: (game index, white, black,
    /// White's half-points).
    pending: HashMap<u64, Vec<(u64, usize, usize, u8)>>,
    /// Every finished game, for the joint rating.
    records: Vec<(usize, usize, u8)>,
    done_records: Vec<(usize, usize, u8)>,
    encounters_since_report: u64,
    /// Games finished in this run, and how many had when the last report was printed: the
    /// final report is not printed again when no game has finished since an interval one.
    finished_games: u64,
    reported_at: Option<u64>,
    pgn: Option<std::fs::File>,
    epd: Option<std::fs::File>,
    /// Lengths of the PGN and EPD outputs after the last game written to them.
    pgn_bytes: u64,
    epd_bytes: u64,
    /// Finished games the last successfully saved state counts (None: none saved yet).
    saved_games: Option<u64>,
    /// Why the last save failed, when it did.
    save_error: Option<String>,
    /// Per engine, (Threads, Hash) as the report names them, once known.
    labels: Vec<Option<(String, String)>>,
    /// The SPRT after each check, for `-sprt-plot`.
    trajectory: Vec<SprtPoint>,
}

/// The fixed facts of a run.
struct Plan {
    config: MatchConfig,
    pairings: Vec<(usize, usize)>,
    book: Vec<Opening>,
    book_name: Option<String>,
    total_games: u64,
    skip: Option<SavedState>,
    /// Game indices of the saved state's half-played encounters that already finished.
    skip_games: BTreeSet<u64>,
    progress: Progress,
    /// The tables of `-tb`, loaded once.
    tables: Option<Arc<tablebase::Tablebases>>,
}

impl Plan {
    fn job(&self, index: u64) -> GameJob {
        let games = self.config.games;
        let encounter = index / games;
        let within = index % games;
        let per_round = self.pairings.len() as u64;
        let (first, second) = self.pairings[(encounter % per_round) as usize];
        let first_is_white = (within.is_multiple_of(2) || self.config.noswap) != self.config.reverse;
        GameJob {
            number: index + 1,
            encounter,
            round: encounter / per_round,
            first,
            second,
            first_is_white,
            opening: self.book[(encounter % self.book.len() as u64) as usize].clone(),
        }
    }

    fn names(&self, i: usize) -> &str {
        &self.config.engines[i].config.name
    }

    fn label(&self, shared: &Shared, a: usize, b: usize) -> MatchLabel {
        let known = |i: usize| shared.labels[i].clone().unwrap_or(("NULL".into(), "NULL".into()));
        let (ta, ha) = known(a);
        let (tb, hb) = known(b);
        MatchLabel {
            limits: [
                self.config.engines[a].limits.describe(),
                self.config.engines[b].limits.describe(),
            ],
            threads: [ta, tb],
            hash: [ha, hb],
            book: self.book_name.clone(),
        }
    }

    /// The report block(s), without the rules.
    fn report(&self, shared: &Shared) -> String {
        let sprt = self.config.sprt.as_ref();
        let penta = self.config.report_penta && self.config.games == 2;
        if self.config.engines.len() == 2 {
            let tally = shared.live.get(&(0, 1)).cloned().unwrap_or_default();
            return report::pair_block(
                &tally,
                (self.names(0), self.names(1)),
                &self.label(shared, 0, 1),
                penta,
                sprt,
            );
        }
        let mut out = String::new();
        let games: Vec<GameRecord> = shared
            .records
            .iter()
            .map(|&(w, b, p)| GameRecord {
                white: self.names(w).to_string(),
                black: self.names(b).to_string(),
                white_points: f64::from(p) / 2.0,
            })
            .collect();
        match rating::fit(&games, &FitOptions::default()) {
            Ok(ratings) => out.push_str(&report::engine_table(&ratings)),
            Err(e) => out.push_str(&format!("(no joint rating yet: {e})\n")),
        }
        for (&(a, b), tally) in &shared.live {
            if tally.games() > 0 {
                out.push('\n');
                out.push_str(&report::pair_block(
                    tally,
                    (self.names(a), self.names(b)),
                    &self.label(shared, a, b),
                    penta,
                    None,
                ));
            }
        }
        out
    }

    fn saved_state(&self, shared: &Shared) -> SavedState {
        let mut pending: Vec<(u64, usize, usize, u8)> = shared.pending.values().flatten().copied().collect();
        pending.sort_unstable();
        SavedState {
            pending,
            pgn_bytes: shared.pgn.as_ref().map(|_| shared.pgn_bytes),
            epd_bytes: shared.epd.as_ref().map(|_| shared.epd_bytes),
            args: self.config.args.clone(),
            done: state::ranges(shared.done.iter().copied()),
            pairs: shared
                .done_tallies
                .iter()
                .map(|(&(a, b), t)| (a, b, t.clone()))
                .collect(),
            games: if self.config.engines.len() > 2 {
                shared.done_records.clone()
            } else {
                Vec::new()
            },
            labels: shared.labels.clone(),
        }
    }

    /// Saves the state (when there is a state file); a failure is recorded in `shared` and
    /// returned.
    fn save(&self, shared: &mut Shared) -> Result<(), SaveError> {
        let Some(path) = &self.config.state_file else {
            return Ok(());
        };
        let state = self.saved_state(shared);
        match state::save(path, &state) {
            Ok(()) => {
                let done: u64 = shared.done_tallies.values().map(Tally::games).sum();
                shared.saved_games = Some(done + state.pending.len() as u64);
                shared.save_error = None;
                Ok(())
            }
            Err(e) => {
                let e = SaveError(e);
                shared.save_error = Some(e.to_string());
                Err(e)
            }
        }
    }

    /// What can be resumed, for the last words of an interrupted or failed run.
    fn resume_note(&self, shared: &Shared) -> String {
        let Some(path) = &self.config.state_file else {
            return "No state file was asked for (-config outname=F): it cannot be resumed.".into();
        };
        match (shared.saved_games, &shared.save_error) {
            (Some(n), None) => format!(
                "To resume it, run: arena -config file={path} (the saved state counts {n} finished games; the others are played)"
            ),
            (Some(n), Some(e)) => format!(
                "{e}. The last state saved in {path} counts {n} finished games: to resume from there, run: arena -config file={path}"
            ),
            (None, Some(e)) => format!("{e}. No state was saved: nothing can be resumed."),
            (None, None) => "No state was saved: nothing can be resumed.".into(),
        }
    }
}

/// Everything a finished game updates, under the lock.
fn finish_game(plan: &Plan, shared: &mut Shared, job: &GameJob, finished: &FinishedGame) {
    let config = &plan.config;
    if finished.termination == Termination::Unterminated {
        return;
    }
    let (white, black) = if job.first_is_white {
        (job.first, job.second)
    } else {
        (job.second, job.first)
    };
    // The outputs first: a game is counted only once it is in the PGN and the EPD output
    // whole. A failed write is cut back off (no torn text before the next game's tags), the
    // game is not counted (a resume plays it again) and the match stops.
    let tags = GameTags {
        event: config.event.clone(),
        site: config.site.clone(),
        round: job.round + 1,
    };
    let (pgn_before, epd_before) = (shared.pgn_bytes, shared.epd_bytes);
    if let (Some(file), Some(out)) = (shared.pgn.as_mut(), config.pgnout.as_ref()) {
        let text = pgn_out::write_game(finished, &tags, &out.options);
        match file.write_all(text.as_bytes()).and_then(|_| file.flush()) {
            Ok(()) => shared.pgn_bytes += text.len() as u64,
            Err(e) => {
                let _ = file.set_len(pgn_before);
                shared.error.get_or_insert(format!(
                    "cannot write PGN {}: {e} (game {} is not counted)",
                    out.file, job.number
                ));
                shared.stop = true;
                return;
            }
        }
    }
    if let (Some(file), Some(out)) = (shared.epd.as_mut(), config.epdout.as_ref()) {
        let text = pgn_out::write_epd(finished);
        match file.write_all(text.as_bytes()).and_then(|_| file.flush()) {
            Ok(()) => shared.epd_bytes += text.len() as u64,
            Err(e) => {
                let _ = file.set_len(epd_before);
                if let Some(pgn) = shared.pgn.as_mut() {
                    let _ = pgn.set_len(pgn_before);
                    shared.pgn_bytes = pgn_before;
                }
                shared.error.get_or_insert(format!(
                    "cannot write EPD {}: {e} (game {} is not counted)",
                    out.file, job.number
                ));
                shared.stop = true;
                return;
            }
        }
    }
    shared.finished_games += 1;
    plan.progress.say(&format!(
        "Finished game {} ({} vs {}): {} {{{}}}",
        job.number,
        plan.names(white),
        plan.names(black),
        finished.result.pgn(),
        finished.reason
    ));
    log::message(
        Level::Info,
        &format!(
            "game {} ended {} {{{}}}",
            job.number,
            finished.result.pgn(),
            finished.reason
        ),
    );
    if finished.faulted.is_some() && !config.recover {
        shared.error.get_or_insert(format!(
            "{} in game {} ({} vs {}) (use -recover to restart faulty engines and go on)",
            finished.reason,
            job.number,
            plan.names(white),
            plan.names(black)
        ));
        shared.stop = true;
    }

    let white_half = match finished.result {
        GameResult::WhiteWins => 2,
        GameResult::Draw => 1,
        GameResult::BlackWins => 0,
    };
    let first_half = if job.first_is_white {
        white_half
    } else {
        2 - white_half
    };
    let key = (job.first, job.second);
    shared.live.entry(key).or_default().add_game(first_half);
    shared.records.push((white, black, white_half));
    let list = shared.pending.entry(job.encounter).or_default();
    list.push((job.number - 1, white, black, white_half));
    if list.len() as u64 == config.games {
        let mut games = shared.pending.remove(&job.encounter).unwrap_or_default();
        games.sort_unstable();
        let halves: Vec<u8> = games
            .iter()
            .map(|&(_, w, _, p)| if w == job.first { p } else { 2 - p })
            .collect();
        let done = shared.done_tallies.entry(key).or_default();
        for &h in &halves {
            done.add_game(h);
        }
        if let [a, b] = halves[..] {
            done.add_pair(a, b);
            shared.live.entry(key).or_default().add_pair(a, b);
        }
        shared
            .done_records
            .extend(games.iter().map(|&(_, w, b, p)| (w, b, p)));
        shared.done.insert(job.encounter);
        shared.encounters_since_report += 1;
        // The SPRT is checked once a pair (or, with -games 1, a game) is complete.
        if let Some(sprt) = &config.sprt {
            if shared.verdict.is_none() {
                let tally = shared.live.get(&(0, 1)).cloned().unwrap_or_default();
                let penta = config.report_penta && config.games == 2;
                let value = sprt_llr(&tally, sprt, penta);
                let (lower, upper) = sprt_bounds(sprt.alpha, sprt.beta);
                if config.sprt_plot.is_some() {
                    let e = estimate(&tally, penta && tally.pairs() > 0);
                    shared.trajectory.push(SprtPoint {
                        games: tally.games(),
                        llr: value,
                        elo: e.elo,
                        elo_error: e.elo_error,
                    });
                }
                shared.verdict = Verdict::of_llr(value, (lower, upper));
                if shared.verdict.is_some() {
                    shared.stop = true;
                }
            }
        }
        if config.rating_interval > 0 && shared.encounters_since_report >= config.rating_interval {
            shared.encounters_since_report = 0;
            shared.reported_at = Some(shared.finished_games);
            plan.progress
                .say(&format!("{RULE}\n{}{RULE}", plan.report(shared)));
        }
    }
    if plan.progress.is_shown() {
        plan.progress.game_finished(progress_summary(plan, shared));
    }
    if config.strict {
        if let Some(w) = log::first_warning() {
            shared
                .error
                .get_or_insert(format!("-strict: a warning stops the match: {w}"));
            shared.stop = true;
        }
    }
    // The state after every game, right after the game was written: what it counts and
    // what the outputs hold agree after any stop.
    if let Err(e) = plan.save(shared) {
        shared.error.get_or_insert(e.to_string());
        shared.stop = true;
    }
}

/// The score so far, for the progress bar: Elo (and the LLR of an SPRT) of a two-engine
/// match; W/D/L of the first engine otherwise.
fn progress_summary(plan: &Plan, shared: &Shared) -> String {
    let config = &plan.config;
    let Some(tally) = shared.live.get(&(0, 1)).filter(|_| config.engines.len() == 2) else {
        return format!("{} finished", output::count(shared.records.len() as u64, "game"));
    };
    let penta = config.report_penta && config.games == 2 && tally.pairs() > 0;
    let e = estimate(tally, penta);
    let mut text = format!(
        "{} vs {}: Elo {} +/- {}",
        plan.names(0),
        plan.names(1),
        report::num(e.elo, 1),
        report::num(e.elo_error, 1)
    );
    if let Some(sprt) = &config.sprt {
        let (lower, upper) = sprt_bounds(sprt.alpha, sprt.beta);
        let llr = sprt_llr(tally, sprt, config.report_penta && config.games == 2);
        text.push_str(&format!(", LLR {llr:.2} ({lower:.2}, {upper:.2})"));
    }
    text
}

/// What the report names as an engine's Threads and Hash.
fn label_of(engine: &EngineProcess) -> (String, String) {
    (
        engine
            .option_value("Threads")
            .map_or("NULL".into(), |v| format!("{v}t")),
        engine
            .option_value("Hash")
            .map_or("NULL".into(), |v| format!("{v}MB")),
    )
}

/// The CPUs of worker `w`: `threads` of them from the list, in turn.
pub(crate) fn worker_cpus(list: &[usize], w: usize, threads: usize) -> Vec<usize> {
    if list.is_empty() {
        return Vec::new();
    }
    (0..threads)
        .map(|i| list[(w * threads + i) % list.len()])
        .collect()
}

fn worker(plan: &Plan, shared: &Mutex<Shared>, interrupted: &AtomicBool, w: usize) {
    let config = &plan.config;
    let cpus = config.affinity.as_ref().map(|list| {
        let all: Vec<usize> = if list.is_empty() {
            (0..std::thread::available_parallelism().map_or(1, |n| n.get())).collect()
        } else {
            list.clone()
        };
        let threads = config
            .engines
            .iter()
            .filter_map(|e| {
                e.config
                    .options
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case("Threads"))
                    .and_then(|(_, v)| v.parse::<usize>().ok())
            })
            .max()
            .unwrap_or(1)
            .max(1);
        worker_cpus(&all, w, threads)
    });
    let setup = ProcessSetup {
        startup_ms: config.startup_ms,
        ucinewgame_ms: config.ucinewgame_ms,
        ping_ms: config.ping_ms,
        cpus: cpus.unwrap_or_default(),
        worker: format!("w{}", w + 1),
    };
    let lock = || shared.lock().unwrap_or_else(|e| e.into_inner());
    let mut procs: HashMap<usize, EngineProcess> = HashMap::new();
    loop {
        // Take the next game not already played.
        let job = {
            let mut s = lock();
            let mut found = None;
            while !s.stop && !interrupted.load(Ordering::Relaxed) && s.next_game < plan.total_games {
                let index = s.next_game;
                s.next_game += 1;
                let encounter = index / config.games;
                if plan.skip.as_ref().is_some_and(|st| st.is_done(encounter))
                    || plan.skip_games.contains(&index)
                {
                    continue;
                }
                found = Some(plan.job(index));
                break;
            }
            found
        };
        let Some(job) = job else { break };
        // The engines of this game, started if need be; others are let go.
        let idle: Vec<usize> = procs
            .keys()
            .copied()
            .filter(|&i| i != job.first && i != job.second)
            .collect();
        for i in idle {
            if let Some(engine) = procs.remove(&i) {
                engine.quit();
            }
        }
        for i in [job.first, job.second] {
            if procs.contains_key(&i) {
                continue;
            }
            match EngineProcess::start_with(&config.engines[i].config, &setup) {
                Ok(e) => {
                    let mut s = lock();
                    if s.labels[i].is_none() {
                        s.labels[i] = Some(label_of(&e));
                    }
                    drop(s);
                    procs.insert(i, e);
                }
                Err(fault) => {
                    let mut s = lock();
                    s.error
                        .get_or_insert(format!("engine {} failed at start-up: {fault}", plan.names(i)));
                    s.stop = true;
                    return;
                }
            }
        }
        // Under -strict a warning of the start-up (an option not declared, a value outside
        // its range) stops the match before this game, not after it.
        if config.strict {
            if let Some(w) = log::first_warning() {
                let mut s = lock();
                s.error
                    .get_or_insert(format!("-strict: a warning stops the match: {w}"));
                s.stop = true;
                return;
            }
        }
        let (white_i, black_i) = if job.first_is_white {
            (job.first, job.second)
        } else {
            (job.second, job.first)
        };
        {
            let _s = lock();
            plan.progress.say(&format!(
                "Started game {} of {} ({} vs {})",
                job.number,
                plan.total_games,
                plan.names(white_i),
                plan.names(black_i)
            ));
            log::message(
                Level::Info,
                &format!(
                    "game {} started ({} vs {})",
                    job.number,
                    plan.names(white_i),
                    plan.names(black_i)
                ),
            );
        }
        let (Some(mut white), Some(mut black)) = (procs.remove(&white_i), procs.remove(&black_i)) else {
            break;
        };
        let settings = GameSettings {
            limits: [
                config.engines[white_i].limits.clone(),
                config.engines[black_i].limits.clone(),
            ],
            adjudication: config.adjudication.clone(),
            chess960: config.chess960,
            patterns: config.pgnout.as_ref().map_or(Vec::new(), |p| p.patterns.clone()),
            check_mate_pvs: config.check_mate_pvs,
            tables: plan.tables.clone(),
        };
        let stop_game = || interrupted.load(Ordering::Relaxed);
        let finished = play_game(&mut white, &mut black, &job.opening, &settings, &stop_game);
        {
            let mut s = lock();
            finish_game(plan, &mut s, &job, &finished);
        }
        for (i, engine, color) in [(white_i, white, Color::White), (black_i, black, Color::Black)] {
            if finished.faulted == Some(color) || config.engines[i].restart {
                engine.quit();
            } else {
                procs.insert(i, engine);
            }
        }
        if config.wait_ms > 0 {
            std::thread::sleep(Duration::from_millis(config.wait_ms));
        }
    }
    for (_, engine) in procs {
        engine.quit();
    }
}

fn open_output(path: &str, append: bool, what: &'static str) -> Result<std::fs::File, MatchError> {
    std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(append)
        .truncate(!append)
        .open(path)
        .map_err(|source| MatchError::OpenOutput {
            what,
            path: path.to_string(),
            source,
        })
}

/// Refuses a match whose outputs (state file, SPRT plot, PGN, EPD, log) include its book:
/// `-pgnout` onto the openings would add games to them, `outname=` would replace them.
fn refuse_book_as_output(config: &MatchConfig) -> Result<(), MatchError> {
    let Some(book) = &config.openings else {
        return Ok(());
    };
    let outputs = [
        config.state_file.as_deref(),
        config.sprt_plot.as_deref(),
        config.pgnout.as_ref().map(|p| p.file.as_str()),
        config.epdout.as_ref().map(|p| p.file.as_str()),
        config.log.as_ref().map(|l| l.file.as_str()),
    ];
    for out in outputs.into_iter().flatten() {
        output::refuse_inputs(std::path::Path::new(out), &[std::path::Path::new(&book.file)])
            .map_err(MatchError::BookAsOutput)?;
    }
    Ok(())
}

/// Refuses a match two of whose outputs are one file (the same path, or one file through a
/// link, by [`output::Compare::TwoOutputs`]; a device or a FIFO, `/dev/null` for every output,
/// takes any number of writers): each is written on its own terms (the state replaced after
/// every game, the PGN and EPD appended, the log kept), so one would destroy the other.
fn refuse_shared_outputs(config: &MatchConfig) -> Result<(), MatchError> {
    let outputs: Vec<(&'static str, &str)> = [
        ("-config outname", config.state_file.as_deref()),
        ("-sprt-plot", config.sprt_plot.as_deref()),
        ("-pgnout", config.pgnout.as_ref().map(|p| p.file.as_str())),
        ("-epdout", config.epdout.as_ref().map(|p| p.file.as_str())),
        ("-log", config.log.as_ref().map(|l| l.file.as_str())),
    ]
    .into_iter()
    .filter_map(|(option, file)| file.map(|f| (option, f)))
    .collect();
    for (i, &(first, a)) in outputs.iter().enumerate() {
        for &(second, b) in &outputs[i + 1..] {
            if output::same_file(
                std::path::Path::new(a),
                std::path::Path::new(b),
                output::Compare::TwoOutputs,
            ) {
                return Err(MatchError::SharedOutput {
                    first,
                    second,
                    path: a.to_string(),
                });
            }
        }
    }
    Ok(())
}

/// The openings of `config` (`-openings`, arranged in its order with its seed and start), or
/// the standard position alone; and the book's file name, for the report.
pub(crate) fn load_book(config: &MatchConfig) -> Result<(Vec<Opening>, Option<String>), MatchError> {
    Ok(match &config.openings {
        Some(o) => {
            let (text, mut notes) = openings::read_text(&o.file)?;
            let book = if o.pgn {
                openings::read_pgn(&text, o.plies).map(|(book, more)| {
                    notes.extend(more.into_iter().map(|n| format!("openings {}: {n}", o.file)));
                    book
                })
            } else {
                openings::read_epd(&text).map(|(book, more)| {
                    notes.extend(more.into_iter().map(|n| format!("openings {}: {n}", o.file)));
                    book
                })
            }
            .map_err(|source| MatchError::Openings {
                file: o.file.clone(),
                source,
            })?;
            for note in notes {
                output::errln!("arena: note: {note}");
            }
            let name = std::path::Path::new(&o.file)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned());
            (openings::arrange(book, o.random, config.seed, o.start), name)
        }
        None => (
            vec![Opening {
                start: Board::startpos(),
                moves: Vec::new(),
            }],
            None,
        ),
    })
}

/// The tables of `-tb`, loaded once for a whole run (a match or an SPSA tune): a path that
/// does not load stops the run before its first game; a table refused as damaged is a
/// warning, and the run goes on with the others.
pub(crate) fn load_tables(
    adjudication: &crate::play::Adjudication,
) -> Result<Option<Arc<tablebase::Tablebases>>, MatchError> {
    match &adjudication.tablebase {
        Some(tb) => {
            let tables = tablebase::Tablebases::open(&tb.path).map_err(|source| MatchError::Tablebases {
                path: tb.path.clone(),
                source,
            })?;
            for refused in tables.refused() {
                crate::engine_process::warn_once(format!(
                    "-tb {}: {refused}; its ending is adjudicated without it",
                    tb.path
                ));
            }
            Ok(Some(tables))
        }
        None => Ok(None),
    }
}

/// Runs the tournament; returns how it ended and the first pair's tally. Errors:
/// [`MatchError`].
pub fn run(config: &MatchConfig, interrupted: Arc<AtomicBool>) -> Result<(MatchEnd, Tally), MatchError> {
    refuse_book_as_output(config)?;
    refuse_shared_outputs(config)?;
    if let Some(log_config) = &config.log {
        log::open(log_config)?;
    }
    let (book, book_name) = load_book(config)?;
    let pairings = pairings(config.tournament, config.engines.len(), config.seeds);
    if pairings.is_empty() || config.rounds == 0 || !(1..=2).contains(&config.games) {
        return Err(MatchError::Empty);
    }
    let resume = config.resume.clone();
    let mut shared = Shared {
        next_game: 0,
        stop: false,
        verdict: None,
        error: None,
        live: Tallies::new(),
        done_tallies: Tallies::new(),
        done: BTreeSet::new(),
        pending: HashMap::new(),
        records: Vec::new(),
        done_records: Vec::new(),
        encounters_since_report: 0,
        finished_games: 0,
        reported_at: None,
        pgn_bytes: 0,
        epd_bytes: 0,
        saved_games: None,
        save_error: None,
        pgn: match &config.pgnout {
            Some(p) => Some(open_output(&p.file, p.append || resume.is_some(), "PGN")?),
            None => None,
        },
        epd: match &config.epdout {
            Some(p) => Some(open_output(&p.file, p.append || resume.is_some(), "EPD")?),
            None => None,
        },
        labels: vec![None; config.engines.len()],
        trajectory: Vec::new(),
    };
    if let Some(saved) = &resume {
        for (a, b, t) in &saved.pairs {
            if *a >= config.engines.len() || *b >= config.engines.len() {
                return Err(MatchError::StateEngines);
            }
            shared.live.insert((*a, *b), t.clone());
            shared.done_tallies.insert((*a, *b), t.clone());
        }
        shared.records = saved.games.clone();
        shared.done_records = saved.games.clone();
        // Threads and hash as the engines declared them when the match began: a finished
        // match resumed starts no engine and reports them all the same.
        if saved.labels.len() == config.engines.len() {
            shared.labels = saved.labels.clone();
        }
        for &(a, b) in &saved.done {
            shared.done.extend(a..=b);
        }
        // The finished halves of half-played encounters count as they did.
        for &(index, w, b, p) in &saved.pending {
            let encounter = index / config.games;
            let (first, second) = pairings[(encounter % pairings.len() as u64) as usize];
            if w.max(b) >= config.engines.len() || !((w, b) == (first, second) || (w, b) == (second, first)) {
                return Err(MatchError::StatePairing(index + 1));
            }
            let first_half = if w == first { p } else { 2 - p };
            shared
                .live
                .entry((first, second))
                .or_default()
                .add_game(first_half);
            shared.records.push((w, b, p));
            shared
                .pending
                .entry(encounter)
                .or_default()
                .push((index, w, b, p));
        }
        // The outputs hold exactly what the state counts: a game written by a run that was
        // killed before it could save its state is cut off (it is played again).
        for (file, saved_len, len, what) in [
            (shared.pgn.as_ref(), saved.pgn_bytes, &mut shared.pgn_bytes, "PGN"),
            (shared.epd.as_ref(), saved.epd_bytes, &mut shared.epd_bytes, "EPD"),
        ] {
            let (Some(file), Some(saved_len)) = (file, saved_len) else {
                continue;
            };
            let now = file
                .metadata()
                .map_err(|source| MatchError::ReadOutput { what, source })?
                .len();
            if now < saved_len {
                return Err(MatchError::OutputShrunk {
                    what,
                    now,
                    saved: saved_len,
                });
            }
            if now > saved_len {
                file.set_len(saved_len)
                    .map_err(|source| MatchError::CutOutput { what, source })?;
                output::errln!(
                    "arena: note: the {what} output held {} bytes after the last saved state (games not counted); they were cut off and those games are played again",
                    now - saved_len
                );
            }
            *len = saved_len;
        }
    } else {
        for (file, len) in [
            (shared.pgn.as_ref(), &mut shared.pgn_bytes),
            (shared.epd.as_ref(), &mut shared.epd_bytes),
        ] {
            if let Some(file) = file {
                *len = file.metadata().map_err(MatchError::OutputLength)?.len();
            }
        }
    }
    let total_games = config
        .rounds
        .saturating_mul(pairings.len() as u64)
        .saturating_mul(config.games);
    let skip_games: BTreeSet<u64> = shared.pending.values().flatten().map(|g| g.0).collect();
    let already_played = (shared.done.len() as u64)
        .saturating_mul(config.games)
        .saturating_add(skip_games.len() as u64);
    let tables = load_tables(&config.adjudication)?;
    let plan = Arc::new(Plan {
        config: config.clone(),
        pairings,
        book,
        book_name,
        total_games,
        skip: resume,
        skip_games,
        progress: Progress::new(total_games, already_played),
        tables,
    });
    // A state from the start, so a stop before the first game still leaves one to resume.
    plan.save(&mut shared).map_err(|source| MatchError::FirstSave {
        source,
        note: match (&plan.skip, &config.state_file) {
            (Some(_), Some(path)) => format!("; no game was played and {path} is as it was"),
            _ => ". No state was saved: nothing can be resumed.".into(),
        },
    })?;
    let shared = Arc::new(Mutex::new(shared));
    let workers = config.concurrency.min(total_games.max(1) as usize);
    let mut handles = Vec::new();
    for w in 0..workers {
        let (plan, shared, interrupted) = (plan.clone(), shared.clone(), interrupted.clone());
        handles.push(std::thread::spawn(move || {
            worker(&plan, &shared, &interrupted, w)
        }));
    }
    for handle in handles {
        if handle.join().is_err() {
            let mut s = shared.lock().unwrap_or_else(|e| e.into_inner());
            s.error.get_or_insert("a worker thread failed".into());
        }
    }
    plan.progress.finish();
    let mut s = shared.lock().unwrap_or_else(|e| e.into_inner());
    // The report once: not again when the last game's pair already printed it at its
    // -ratinginterval (fastchess prints it once at the end of a match).
    if s.reported_at != Some(s.finished_games) {
        output::outln!("{RULE}\n{}{RULE}", plan.report(&s));
    }
    let was_interrupted = interrupted.load(Ordering::Relaxed);
    let end = match (s.verdict, &config.sprt) {
        (Some(v), _) => MatchEnd::Sprt(v),
        _ if was_interrupted => MatchEnd::Interrupted,
        (None, Some(_)) => MatchEnd::Sprt(Verdict::Undecided),
        (None, None) => MatchEnd::Finished,
    };
    if let Some(sprt) = &config.sprt {
        let bounds = format!("[{}, {}]", report::num(sprt.elo0, 2), report::num(sprt.elo1, 2));
        // fastchess's words when the test decides; nothing when the rounds run out first
        // (fastchess prints no SPRT line then).
        if let Some(v) = s.verdict {
            output::outln!("SPRT ({bounds}) completed - {v} was accepted");
        }
        if let Some(path) = &config.sprt_plot {
            let games = s.live.get(&(0, 1)).map_or(0, Tally::games);
            let outcome = match end {
                MatchEnd::Sprt(v @ (Verdict::H0 | Verdict::H1)) => {
                    format!("{v} accepted after {}", output::count(games, "game"))
                }
                MatchEnd::Interrupted => format!("interrupted after {}", output::count(games, "game")),
                _ => format!("no decision after {}", output::count(games, "game")),
            };
            let plot = SprtPlot {
                points: &s.trajectory,
                sprt,
                bounds: sprt_bounds(sprt.alpha, sprt.beta),
                title: format!("SPRT {bounds}, {} vs {}: {outcome}", plan.names(0), plan.names(1)),
            };
            if let Err(e) = sprt_plot::write(path, &plot) {
                log::warn(&e.to_string());
            }
        }
    }
    let _ = plan.save(&mut s);
    // fastchess's own output format never prints `Tournament finished`; the end of a match
    // is `Finished match` and `Total Time` (printed by main).
    if was_interrupted && s.verdict.is_none() && s.error.is_none() {
        output::outln!("Tournament was interrupted. {}", plan.resume_note(&s));
    }
    if let Some(e) = &s.error {
        log::message(Level::Err, e);
        return Err(if s.verdict.is_none() && config.state_file.is_some() {
            MatchError::StoppedResumable {
                why: e.clone(),
                resume: plan.resume_note(&s),
            }
        } else {
            MatchError::Stopped(e.clone())
        });
    }
    let tally = s.live.get(&(0, 1)).cloned().unwrap_or_default();
    Ok((end, tally))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairings_follow_fastchess() {
        assert_eq!(pairings(TournamentKind::RoundRobin, 2, 1), [(0, 1)]);
        assert_eq!(
            pairings(TournamentKind::RoundRobin, 4, 1),
            [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
        );
        assert_eq!(pairings(TournamentKind::Gauntlet, 4, 1), [(0, 1), (0, 2), (0, 3)]);
        assert_eq!(
            pairings(TournamentKind::Gauntlet, 4, 2),
            [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3)]
        );
    }

    #[test]
    fn exit_codes_are_fastchesss_unless_asked_for_arenas() {
        use MatchEnd::*;
        let all = [
            Sprt(Verdict::H1),
            Sprt(Verdict::H0),
            Sprt(Verdict::Undecided),
            Finished,
            Interrupted,
        ];
        let codes = |own: bool| all.map(|v| v.exit_code(own));
        assert_eq!(codes(false), [0, 0, 0, 0, 2]);
        assert_eq!(codes(true), [0, 1, 2, 0, 2]);
    }

    #[test]
    fn cpus_are_dealt_to_workers() {
        assert_eq!(worker_cpus(&[4, 5, 6, 7], 1, 2), [6, 7]);
        assert_eq!(worker_cpus(&[4, 5, 6], 2, 1), [6]);
        assert!(worker_cpus(&[], 0, 1).is_empty());
    }
}

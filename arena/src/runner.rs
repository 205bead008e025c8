//! The match: game pairs (each opening played twice with colours reversed) spread over
//! `concurrency` worker threads, each with its own pair of engine processes. Results come
//! back to the main thread, which keeps the trinomial and pentanomial counts (a pair counts
//! once both its games have ended, whatever order they finish in), writes the PGN, prints
//! the reports, and checks the SPRT after every pair. Faults restart the faulty engine with
//! `--recover` and stop the match with an error otherwise. Ctrl-C stops the match and
//! prints the report so far.

use crate::cli::MatchConfig;
use crate::engine_process::EngineProcess;
use crate::openings;
use crate::play::{play_game, FinishedGame, GameResult, GameSettings, Opening};
use crate::stats::{estimate, llr, sprt_bounds, Counts, Model};
use movegen::{Board, Color};
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::channel;
use std::sync::Arc;

/// How a match ended (the process exit code follows it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    H1Accepted,
    H0Accepted,
    Undecided,
}

impl Verdict {
    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::H1Accepted => 0,
            Verdict::H0Accepted => 1,
            Verdict::Undecided => 2,
        }
    }
}

/// Running totals from the first engine's side.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    /// (losses, draws, wins).
    pub tri: [u64; 3],
    /// (LL, LD, DD+WL, WD, WW).
    pub penta: [u64; 5],
}

impl Tally {
    pub fn games(&self) -> u64 {
        self.tri.iter().sum()
    }
    pub fn pairs(&self) -> u64 {
        self.penta.iter().sum()
    }
}

/// The report block of `SPRT.md`, in the form engine developers' scripts parse.
pub fn report(tally: &Tally, names: (&str, &str), sprt: Option<&crate::cli::SprtConfig>) -> String {
    let use_penta = tally.pairs() > 0;
    let counts = if use_penta {
        Counts::Penta(tally.penta)
    } else {
        Counts::Tri(tally.tri)
    };
    let mut e = estimate(counts);
    // No "-0.00" in reports.
    for v in [&mut e.elo, &mut e.elo_pm, &mut e.nelo, &mut e.nelo_pm] {
        *v += 0.0;
        if v.abs() < 0.005 {
            *v = 0.0;
        }
    }
    let [l, d, w] = tally.tri;
    let games = tally.games();
    let points = w as f64 + d as f64 / 2.0;
    let pairs = tally.pairs().max(1) as f64;
    let draw_ratio = if use_penta {
        tally.penta[2] as f64 / pairs
    } else {
        d as f64 / games.max(1) as f64
    };
    let losing_pairs = tally.penta[0] + tally.penta[1];
    let pairs_ratio = if losing_pairs > 0 {
        (tally.penta[3] + tally.penta[4]) as f64 / losing_pairs as f64
    } else {
        0.0
    };
    let mut out = String::new();
    out.push_str("--------------------------------------------------\n");
    out.push_str(&format!("Results of {} vs {}:\n", names.0, names.1));
    out.push_str(&format!(
        "Elo: {:.2} +/- {:.2}, nElo: {:.2} +/- {:.2}\n",
        e.elo, e.elo_pm, e.nelo, e.nelo_pm
    ));
    out.push_str(&format!(
        "LOS: {:.2} %, DrawRatio: {:.2} %, PairsRatio: {:.2}\n",
        e.los,
        draw_ratio * 100.0,
        pairs_ratio
    ));
    out.push_str(&format!(
        "Games: {games}, Wins: {w}, Losses: {l}, Draws: {d}, Points: {points:.1} ({:.2} %)\n",
        if games > 0 {
            points / games as f64 * 100.0
        } else {
            0.0
        }
    ));
    out.push_str(&format!(
        "Ptnml(0-2): [{}, {}, {}, {}, {}]\n",
        tally.penta[0], tally.penta[1], tally.penta[2], tally.penta[3], tally.penta[4]
    ));
    if let Some(s) = sprt {
        let value = sprt_llr(tally, s);
        let value = if value.abs() < 0.005 { 0.0 } else { value };
        let (lower, upper) = sprt_bounds(s.alpha, s.beta);
        let percent = if value >= 0.0 {
            value / upper
        } else {
            -value / lower
        } * 100.0;
        out.push_str(&format!(
            "LLR: {value:.2} ({percent:.1}%) ({lower:.2}, {upper:.2}) [{:.2}, {:.2}]\n",
            s.elo0, s.elo1
        ));
    }
    out.push_str("--------------------------------------------------");
    out
}

fn sprt_llr(tally: &Tally, s: &crate::cli::SprtConfig) -> f64 {
    if tally.games() == 0 {
        return 0.0;
    }
    let counts = if s.model == Model::Bayes || tally.pairs() == 0 {
        Counts::Tri(tally.tri)
    } else {
        Counts::Penta(tally.penta)
    };
    llr(counts, s.elo0, s.elo1, s.model)
}

/// One game to play.
#[derive(Clone, Debug)]
struct GameJob {
    number: u64,
    round: u64,
    /// Whether the first engine has White.
    first_is_white: bool,
    opening: Opening,
}

struct GameOutcome {
    job: GameJob,
    finished: FinishedGame,
}

/// Runs the match; returns the verdict and the final tally, or an error message.
pub fn run(config: &MatchConfig, interrupted: Arc<AtomicBool>) -> Result<(Verdict, Tally), String> {
    let book = match &config.openings {
        Some(o) => {
            let (text, mut notes) = openings::read_text(&o.file)?;
            let book = if o.pgn {
                openings::read_pgn(&text, o.plies).map(|(book, more)| {
                    notes.extend(more.into_iter().map(|n| format!("openings {}: {n}", o.file)));
                    book
                })
            } else {
                openings::read_epd(&text)
            }
            .map_err(|e| format!("openings {}: {e}", o.file))?;
            for note in notes {
                eprintln!("arena: note: {note}");
            }
            openings::arrange(book, o.random, config.seed, o.start)
        }
        None => vec![Opening {
            start: Board::startpos(),
            moves: Vec::new(),
        }],
    };
    let mut pgn_file = match &config.pgnout {
        Some(path) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("cannot open PGN output {path}: {e}"))?,
        ),
        None => None,
    };

    if config.rounds == 0 || !(1..=2).contains(&config.games) {
        return Err("a match needs at least one round of one or two games".into());
    }
    // Games are made as they are taken, so a long match holds no list of them.
    let total_games = config.rounds.saturating_mul(config.games);
    let book = Arc::new(book);
    let next_game = Arc::new(AtomicU64::new(0));
    let games_per_round = config.games;
    let job_for = move |book: &[Opening], index: u64| {
        let round = index / games_per_round;
        GameJob {
            number: index + 1,
            round,
            first_is_white: index % games_per_round == 0,
            opening: book[(round % book.len() as u64) as usize].clone(),
        }
    };
    let stop = Arc::new(AtomicBool::new(false));
    let names = (config.engines[0].name.clone(), config.engines[1].name.clone());
    let date = today();
    let (tx, rx) = channel::<Result<GameOutcome, String>>();
    let started = Arc::new(AtomicU64::new(0));

    let mut handles = Vec::new();
    for _ in 0..config.concurrency.min(total_games.max(1) as usize) {
        let book = book.clone();
        let next_game = next_game.clone();
        let stop = stop.clone();
        let interrupted = interrupted.clone();
        let tx = tx.clone();
        let config = config.clone();
        let date = date.clone();
        let started = started.clone();
        handles.push(std::thread::spawn(move || {
            let mut engines: [Option<EngineProcess>; 2] = [None, None];
            loop {
                if stop.load(Ordering::Relaxed) || interrupted.load(Ordering::Relaxed) {
                    break;
                }
                let index = next_game.fetch_add(1, Ordering::Relaxed);
                if index >= total_games {
                    break;
                }
                let job = job_for(&book, index);
                // Start engines that are not running.
                for (i, slot) in engines.iter_mut().enumerate() {
                    if slot.is_none() {
                        match EngineProcess::start(&config.engines[i]) {
                            Ok(e) => *slot = Some(e),
                            Err(fault) => {
                                let _ = tx.send(Err(format!(
                                    "engine {} failed at start-up: {}",
                                    config.engines[i].name, fault
                                )));
                                return;
                            }
                        }
                    }
                }
                started.fetch_add(1, Ordering::Relaxed);
                let (first, second) = engines.split_at_mut(1);
                let (first, second) = (
                    first[0].as_mut().expect("started"),
                    second[0].as_mut().expect("started"),
                );
                let (white, black) = if job.first_is_white {
                    (first, second)
                } else {
                    (second, first)
                };
                println!(
                    "Started game {} of {} ({} vs {})",
                    job.number, total_games, white.config.name, black.config.name
                );
                let settings = GameSettings {
                    limits: config.limits.clone(),
                    adjudication: config.adjudication.clone(),
                    chess960: config.chess960,
                    tags: vec![
                        ("Event".into(), "arena match".into()),
                        ("Site".into(), "local".into()),
                        ("Date".into(), date.clone()),
                        ("Round".into(), format!("{}", job.round + 1)),
                    ],
                };
                let stop_game = || interrupted.load(Ordering::Relaxed);
                let finished = play_game(white, black, &job.opening, &settings, &stop_game);
                if let Some(color) = finished.faulted {
                    // The faulty engine's process is replaced before the next game.
                    let first_faulted = (color == Color::White) == job.first_is_white;
                    let index = if first_faulted { 0 } else { 1 };
                    if let Some(engine) = engines[index].take() {
                        engine.quit();
                    }
                }
                if tx.send(Ok(GameOutcome { job, finished })).is_err() {
                    break;
                }
            }
            for engine in engines.into_iter().flatten() {
                engine.quit();
            }
        }));
    }
    drop(tx);

    let mut tally = Tally::default();
    let mut pending: HashMap<u64, f64> = HashMap::new();
    let mut verdict = Verdict::Undecided;
    let mut error = None;
    let mut pairs_since_report = 0;
    for message in rx {
        let outcome = match message {
            Ok(o) => o,
            Err(e) => {
                error.get_or_insert(e);
                stop.store(true, Ordering::Relaxed);
                continue;
            }
        };
        let GameOutcome { job, finished } = outcome;
        if finished.termination == "unterminated" {
            continue;
        }
        let (white, black) = if job.first_is_white {
            (&names.0, &names.1)
        } else {
            (&names.1, &names.0)
        };
        println!(
            "Finished game {} ({} vs {}): {} {{{}}}",
            job.number,
            white,
            black,
            finished.result.pgn(),
            finished.reason
        );
        if let Some(file) = pgn_file.as_mut() {
            let text = finished.pgn.to_pgn();
            if let Err(e) = file.write_all(text.as_bytes()).and_then(|_| file.flush()) {
                error.get_or_insert(format!("cannot write PGN: {e}"));
                stop.store(true, Ordering::Relaxed);
            }
        }
        if finished.faulted.is_some() && !config.recover {
            error.get_or_insert(format!(
                "{} (use --recover to restart faulty engines and go on)",
                finished.reason
            ));
            stop.store(true, Ordering::Relaxed);
        }
        // Score from the first engine's side.
        let score = match (finished.result, job.first_is_white) {
            (GameResult::Draw, _) => 0.5,
            (GameResult::WhiteWins, true) | (GameResult::BlackWins, false) => 1.0,
            _ => 0.0,
        };
        tally.tri[(score * 2.0) as usize] += 1;
        if config.games == 2 {
            if let Some(other) = pending.remove(&job.round) {
                tally.penta[((score + other) * 2.0).round() as usize] += 1;
                pairs_since_report += 1;
                if let Some(sprt) = &config.sprt {
                    let value = sprt_llr(&tally, sprt);
                    let (lower, upper) = sprt_bounds(sprt.alpha, sprt.beta);
                    if value >= upper {
                        verdict = Verdict::H1Accepted;
                    } else if value <= lower {
                        verdict = Verdict::H0Accepted;
                    }
                    if verdict != Verdict::Undecided {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
                if config.rating_interval > 0 && pairs_since_report >= config.rating_interval {
                    pairs_since_report = 0;
                    println!("{}", report(&tally, (&names.0, &names.1), config.sprt.as_ref()));
                }
            } else {
                pending.insert(job.round, score);
            }
        }
    }
    for handle in handles {
        let _ = handle.join();
    }
    println!("{}", report(&tally, (&names.0, &names.1), config.sprt.as_ref()));
    if config.sprt.is_some() {
        println!(
            "{}",
            match verdict {
                Verdict::H1Accepted => "SPRT: H1 was accepted",
                Verdict::H0Accepted => "SPRT: H0 was accepted",
                Verdict::Undecided => "SPRT: no decision",
            }
        );
    }
    if let Some(e) = error {
        return Err(e);
    }
    Ok((verdict, tally))
}

/// Today's date as PGN wants it (UTC), from the system clock.
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

//! One game between two engine processes: each side's own limits (a clock with exact
//! bookkeeping for sudden death, increment and repeating `moves/time` controls, nodes,
//! depth, time per move), every move checked for legality (Chess960 castling included)
//! through movegen, game endings by the rules (`Game::outcome_with_claims`), Syzygy
//! tablebase / resign / draw / max-moves adjudication as fastchess does it, and faults
//! turned into results: the engine
//! that crashes, stalls, sends no move, plays an illegal move or oversteps its time loses.
//! A flag-fall against a side that cannot mate is a draw.
//!
//! Tablebase adjudication (`-tb`) is fastchess's: after each engine move, a position right
//! after a capture or a pawn move (halfmove clock 0), without castling rights, with no more
//! pieces than the tables (and `-tbpieces`) is decided by its WDL verdict, the 50-move rule
//! counting unless `-tbignore50`; `-tbadjudicate` chooses which verdicts end the game. One
//! difference: a move that ends the game by the rules (mate, a dead position) is reported
//! by the rules, not as an adjudication.
//!
//! Results carry fastchess's words, which OpenBench and other scripts read: "White mates",
//! "Draw by 3-fold repetition", "Black wins by adjudication", "White wins by adjudication:
//! SyzygyTB", "Draw by adjudication: SyzygyTB", "White loses on time (12ms
//! overrun)", "Black disconnects", "White's connection stalls", "Black makes an illegal
//! move: a1a8". Each move keeps what the engine said about it (score, depth, seldepth,
//! nodes, nps, hashfull, tbhits, pv, time left, latency, matched output lines) for the PGN.

use crate::engine_process::{EngineFault, EngineProcess, Score, SearchReply};
use crate::regex::Regex;
use matchcore::termination::Termination;
use matchcore::timecontrol::{self, Clock, Tick, TimeControl};
use movegen::{Board, Color, DrawReason, Game, Move, Outcome, PieceType};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};
use tablebase::{Tablebases, Wdl};

/// How long an engine may take to answer a search without a clock or a time per move.
pub const NO_CLOCK_DEADLINE: Duration = Duration::from_secs(60);
/// Grace beyond an engine's time (and margin) before it counts as not answering at all.
pub const STALL_GRACE_MS: u64 = 1000;

/// How long each move of one engine may take.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    /// A clock (`tc=`); `None` for `tc=inf`.
    pub clock: Option<TimeControl>,
    /// Nodes per move (`nodes=`).
    pub nodes: Option<u64>,
    /// Depth per move, in plies (`plies=` or `depth=`).
    pub depth: Option<u32>,
    /// Fixed time per move in milliseconds (`st=`).
    pub movetime: Option<u64>,
    /// Grace before a late move loses on time, in milliseconds.
    pub time_margin: u64,
}

impl Limits {
    /// Whether any limit is set.
    pub fn is_set(&self) -> bool {
        self.clock.is_some() || self.nodes.is_some() || self.depth.is_some() || self.movetime.is_some()
    }

    /// The PGN `TimeControl` value: `8+0.08`, `40/60+0.6`, `0.1/move`, or `-`.
    pub fn pgn_time_control(&self) -> String {
        match (self.clock, self.movetime) {
            (Some(tc), _) => tc.to_string(),
            (None, Some(ms)) => format!("{}/move", timecontrol::seconds_text(ms)),
            _ => "-".to_string(),
        }
    }

    /// The limit as fastchess names it in the `Results of` line: the clock, else the time
    /// per move, else depth (`N plies`), else nodes (`N nodes`).
    pub fn describe(&self) -> String {
        if let Some(tc) = self.clock {
            return tc.to_string();
        }
        if let Some(ms) = self.movetime {
            return format!("{}/move", timecontrol::seconds_text(ms));
        }
        if let Some(d) = self.depth {
            return format!("{d} plies");
        }
        if let Some(n) = self.nodes {
            return format!("{n} nodes");
        }
        "-".to_string()
    }
}

/// Resignation: a side whose score is at most `-score` for `count` consecutive own moves
/// resigns; `twosided`: both sides' scores beyond `score` for `count` moves each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resign {
    /// Consecutive own moves the score must stay at or below `-score`.
    pub count: u32,
    /// The threshold, in centipawns (positive).
    pub score: i32,
    /// Count both sides' moves: every score of either side beyond `score` in magnitude
    /// (a mate score counts), `2 · count` moves in a row.
    pub twosided: bool,
}

/// Adjudication rules.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Adjudication {
    /// Resignation (`-resign`); `None`: engines play on.
    pub resign: Option<Resign>,
    /// (movenumber, movecount, score): from move `movenumber`, |score| <= score for
    /// movecount consecutive moves of both sides is a draw (captures and pawn moves reset).
    pub draw: Option<(u32, u32, i32)>,
    /// A game in which the engines have played this many moves each is a draw.
    pub max_moves: Option<u32>,
    /// Syzygy tablebase adjudication (`-tb`); `None`: none.
    pub tablebase: Option<TbAdjudication>,
}

/// Which tablebase verdicts end a game (`-tbadjudicate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TbResults {
    /// Wins and losses only (`WIN_LOSS`).
    WinLoss,
    /// Draws only (`DRAW`).
    Draw,
    /// Every verdict (`BOTH`, the default).
    Both,
}

/// Syzygy tablebase adjudication: `-tb PATH [-tbpieces N] [-tbignore50] [-tbadjudicate
/// WIN_LOSS|DRAW|BOTH]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TbAdjudication {
    /// The tables' directories (`:` between them).
    pub path: String,
    /// Positions with more pieces are not adjudicated (`-tbpieces`; 0: as many as the
    /// tables hold).
    pub max_pieces: u32,
    /// Cursed wins and blessed losses are wins and losses (`-tbignore50`).
    pub ignore_50: bool,
    /// Which verdicts end a game.
    pub results: TbResults,
}

impl TbAdjudication {
    /// The result the tables give `board` (from the side to move's view), if the game ends
    /// here by `-tb` adjudication.
    fn verdict(&self, tables: &Tablebases, board: &Board) -> Option<Wdl> {
        if board.halfmove_clock() != 0 || (self.max_pieces != 0 && board.occupied().len() > self.max_pieces) {
            return None;
        }
        let probe = tables.probe_wdl(board);
        for path in tables.take_damaged() {
            crate::engine_process::warn_once(format!(
                "Syzygy table {} is damaged: its probes answer unknown and adjudicate nothing",
                path.display()
            ));
        }
        let wdl = probe?.outcome(!self.ignore_50);
        let wanted = match wdl {
            Wdl::Draw => self.results != TbResults::WinLoss,
            _ => self.results != TbResults::Draw,
        };
        wanted.then_some(wdl)
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// White won.
    WhiteWins,
    /// Black won.
    BlackWins,
    /// A draw.
    Draw,
}

impl GameResult {
    /// The PGN result token: `1-0`, `0-1` or `1/2-1/2`.
    pub fn pgn(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    fn win_for(color: Color) -> GameResult {
        match color {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }
}

/// What one move was, and what its engine said about it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MoveRecord {
    /// The move; `None` only in records that hold no move (a default record).
    pub mv: Option<Move>,
    /// An opening move (its `reply` is empty).
    pub book: bool,
    /// The engine's answer to its `go`: what its last `info` lines said (score from its
    /// side, depth, nodes, ..., the principal variation), the lines `match_line` kept, and
    /// the wall time arena measured.
    pub reply: SearchReply,
    /// The clock after the move, in milliseconds, when the side has one.
    pub time_left_ms: Option<u64>,
}

impl MoveRecord {
    fn book(mv: Move) -> MoveRecord {
        MoveRecord {
            mv: Some(mv),
            book: true,
            ..MoveRecord::default()
        }
    }

    /// The wall time arena measured minus the `time` the engine reported, in milliseconds
    /// (`None` when it reported none).
    pub fn latency_ms(&self) -> Option<i64> {
        self.reply
            .time_ms
            .map(|t| self.reply.elapsed_ms as i64 - t as i64)
    }
}

/// A player of one game: the configured name and what the engine said it is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayerInfo {
    /// The engine's name in the tournament.
    pub name: String,
    /// The `id name` of its handshake.
    pub uci_name: Option<String>,
    /// The `id author` of its handshake.
    pub uci_author: Option<String>,
}

/// A finished game.
#[derive(Debug)]
pub struct FinishedGame {
    /// The position the game started from (before the book moves).
    pub start: Board,
    /// Book moves, then the engines' moves.
    pub moves: Vec<MoveRecord>,
    /// The final position.
    pub end: Board,
    /// The text of an illegal move that ended the game.
    pub illegal_move: Option<String>,
    /// How the game ended.
    pub result: GameResult,
    /// fastchess's words, e.g. "White mates", "Black loses on time (12ms overrun)".
    pub reason: String,
    /// PGN `Termination`.
    pub termination: Termination,
    /// The side whose engine faulted (crash, stall, protocol, illegal move, time-out
    /// without an answer), if any; its process should be restarted.
    pub faulted: Option<Color>,
    /// The engine that played White.
    pub white: PlayerInfo,
    /// The engine that played Black.
    pub black: PlayerInfo,
    /// Each side's PGN time control: [White, Black].
    pub time_controls: [String; 2],
    /// Whether the game was Chess960.
    pub chess960: bool,
    /// When the game started (wall clock).
    pub started: SystemTime,
    /// How long it took.
    pub duration: Duration,
}

/// An opening: a start position and book moves played from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The position the book line starts from.
    pub start: Board,
    /// The book moves, played before the engines take over.
    pub moves: Vec<Move>,
}

/// Per-game settings.
#[derive(Clone, Debug, Default)]
pub struct GameSettings {
    /// Each side's limits: [White, Black].
    pub limits: [Limits; 2],
    /// Resignation, draw and move-count adjudication.
    pub adjudication: Adjudication,
    /// Chess960 rules and notation.
    pub chess960: bool,
    /// `match_line` patterns.
    pub patterns: Vec<Regex>,
    /// Check that mate scores come with a PV of the right length that ends in mate.
    pub check_mate_pvs: bool,
    /// The tables of `-tb`, loaded once for the match.
    pub tables: Option<Arc<Tablebases>>,
}

fn position_command(game: &Game, chess960: bool) -> String {
    let start = game.start();
    let mut text = if *start == Board::startpos() && !chess960 {
        "position startpos".to_string()
    } else {
        format!("position fen {}", start.to_fen())
    };
    if !game.moves().is_empty() {
        text.push_str(" moves");
        for (board, &mv) in game.positions().iter().zip(game.moves()) {
            text.push(' ');
            text.push_str(&board.to_uci(mv, chess960));
        }
    }
    text
}

/// `White` or `Black`.
pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// fastchess's words for an ending by the rules.
pub fn rules_reason(outcome: Outcome) -> String {
    match outcome {
        Outcome::Checkmate { winner } => format!("{} mates", color_name(winner)),
        Outcome::Draw(DrawReason::Stalemate) => "Draw by stalemate".into(),
        Outcome::Draw(DrawReason::DeadPosition) => "Draw by insufficient mating material".into(),
        Outcome::Draw(DrawReason::ThreefoldRepetition | DrawReason::FivefoldRepetition) => {
            "Draw by 3-fold repetition".into()
        }
        Outcome::Draw(DrawReason::FiftyMoveRule | DrawReason::SeventyFiveMoveRule) => {
            "Draw by fifty moves rule".into()
        }
    }
}

/// The words for a fault of `side`'s engine, and the PGN termination.
fn fault_reason(side: Color, fault: &EngineFault) -> (String, Termination) {
    let who = color_name(side);
    match fault {
        EngineFault::Crashed | EngineFault::Spawn(_) | EngineFault::OptionRefused(_) => {
            (format!("{who} disconnects"), Termination::Abandoned)
        }
        EngineFault::Flood(what) => (
            format!(
                "{who} disconnects (floods its output, more than {} lines a second while awaiting {what})",
                crate::engine_process::MAX_LINES_PER_SECOND
            ),
            Termination::Abandoned,
        ),
        EngineFault::Timeout(what) => (
            format!("{who}'s connection stalls (no {what})"),
            Termination::Abandoned,
        ),
        EngineFault::Protocol(line) => (
            format!("{who} makes an illegal move ({line})"),
            Termination::IllegalMove,
        ),
        EngineFault::Interrupted => ("Game interrupted".into(), Termination::Unterminated),
    }
}

/// Resign and draw counters.
#[derive(Default)]
struct Trackers {
    resign: [u32; 2],
    resign_both: u32,
    draw: u32,
}

/// The score text fastchess writes: `+0.25`, `-1.50`, `0.00`, `+M5` (plies to mate).
pub fn score_text(score: Score) -> String {
    match score {
        Score::Cp(cp) => {
            let sign = match cp.signum() {
                1 => "+",
                -1 => "-",
                _ => "",
            };
            format!("{sign}{:.2}", f64::from(cp.unsigned_abs()) / 100.0)
        }
        Score::Mate(m) if m > 0 => format!("+M{}", 2 * i64::from(m) - 1),
        Score::Mate(m) => format!("-M{}", -2 * i64::from(m)),
    }
}

/// Checks that a mate score's PV leads to mate in the plies it claims; warnings for
/// `-check-mate-pvs`.
pub fn mate_pv_problem(board: &Board, score: Score, pv: &[String], chess960: bool) -> Option<String> {
    let Score::Mate(m) = score else {
        return None;
    };
    let _ = chess960;
    let expected = if m > 0 {
        2 * i64::from(m) - 1
    } else {
        -2 * i64::from(m)
    };
    let mut b = *board;
    for (i, text) in pv.iter().enumerate() {
        if !b.has_legal_move() {
            return Some(format!(
                "PV continues after checkmate or stalemate at move {}",
                i + 1
            ));
        }
        match b.parse_uci(text) {
            Ok(mv) => b.play(mv),
            Err(_) => return Some(format!("illegal PV move {text}")),
        }
    }
    let len = pv.len() as i64;
    if len < expected {
        return Some(format!(
            "incomplete mating PV ({len} plies for a mate in {expected})"
        ));
    }
    if len > expected {
        return Some(format!(
            "too long mating PV ({len} plies for a mate in {expected})"
        ));
    }
    if !b.in_check() || b.has_legal_move() {
        return Some("mating PV does not end with checkmate".into());
    }
    None
}

/// Plays one game. `white` and `black` must be started; `stop` aborts between moves.
pub fn play_game(
    white: &mut EngineProcess,
    black: &mut EngineProcess,
    opening: &Opening,
    settings: &GameSettings,
    stop: &dyn Fn() -> bool,
) -> FinishedGame {
    let started = SystemTime::now();
    let start_instant = Instant::now();
    let info = |e: &EngineProcess| PlayerInfo {
        name: e.config.name.clone(),
        uci_name: e.uci_name.clone(),
        uci_author: e.uci_author.clone(),
    };
    let players = [info(white), info(black)];
    let mut game = Game::new(opening.start);
    let mut moves = Vec::new();
    for &mv in &opening.moves {
        if game.play(mv).is_err() {
            break;
        }
        moves.push(MoveRecord::book(mv));
    }
    let limits = &settings.limits;
    let mut clocks: [Option<Clock>; 2] = [limits[0].clock.map(Clock::new), limits[1].clock.map(Clock::new)];
    let mut trackers = Trackers::default();
    let mut engine_plies = 0u32;
    let mut illegal_move = None;

    struct End {
        result: GameResult,
        reason: String,
        termination: Termination,
        faulted: Option<Color>,
    }
    let end = |result, reason: String, termination, faulted| End {
        result,
        reason,
        termination,
        faulted,
    };

    // Both engines start a new game; a fault here loses the game.
    let mut early = None;
    for (color, engine) in [(Color::White, &mut *white), (Color::Black, &mut *black)] {
        if let Err(fault) = engine.new_game() {
            if stop() {
                early = Some(end(
                    GameResult::Draw,
                    "Game interrupted".into(),
                    Termination::Unterminated,
                    None,
                ));
                break;
            }
            let (reason, termination) = fault_reason(color, &fault);
            early = Some(end(GameResult::win_for(!color), reason, termination, Some(color)));
            break;
        }
    }

    let outcome = match early {
        Some(e) => e,
        None => loop {
            // Rules first: mate, stalemate, repetition, fifty moves, dead position.
            if let Some(outcome) = game.outcome_with_claims() {
                let result = match outcome {
                    Outcome::Checkmate { winner } => GameResult::win_for(winner),
                    Outcome::Draw(_) => GameResult::Draw,
                };
                break end(result, rules_reason(outcome), Termination::Normal, None);
            }
            if let Some(max) = settings.adjudication.max_moves {
                if engine_plies >= 2 * max {
                    break end(
                        GameResult::Draw,
                        "Draw by adjudication (max moves)".into(),
                        Termination::Adjudication,
                        None,
                    );
                }
            }
            if stop() {
                break end(
                    GameResult::Draw,
                    "Game interrupted".into(),
                    Termination::Unterminated,
                    None,
                );
            }
            let board = *game.board();
            let side = board.side_to_move();
            let us = side.index();
            let engine: &mut EngineProcess = if side == Color::White {
                &mut *white
            } else {
                &mut *black
            };
            let mine = &limits[us];

            // As fastchess: the clocks only for a side that has one itself (each side's
            // clock, increments when not zero), the moves to go of a repeating control.
            let mut go = String::from("go");
            let deadline = if let Some(own) = &clocks[us] {
                for (i, key) in [(0, "wtime"), (1, "btime")] {
                    if let Some(c) = &clocks[i] {
                        go.push_str(&format!(" {key} {}", c.left_ms));
                    }
                }
                for (i, key) in [(0, "winc"), (1, "binc")] {
                    if let Some(c) = clocks[i].as_ref().filter(|c| c.control.inc_ms > 0) {
                        go.push_str(&format!(" {key} {}", c.control.inc_ms));
                    }
                }
                if let Some(n) = own.moves_to_go() {
                    go.push_str(&format!(" movestogo {n}"));
                }
                Duration::from_millis(own.left_ms + mine.time_margin + STALL_GRACE_MS)
            } else if let Some(ms) = mine.movetime {
                go.push_str(&format!(" movetime {ms}"));
                Duration::from_millis(ms + mine.time_margin + STALL_GRACE_MS)
            } else {
                NO_CLOCK_DEADLINE
            };
            if let Some(n) = mine.nodes {
                go.push_str(&format!(" nodes {n}"));
            }
            if let Some(d) = mine.depth {
                go.push_str(&format!(" depth {d}"));
            }

            let position = position_command(&game, settings.chess960);
            let reply = match engine.search(&position, &go, deadline, &settings.patterns, stop) {
                Ok(reply) => reply,
                Err(EngineFault::Timeout(_)) if clocks[us].is_some() || mine.movetime.is_some() => {
                    // No answer within its time and the grace: lost on time, and the
                    // engine is restarted.
                    let left = clocks[us].map_or(mine.movetime.unwrap_or(0), |c| c.left_ms);
                    let overrun = deadline.as_millis() as u64 - left;
                    let (result, reason) = flag_fall(&board, side, overrun);
                    break end(
                        result,
                        format!("{reason}, no bestmove"),
                        Termination::TimeForfeit,
                        Some(side),
                    );
                }
                Err(_) if stop() => {
                    // Whatever the engine did once arena was told to stop (a process the
                    // user's signal reached too) is not a result.
                    break end(
                        GameResult::Draw,
                        "Game interrupted".into(),
                        Termination::Unterminated,
                        None,
                    );
                }
                Err(fault) => {
                    let (reason, termination) = fault_reason(side, &fault);
                    break end(GameResult::win_for(!side), reason, termination, Some(side));
                }
            };

            let mv = match board.parse_uci(&reply.bestmove) {
                Ok(mv) => mv,
                Err(_) => {
                    let text: String = reply.bestmove.chars().take(20).collect();
                    illegal_move = Some(text.clone());
                    break end(
                        GameResult::win_for(!side),
                        format!("{} makes an illegal move: {text}", color_name(side)),
                        Termination::IllegalMove,
                        Some(side),
                    );
                }
            };

            // Clock bookkeeping.
            if let Some(clock) = clocks[us].as_mut() {
                if let Tick::Flagged { overrun_ms } = clock.after_move(reply.elapsed_ms, mine.time_margin) {
                    let (result, reason) = flag_fall(&board, side, overrun_ms);
                    break end(result, reason, Termination::TimeForfeit, None);
                }
            } else if let Some(ms) = mine.movetime {
                if reply.elapsed_ms > ms + mine.time_margin {
                    let (result, reason) = flag_fall(&board, side, reply.elapsed_ms - ms);
                    break end(result, reason, Termination::TimeForfeit, None);
                }
            }

            if settings.check_mate_pvs {
                if let Some(problem) = reply
                    .score
                    .and_then(|s| mate_pv_problem(&board, s, &reply.pv, settings.chess960))
                {
                    crate::log::warn(&format!(
                        "{}: {problem} (score {}, pv {}; position {position})",
                        engine.config.name,
                        reply.score.map_or(String::new(), score_text),
                        reply.pv.join(" ")
                    ));
                }
            }

            let irreversible =
                board.is_capture(mv) || board.piece_type_on(mv.from()) == Some(PieceType::Pawn);
            game.play_unchecked(mv);
            engine_plies += 1;
            let reported = reply.score;
            moves.push(MoveRecord {
                mv: Some(mv),
                book: false,
                reply,
                time_left_ms: clocks[us].map(|c| c.left_ms),
            });

            // Tablebase adjudication before the other adjudications, as fastchess: the side
            // to move's verdict. A game the rules have just ended (a mate, a dead position)
            // ends by the rules instead, at the top of the loop.
            if let (Some(tb), Some(tables), None) = (
                &settings.adjudication.tablebase,
                &settings.tables,
                game.outcome_with_claims(),
            ) {
                if let Some(wdl) = tb.verdict(tables, game.board()) {
                    let to_move = game.board().side_to_move();
                    break match wdl {
                        Wdl::Draw => end(
                            GameResult::Draw,
                            "Draw by adjudication: SyzygyTB".into(),
                            Termination::Adjudication,
                            None,
                        ),
                        _ => {
                            let winner = if wdl == Wdl::Win { to_move } else { !to_move };
                            end(
                                GameResult::win_for(winner),
                                format!("{} wins by adjudication: SyzygyTB", color_name(winner)),
                                Termination::Adjudication,
                                None,
                            )
                        }
                    };
                }
            }

            // Adjudication by scores, after the move (as fastchess checks before the next).
            if let Some(r) = settings.adjudication.resign {
                match reported {
                    Some(score) => {
                        let cp = score.as_cp();
                        let is_mate = matches!(score, Score::Mate(_));
                        if r.twosided {
                            let decisive = is_mate || cp.abs() >= r.score;
                            trackers.resign_both = if decisive { trackers.resign_both + 1 } else { 0 };
                        } else {
                            let losing = if is_mate { cp < 0 } else { cp <= -r.score };
                            let c = &mut trackers.resign[us];
                            *c = if losing { *c + 1 } else { 0 };
                        }
                        let resignable = if r.twosided {
                            trackers.resign_both >= 2 * r.count
                        } else {
                            trackers.resign[us] >= r.count
                        };
                        if resignable && cp < 0 {
                            break end(
                                GameResult::win_for(!side),
                                format!("{} wins by adjudication", color_name(!side)),
                                Termination::Adjudication,
                                None,
                            );
                        }
                    }
                    None if r.twosided => trackers.resign_both = 0,
                    None => trackers.resign[us] = 0,
                }
            }
            if let Some((move_number, count, score)) = settings.adjudication.draw {
                if irreversible {
                    trackers.draw = 0;
                }
                match reported {
                    Some(Score::Cp(cp)) if cp.abs() <= score => trackers.draw += 1,
                    _ => trackers.draw = 0,
                }
                let plies_ok = u32::from(game.board().fullmove_number()).saturating_sub(1) >= move_number;
                if plies_ok && trackers.draw >= 2 * count {
                    break end(
                        GameResult::Draw,
                        "Draw by adjudication".into(),
                        Termination::Adjudication,
                        None,
                    );
                }
            }
        },
    };

    FinishedGame {
        start: opening.start,
        moves,
        end: *game.board(),
        illegal_move,
        result: outcome.result,
        reason: outcome.reason,
        termination: outcome.termination,
        faulted: outcome.faulted,
        white: players[0].clone(),
        black: players[1].clone(),
        time_controls: [limits[0].pgn_time_control(), limits[1].pgn_time_control()],
        chess960: settings.chess960,
        started,
        duration: start_instant.elapsed(),
    }
}

/// The result when `side`'s flag falls: a loss, or a draw if the opponent cannot mate.
fn flag_fall(board: &Board, side: Color, overrun_ms: u64) -> (GameResult, String) {
    let lost = format!("{} loses on time ({overrun_ms}ms overrun)", color_name(side));
    if board.can_mate(!side) {
        (GameResult::win_for(!side), lost)
    } else {
        (
            GameResult::Draw,
            format!("{lost}, but {} cannot mate: draw", color_name(!side)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_written_as_fastchess_writes_them() {
        assert_eq!(score_text(Score::Cp(25)), "+0.25");
        assert_eq!(score_text(Score::Cp(-150)), "-1.50");
        assert_eq!(score_text(Score::Cp(0)), "0.00");
        assert_eq!(score_text(Score::Mate(3)), "+M5");
        assert_eq!(score_text(Score::Mate(-2)), "-M4");
    }

    #[test]
    fn mate_pvs_are_checked() {
        // Scholar's mate position: White mates in 1 with Qxf7.
        let board =
            Board::from_fen("r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4").unwrap();
        let pv = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        assert_eq!(mate_pv_problem(&board, Score::Mate(1), &pv("h5f7"), false), None);
        assert!(mate_pv_problem(&board, Score::Mate(1), &pv(""), false)
            .unwrap()
            .starts_with("incomplete"));
        assert!(mate_pv_problem(&board, Score::Mate(2), &pv("h5f7"), false)
            .unwrap()
            .starts_with("incomplete"));
        assert!(mate_pv_problem(&board, Score::Mate(1), &pv("h5f7 e8e7"), false)
            .unwrap()
            .starts_with("PV continues after checkmate"));
        assert_eq!(
            mate_pv_problem(&board, Score::Mate(1), &pv("a1a8"), false).as_deref(),
            Some("illegal PV move a1a8")
        );
        assert_eq!(
            mate_pv_problem(&board, Score::Mate(1), &pv("h5h7"), false).as_deref(),
            Some("mating PV does not end with checkmate")
        );
        assert_eq!(mate_pv_problem(&board, Score::Cp(900), &pv(""), false), None);
    }

    #[test]
    fn limits_are_described_as_fastchess_does() {
        let tc = matchcore::timecontrol::parse("40/60+0.6").unwrap();
        let l = Limits {
            clock: tc,
            ..Limits::default()
        };
        assert_eq!(
            (l.describe(), l.pgn_time_control()),
            ("40/60+0.6".into(), "40/60+0.6".into())
        );
        let l = Limits {
            nodes: Some(5000),
            ..Limits::default()
        };
        assert_eq!(
            (l.describe(), l.pgn_time_control()),
            ("5000 nodes".into(), "-".into())
        );
        let l = Limits {
            depth: Some(9),
            movetime: Some(100),
            ..Limits::default()
        };
        assert_eq!(
            (l.describe(), l.pgn_time_control()),
            ("0.1/move".into(), "0.1/move".into())
        );
    }
}

//! One game between two engine processes: clock bookkeeping with a time margin, every move
//! checked for legality (Chess960 castling included) through movegen, game endings by the
//! rules (`Game::outcome_with_claims`), resign / draw / max-moves adjudication, and faults
//! turned into results: the engine that crashes, stalls, sends no move, plays an illegal
//! move or oversteps its time loses, with the reason recorded. A flag-fall against a side
//! that cannot mate is a draw.

use crate::engine_process::{EngineFault, EngineProcess};
use movegen::pgn::PgnGame;
use movegen::{Board, Color, Game, Move, Outcome};
use std::time::Duration;

/// How long each move may take.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    /// Base time and increment in milliseconds.
    pub clock: Option<(u64, u64)>,
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
    /// Fixed time per move in milliseconds.
    pub movetime: Option<u64>,
    /// Grace before a late move loses on time, in milliseconds.
    pub time_margin: u64,
}

impl Limits {
    /// The PGN `TimeControl` value.
    pub fn pgn_time_control(&self) -> String {
        match (self.clock, self.movetime) {
            (Some((base, inc)), _) => {
                let secs = |ms: u64| {
                    let s = format!("{:.3}", ms as f64 / 1000.0);
                    s.trim_end_matches('0').trim_end_matches('.').to_string()
                };
                if inc > 0 {
                    format!("{}+{}", secs(base), secs(inc))
                } else {
                    secs(base)
                }
            }
            (None, Some(ms)) => format!("{}/move", ms as f64 / 1000.0),
            _ => "-".to_string(),
        }
    }
}

/// Adjudication rules.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Adjudication {
    /// (movecount, score): a side whose own score is <= -score for movecount consecutive
    /// moves resigns.
    pub resign: Option<(u32, i32)>,
    /// (movenumber, movecount, score): from move `movenumber`, |score| <= score for
    /// movecount consecutive moves of both sides is a draw (captures and pawn moves reset).
    pub draw: Option<(u32, u32, i32)>,
    /// A game still going after this many full moves is a draw.
    pub max_moves: Option<u32>,
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
}

impl GameResult {
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

/// A finished game.
#[derive(Debug)]
pub struct FinishedGame {
    pub pgn: PgnGame,
    pub result: GameResult,
    /// Human-readable reason, e.g. "White mates", "Black loses on time".
    pub reason: String,
    /// PGN `Termination`: normal, adjudication, time forfeit, illegal move, abandoned.
    pub termination: &'static str,
    /// The side whose engine faulted (crash, stall, protocol, illegal move), if any; its
    /// process should be restarted.
    pub faulted: Option<Color>,
}

/// An opening: a start position and book moves played from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    pub start: Board,
    pub moves: Vec<Move>,
}

/// Per-game settings.
#[derive(Clone, Debug, Default)]
pub struct GameSettings {
    pub limits: Limits,
    pub adjudication: Adjudication,
    pub chess960: bool,
    /// Extra PGN tags (Event, Site, Date, Round, ...).
    pub tags: Vec<(String, String)>,
}

fn position_command(game: &Game, chess960: bool) -> String {
    let start = game.start();
    let mut text = if *start == Board::startpos() {
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

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// Plays one game. `white` and `black` must be started; `stop` aborts between moves.
pub fn play_game(
    white: &mut EngineProcess,
    black: &mut EngineProcess,
    opening: &Opening,
    settings: &GameSettings,
    stop: &dyn Fn() -> bool,
) -> FinishedGame {
    let names = [white.config.name.clone(), black.config.name.clone()];
    let mut game = Game::new(opening.start);
    let mut pgn = PgnGame::new(opening.start);
    for &mv in &opening.moves {
        if game.play(mv).is_err() {
            break;
        }
        pgn.push(mv, Some("book".into()));
    }
    let limits = &settings.limits;
    let mut clocks = [limits.clock.map_or(0, |c| c.0); 2];
    let increment = limits.clock.map_or(0, |c| c.1);
    let mut resign_count = [0u32; 2];
    let mut draw_count = 0u32;

    let finish = |pgn: PgnGame, result, reason: String, termination, faulted| {
        (pgn, result, reason, termination, faulted)
    };
    let start_fault = |color: Color, fault: EngineFault| {
        (
            GameResult::win_for(!color),
            format!("{} {}", names[color.index()], fault),
            "abandoned",
            Some(color),
        )
    };
    // Both engines start a new game; a fault here loses the game.
    let mut early = None;
    if let Err(f) = white.new_game() {
        early = Some(start_fault(Color::White, f));
    } else if let Err(f) = black.new_game() {
        early = Some(start_fault(Color::Black, f));
    }

    let (pgn, result, reason, termination, faulted) =
        if let Some((result, reason, termination, faulted)) = early {
            finish(pgn, result, reason, termination, faulted)
        } else {
            loop {
                // Rules first: mate, stalemate, repetition, fifty moves, dead position.
                if let Some(outcome) = game.outcome_with_claims() {
                    let result = match outcome {
                        Outcome::Checkmate { winner } => GameResult::win_for(winner),
                        Outcome::Draw(_) => GameResult::Draw,
                    };
                    break finish(pgn, result, outcome.description().to_string(), "normal", None);
                }
                let board = *game.board();
                if let Some(max) = settings.adjudication.max_moves {
                    if u32::from(board.fullmove_number()) > max {
                        break finish(
                            pgn,
                            GameResult::Draw,
                            "Draw by max moves".into(),
                            "adjudication",
                            None,
                        );
                    }
                }
                if stop() {
                    break finish(pgn, GameResult::Draw, "Game aborted".into(), "unterminated", None);
                }
                let side = board.side_to_move();
                let engine: &mut EngineProcess = if side == Color::White {
                    &mut *white
                } else {
                    &mut *black
                };

                let mut go = String::from("go");
                let deadline;
                if let Some(_clock) = limits.clock {
                    go.push_str(&format!(
                        " wtime {} btime {} winc {increment} binc {increment}",
                        clocks[0], clocks[1]
                    ));
                    // Past the margin the move is late; a second more and the engine stalled.
                    deadline = Duration::from_millis(clocks[side.index()] + limits.time_margin + 1000);
                } else if let Some(ms) = limits.movetime {
                    go.push_str(&format!(" movetime {ms}"));
                    deadline = Duration::from_millis(ms + limits.time_margin + 1000);
                } else {
                    deadline = Duration::from_secs(60);
                }
                if let Some(n) = limits.nodes {
                    go.push_str(&format!(" nodes {n}"));
                }
                if let Some(d) = limits.depth {
                    go.push_str(&format!(" depth {d}"));
                }

                let reply = match engine.search(&position_command(&game, settings.chess960), &go, deadline) {
                    Ok(reply) => reply,
                    Err(EngineFault::Timeout(_)) if limits.clock.is_some() => {
                        let (result, reason) = flag_fall(&board, side, &names);
                        let reason = format!("{} stalled: {reason}", names[side.index()]);
                        break finish(pgn, result, reason, "time forfeit", Some(side));
                    }
                    Err(fault) => {
                        break finish(
                            pgn,
                            GameResult::win_for(!side),
                            format!("{} {}", names[side.index()], fault),
                            "abandoned",
                            Some(side),
                        );
                    }
                };

                // Clock bookkeeping.
                if limits.clock.is_some() {
                    let remaining = clocks[side.index()] as i64 - reply.elapsed_ms as i64;
                    if remaining < -(limits.time_margin as i64) {
                        let (result, reason) = flag_fall(&board, side, &names);
                        break finish(pgn, result, reason, "time forfeit", None);
                    }
                    clocks[side.index()] = (remaining.max(0) as u64) + increment;
                } else if let Some(ms) = limits.movetime {
                    if reply.elapsed_ms > ms + limits.time_margin {
                        let (result, reason) = flag_fall(&board, side, &names);
                        break finish(pgn, result, reason, "time forfeit", None);
                    }
                }

                let mv = match board.parse_uci(&reply.bestmove) {
                    Ok(mv) => mv,
                    Err(_) => {
                        let text: String = reply.bestmove.chars().take(20).collect();
                        break finish(
                            pgn,
                            GameResult::win_for(!side),
                            format!("{} plays an illegal move: {text}", names[side.index()]),
                            "illegal move",
                            Some(side),
                        );
                    }
                };

                let comment = match reply.score {
                    Some(score) => {
                        let text = match score {
                            crate::engine_process::Score::Cp(cp) => format!("{:+.2}", cp as f64 / 100.0),
                            crate::engine_process::Score::Mate(m) if m > 0 => format!("+M{m}"),
                            crate::engine_process::Score::Mate(m) => format!("-M{}", -m),
                        };
                        format!(
                            "{text}/{} {:.3}s",
                            reply.depth.unwrap_or(0),
                            reply.elapsed_ms as f64 / 1000.0
                        )
                    }
                    None => format!("{:.3}s", reply.elapsed_ms as f64 / 1000.0),
                };
                let irreversible =
                    board.is_capture(mv) || board.piece_type_on(mv.from()) == Some(movegen::PieceType::Pawn);
                game.play_unchecked(mv);
                pgn.push(mv, Some(comment));

                // Adjudication by scores.
                let cp = reply.score.map(|s| s.as_cp());
                if let (Some((count, score)), Some(cp)) = (settings.adjudication.resign, cp) {
                    let c = &mut resign_count[side.index()];
                    *c = if cp <= -score { *c + 1 } else { 0 };
                    if *c >= count {
                        break finish(
                            pgn,
                            GameResult::win_for(!side),
                            format!("{} resigns", color_name(side)),
                            "adjudication",
                            None,
                        );
                    }
                }
                if let Some((move_number, count, score)) = settings.adjudication.draw {
                    let quiet = cp.is_some_and(|cp| cp.abs() <= score) && !irreversible;
                    draw_count = if quiet && u32::from(board.fullmove_number()) >= move_number {
                        draw_count + 1
                    } else {
                        0
                    };
                    if draw_count >= 2 * count {
                        break finish(
                            pgn,
                            GameResult::Draw,
                            "Draw by adjudication".into(),
                            "adjudication",
                            None,
                        );
                    }
                }
            }
        };

    let mut pgn = pgn;
    for (k, v) in &settings.tags {
        pgn.set_tag(k, v);
    }
    pgn.set_tag("White", &names[0]);
    pgn.set_tag("Black", &names[1]);
    pgn.set_tag("Result", result.pgn());
    if settings.chess960 {
        pgn.set_tag("Variant", "Chess960");
    }
    if *game.start() != Board::startpos() {
        pgn.set_tag("SetUp", "1");
        pgn.set_tag("FEN", &game.start().to_fen());
    }
    pgn.set_tag("TimeControl", &settings.limits.pgn_time_control());
    pgn.set_tag("PlyCount", &game.moves().len().to_string());
    pgn.set_tag("Termination", termination);
    pgn.result = result.pgn().to_string();
    // The reason goes after the last move as part of its comment.
    if let Some(Some(last)) = pgn.comments.last_mut() {
        last.push_str(&format!(", {reason}"));
    } else if let Some(last) = pgn.comments.last_mut() {
        *last = Some(reason.clone());
    }
    FinishedGame {
        pgn,
        result,
        reason,
        termination,
        faulted,
    }
}

/// The result when `side`'s flag falls: a loss, or a draw if the opponent cannot mate.
fn flag_fall(board: &Board, side: Color, names: &[String; 2]) -> (GameResult, String) {
    if board.can_mate(!side) {
        (
            GameResult::win_for(!side),
            format!("{} loses on time", names[side.index()]),
        )
    } else {
        (
            GameResult::Draw,
            format!(
                "{} loses on time, but the opponent cannot mate: draw",
                names[side.index()]
            ),
        )
    }
}

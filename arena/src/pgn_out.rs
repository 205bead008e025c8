//! PGN and EPD output of finished games, as fastchess writes them (`-pgnout`, `-epdout`).
//!
//! Tags: the seven-tag roster with the players' configured names, then (unless `min=true`)
//! the engines' own `id name`/`id author` (`EngineWhiteName`, ...), `SetUp`/`FEN` for a
//! game that does not start from the standard position (or any Chess960 game), `Variant`,
//! and `GameDuration` (`HH:MM:SS`), `GameStartTime`/`GameEndTime` (ISO 8601, UTC),
//! `PlyCount`, `Termination` and `TimeControl` (or `WhiteTimeControl`/`BlackTimeControl`
//! when the sides differ). Moves are in SAN, LAN (`Ng1-f3` style without the dash:
//! `Ng1f3`, `e4xd5`) or UCI (`notation=`). Each engine move carries a comment
//! `{score/depth time}` (`+0.25/12 0.123s`; mates in plies, `+M5`), then the `-pgnout`
//! extras that are on, in fastchess's order (`tl=`, `latency=`, `n=`, `sd=`, `nps=`,
//! `hashfull=`, `tbhits=`, `pv="..."`, `line="..."`), then, after the last move, the reason
//! the game ended; book moves are `{book}`. `min=true` writes the roster (plus `SetUp`/`FEN`)
//! and bare moves. Games are separated by a blank line, movetext is wrapped under 80
//! columns, and each comment stays on one line, so OpenBench's reader (tags, blank line,
//! moves, blank line) takes every game.
//!
//! EPD output is the final position of each game, one FEN per line.

use crate::play::{score_text, FinishedGame, MoveRecord};
use movegen::pgn::{comment_token, write_movetext, write_tags};
use movegen::{Board, Color, Move, PieceType};
use std::time::{Duration, SystemTime};

/// Move notation in the PGN.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Notation {
    /// Standard algebraic notation (`Nf3`).
    #[default]
    San,
    /// Long algebraic notation (`Ng1f3`, `Nb1xd2`, `e7e8=Q`).
    Lan,
    /// UCI coordinates (`g1f3`).
    Uci,
}

/// What `-pgnout` writes besides the moves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnOptions {
    /// The move notation (`notation=`).
    pub notation: Notation,
    /// Add each move's node count (`n=`).
    pub nodes: bool,
    /// Add its selective depth (`sd=`).
    pub seldepth: bool,
    /// Add its nodes per second (`nps=`).
    pub nps: bool,
    /// Add the hash fill, in permille (`hashfull=`).
    pub hashfull: bool,
    /// Add tablebase hits (`tbhits=`).
    pub tbhits: bool,
    /// Add the principal variation (`pv=`).
    pub pv: bool,
    /// Add the clock after the move (`tl=`).
    pub timeleft: bool,
    /// Add the latency: measured time minus the engine's reported time (`latency=`).
    pub latency: bool,
    /// Write only the seven standard tags and bare moves, no comments (`min=true`).
    pub min: bool,
}

/// The tags a game gets from the tournament.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameTags {
    /// The `Event` tag.
    pub event: String,
    /// The `Site` tag.
    pub site: String,
    /// The `Round` tag: the game's round, 1-based.
    pub round: u64,
}

fn unix_seconds(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `YYYY.MM.DD` (UTC), the PGN `Date`.
pub fn pgn_date(t: SystemTime) -> String {
    let (y, m, d) = output::civil_from_days((unix_seconds(t) / 86_400) as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

/// `YYYY-MM-DDTHH:MM:SS +0000` (UTC).
pub fn iso_time(t: SystemTime) -> String {
    let secs = unix_seconds(t);
    let (y, m, d) = output::civil_from_days((secs / 86_400) as i64);
    let s = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02} +0000",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// `HH:MM:SS`.
pub fn hms(d: Duration) -> String {
    let s = d.as_secs();
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// Long algebraic notation: piece, from, `x` for a capture, to, promotion, check mark.
fn lan(board: &Board, mv: Move) -> String {
    let san = board.to_san(mv);
    if board.is_castling(mv) {
        return san;
    }
    let suffix: String = san.chars().filter(|c| matches!(c, '+' | '#')).collect();
    let mut text = String::new();
    match board.piece_type_on(mv.from()) {
        Some(PieceType::Pawn) | None => {}
        Some(p) => text.push(p.to_char().to_ascii_uppercase()),
    }
    text.push_str(&mv.from().to_string());
    if board.is_capture(mv) {
        text.push('x');
    }
    text.push_str(&mv.to().to_string());
    if let Some(p) = mv.promotion() {
        text.push('=');
        text.push(p.to_char().to_ascii_uppercase());
    }
    text + &suffix
}

fn seconds(ms: u64) -> String {
    format!("{:.3}s", ms as f64 / 1000.0)
}

/// The comment of one engine move, without the game's end.
fn move_comment(record: &MoveRecord, options: &PgnOptions) -> String {
    let mut parts = vec![format!(
        "{}/{} {}",
        record.reply.score.map_or(String::new(), score_text),
        record.reply.depth.unwrap_or(0),
        seconds(record.reply.elapsed_ms)
    )];
    if options.timeleft {
        parts.push(format!("tl={}", seconds(record.time_left_ms.unwrap_or(0))));
    }
    if options.latency {
        let ms = record.latency_ms().unwrap_or(0);
        let sign = if ms < 0 { "-" } else { "" };
        parts.push(format!("latency={sign}{}", seconds(ms.unsigned_abs())));
    }
    if options.nodes {
        parts.push(format!("n={}", record.reply.nodes.unwrap_or(0)));
    }
    if options.seldepth {
        parts.push(format!("sd={}", record.reply.seldepth.unwrap_or(0)));
    }
    if options.nps {
        parts.push(format!("nps={}", record.reply.nps.unwrap_or(0)));
    }
    if options.hashfull {
        parts.push(format!("hashfull={}", record.reply.hashfull.unwrap_or(0)));
    }
    if options.tbhits {
        parts.push(format!("tbhits={}", record.reply.tbhits.unwrap_or(0)));
    }
    if options.pv {
        parts.push(format!("pv=\"{}\"", record.reply.pv.join(" ")));
    }
    for line in &record.reply.matched_lines {
        parts.push(format!("line=\"{}\"", line.replace('"', "'")));
    }
    parts.join(", ")
}

/// One game as PGN text, ending with a blank line.
pub fn write_game(game: &FinishedGame, tags: &GameTags, options: &PgnOptions) -> String {
    let result = game.result.pgn();
    let mut list: Vec<(&str, String)> = vec![
        ("Event", tags.event.clone()),
        ("Site", tags.site.clone()),
        ("Date", pgn_date(game.started)),
        ("Round", tags.round.to_string()),
        ("White", game.white.name.clone()),
        ("Black", game.black.name.clone()),
        ("Result", result.to_string()),
    ];
    if !options.min {
        for (tag, value) in [
            ("EngineWhiteName", &game.white.uci_name),
            ("EngineWhiteAuthor", &game.white.uci_author),
            ("EngineBlackName", &game.black.uci_name),
            ("EngineBlackAuthor", &game.black.uci_author),
        ] {
            if let Some(v) = value {
                list.push((tag, v.clone()));
            }
        }
    }
    if game.start != Board::startpos() || game.chess960 {
        list.push(("SetUp", "1".into()));
        list.push(("FEN", game.start.to_fen()));
    }
    if game.chess960 {
        list.push(("Variant", "Chess960".into()));
    }
    if !options.min {
        list.push(("GameDuration", hms(game.duration)));
        list.push(("GameStartTime", iso_time(game.started)));
        list.push(("GameEndTime", iso_time(game.started + game.duration)));
        list.push(("PlyCount", game.moves.len().to_string()));
        list.push(("Termination", game.termination.to_string()));
        if game.time_controls[0] == game.time_controls[1] {
            list.push(("TimeControl", game.time_controls[0].clone()));
        } else {
            list.push(("WhiteTimeControl", game.time_controls[0].clone()));
            list.push(("BlackTimeControl", game.time_controls[1].clone()));
        }
    }
    let mut out = String::new();
    write_tags(&mut out, &list);

    let end_comment = match &game.illegal_move {
        Some(mv) if game.reason.ends_with(mv.as_str()) => game.reason.clone(),
        Some(mv) => format!("{}: {mv}", game.reason),
        None => game.reason.clone(),
    };
    let mut tokens: Vec<String> = Vec::new();
    let mut board = game.start;
    let count = game.moves.len();
    if count == 0 && !options.min {
        tokens.push(comment_token(&end_comment));
    }
    let mut after_comment = false;
    for (i, record) in game.moves.iter().enumerate() {
        let Some(mv) = record.mv else { continue };
        let number = board.fullmove_number();
        if board.side_to_move() == Color::White {
            tokens.push(format!("{number}."));
        } else if i == 0 || after_comment {
            tokens.push(format!("{number}..."));
        }
        tokens.push(match options.notation {
            Notation::San => board.to_san(mv),
            Notation::Lan => lan(&board, mv),
            Notation::Uci => board.to_uci(mv, game.chess960),
        });
        after_comment = false;
        if !options.min {
            let mut comment = if record.book {
                "book".to_string()
            } else {
                move_comment(record, options)
            };
            if i + 1 == count {
                comment.push_str(", ");
                comment.push_str(&end_comment);
            }
            tokens.push(comment_token(&comment));
            after_comment = true;
        }
        board.play(mv);
    }
    tokens.push(result.to_string());
    write_movetext(&mut out, &tokens);
    out
}

/// The final position of a game as an EPD line.
pub fn write_epd(game: &FinishedGame) -> String {
    format!("{}\n", game.end.to_fen())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine_process::{Score, SearchReply};
    use crate::play::{GameResult, PlayerInfo};

    fn game(moves: &[(&str, bool)]) -> FinishedGame {
        let mut board = Board::startpos();
        let mut records = Vec::new();
        for &(text, book) in moves {
            let mv = board.parse_uci(text).unwrap();
            board.play(mv);
            records.push(MoveRecord {
                mv: Some(mv),
                book,
                reply: SearchReply {
                    score: (!book).then_some(Score::Cp(31)),
                    depth: Some(7),
                    seldepth: Some(11),
                    nodes: Some(1234),
                    nps: Some(99),
                    hashfull: Some(5),
                    tbhits: Some(0),
                    pv: vec![text.to_string()],
                    elapsed_ms: 125,
                    // 2 ms more than arena measured: a latency of -2 ms.
                    time_ms: Some(127),
                    matched_lines: vec!["info string pgncomment hi".into()],
                    ..SearchReply::default()
                },
                time_left_ms: Some(7955),
            });
        }
        FinishedGame {
            start: Board::startpos(),
            moves: records,
            end: board,
            illegal_move: None,
            result: GameResult::Draw,
            reason: "Draw by adjudication".into(),
            termination: matchcore::termination::Termination::Adjudication,
            faulted: None,
            white: PlayerInfo {
                name: "new".into(),
                uci_name: Some("Luft 0.1".into()),
                uci_author: None,
            },
            black: PlayerInfo {
                name: "base".into(),
                ..PlayerInfo::default()
            },
            time_controls: ["8+0.08".into(), "8+0.08".into()],
            chess960: false,
            started: SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000),
            duration: Duration::from_secs(3725),
        }
    }

    #[test]
    fn a_game_with_every_extra() {
        let g = game(&[("e2e4", true), ("e7e5", false), ("g1f3", false)]);
        let options = PgnOptions {
            nodes: true,
            seldepth: true,
            nps: true,
            hashfull: true,
            tbhits: true,
            pv: true,
            timeleft: true,
            latency: true,
            ..PgnOptions::default()
        };
        let tags = GameTags {
            event: "ev".into(),
            site: "here".into(),
            round: 3,
        };
        let text = write_game(&g, &tags, &options);
        // Every game is: tags, a blank line, movetext without blank lines, a blank line.
        let blocks: Vec<&str> = text.trim_end().split("\n\n").collect();
        assert_eq!(blocks.len(), 2);
        assert!(text.lines().all(|l| l.len() < 80 || l.starts_with('{')), "{text}");
        let text = format!("{}\n\n{}\n\n", blocks[0], blocks[1].replace('\n', " "));
        assert!(
            text.starts_with(
                "[Event \"ev\"]\n[Site \"here\"]\n[Date \"2023.11.14\"]\n[Round \"3\"]\n[White \"new\"]\n\
             [Black \"base\"]\n[Result \"1/2-1/2\"]\n[EngineWhiteName \"Luft 0.1\"]\n\
             [GameDuration \"01:02:05\"]\n[GameStartTime \"2023-11-14T22:13:20 +0000\"]\n\
             [GameEndTime \"2023-11-14T23:15:25 +0000\"]\n[PlyCount \"3\"]\n[Termination \"adjudication\"]\n\
             [TimeControl \"8+0.08\"]\n\n1. e4 {book} 1... e5 {+0.31/7 0.125s, tl=7.955s, latency=-0.002s, \
             n=1234,"
            ),
            "{text}"
        );
        assert!(text.contains(
            "sd=11, nps=99, hashfull=5, tbhits=0, pv=\"e7e5\", line=\"info string pgncomment hi\"}"
        ));
        assert!(text.ends_with(", Draw by adjudication} 1/2-1/2\n\n"), "{text}");
    }

    #[test]
    fn notations_and_min() {
        let g = game(&[("e2e4", false), ("d7d5", false), ("e4d5", false), ("g8f6", false)]);
        let uci = PgnOptions {
            notation: Notation::Uci,
            min: true,
            ..PgnOptions::default()
        };
        let text = write_game(&g, &GameTags::default(), &uci);
        assert!(
            text.ends_with("\n\n1. e2e4 d7d5 2. e4d5 g8f6 1/2-1/2\n\n"),
            "{text}"
        );
        assert!(!text.contains("PlyCount"));
        let lan = PgnOptions {
            notation: Notation::Lan,
            min: true,
            ..PgnOptions::default()
        };
        let text = write_game(&g, &GameTags::default(), &lan);
        assert!(
            text.ends_with("1. e2e4 d7d5 2. e4xd5 Ng8f6 1/2-1/2\n\n"),
            "{text}"
        );
        assert_eq!(write_epd(&g), format!("{}\n", g.end.to_fen()));
    }
}

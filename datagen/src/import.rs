//! `datagen import-pgn FILE.pgn... (--out DIR | --gen NAME)`: games played elsewhere, with
//! each move's score in its comment, turned into datagen data files, so that `stats`,
//! `verify`, the trainer and the `learn` loop read them like self-play. This is the way back
//! from distributed self-play: OpenBench's DATAGEN workloads (fastchess or arena games from
//! `luft genfens` openings) upload PGNs, and the developer turns them into training data.
//!
//! Comments are read as fastchess, arena and OpenBench write them: the first
//! `SCORE/DEPTH` in the comment (a move's several comments are read as one, in order, so
//! the first comment's score wins), SCORE in pawns with decimals from the mover's view (`+0.35/12 0.123s,
//! n=1234, sd=15`, OpenBench's compact `+0.35/12`), or a mate in plies (`+M5/20` mates,
//! `-M4/18` is mated). `{book}` moves, moves without a comment or with none of these
//! (`{unknown}`) have no score. Each score becomes White's centipawns (a mate in n plies is
//! `±(31000 - n)`, as the engine scores it, in the training filter's mate band); `n=NODES`
//! is kept as the game's node count when every scored move has one.
//!
//! Each game's record starts at its first scored move after the book (the moves before it
//! are played onto the start position, from the `FEN` tag or the standard one; Chess960
//! castling from X-FEN or Shredder-FEN is the board's own), and every later move without a
//! score is marked [`records::record::NO_SCORE`], which the training filter rejects. The
//! result comes from the `Result` tag (the movetext's result without one); an unfinished
//! game (`*`), a game without a scored move and a game whose movetext cannot be read
//! (an illegal move, say) are skipped and counted, each unreadable one with its reason.
//!
//! Each PGN becomes one data file, `import-<name>.bin` in the output directory, one game a
//! chunk (the container datagen writes, version 3), its settings header saying where the
//! games came from: the generator `luft-datagen VERSION import-pgn`, the PGN's file name as
//! the net source and the book, and Chess960 start positions when the games are Chess960.
//! The directory is locked as generation locks it; a new import of a PGN replaces its file.

use anyhow::{bail, Context, Result};
use datagen::store::{self, DirLock};
use movegen::openings::StartPositions;
use movegen::pgn::{parse_pgn, PgnGame};
use movegen::Color;
use records::record::{encode_chunk, encode_header, GameRecord, GenHeader, Wdl, NO_SCORE};
use std::path::{Path, PathBuf};

/// The value of mating at once, as the engine scores mates (`engine::Score::MATE`).
const MATE: i32 = engine::Score::MATE;
/// Centipawn scores are kept below the mates.
const MAX_CP: i32 = 29_999;

/// What a move's comment says about its score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MoveScore {
    /// A book move (`{book}`).
    Book,
    /// No score (no comment, `{unknown}`, nothing that reads as one).
    None,
    /// The mover's score in centipawns (a mate as `±(MATE - plies)`), and the node count
    /// when the comment has one.
    Scored {
        /// The score from the mover's view.
        mover: i32,
        /// `n=NODES`, if given.
        nodes: Option<u64>,
    },
}

/// Reads a move's comment (see the module notes).
pub(crate) fn parse_comment(comment: Option<&str>) -> MoveScore {
    let Some(text) = comment.map(str::trim) else {
        return MoveScore::None;
    };
    if text.eq_ignore_ascii_case("book") {
        return MoveScore::Book;
    }
    let mut score = None;
    let mut nodes = None;
    for token in text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
    {
        if score.is_none() {
            score = score_token(token);
        }
        if nodes.is_none() {
            nodes = token.strip_prefix("n=").and_then(|n| n.parse::<u64>().ok());
        }
    }
    match score {
        Some(mover) => MoveScore::Scored { mover, nodes },
        None => MoveScore::None,
    }
}

/// `SCORE/DEPTH`: `+0.35/12`, `-1.20/8`, `0.00/1`, `+M5/20`, `-M4/3`; the mover's score.
fn score_token(token: &str) -> Option<i32> {
    let (score, depth) = token.split_once('/')?;
    if depth.is_empty() || !depth.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (negative, magnitude) = match score.as_bytes().first()? {
        b'+' => (false, &score[1..]),
        b'-' => (true, &score[1..]),
        _ => (false, score),
    };
    let value = if let Some(plies) = magnitude.strip_prefix('M') {
        if plies.is_empty() || !plies.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let plies: i32 = plies.parse::<u16>().ok()?.into();
        MATE - plies.min(1000)
    } else {
        // Pawns with their decimals, as every writer prints them (`0.35`, `-12.00`).
        let ok = magnitude.bytes().all(|b| b.is_ascii_digit() || b == b'.')
            && magnitude.bytes().filter(|&b| b == b'.').count() == 1
            && magnitude.bytes().next().is_some_and(|b| b.is_ascii_digit())
            && magnitude.bytes().last().is_some_and(|b| b.is_ascii_digit());
        if !ok {
            return None;
        }
        let pawns: f64 = magnitude.parse().ok()?;
        ((pawns * 100.0).round() as i64).min(i64::from(MAX_CP)) as i32
    };
    Some(if negative { -value } else { value })
}

/// Why a game is not imported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Skip {
    /// Its result is `*` (or missing).
    Unfinished,
    /// No move has a score.
    NoScores,
}

/// A game turned into a record, with the node count of its moves when every scored move
/// gave one.
pub(crate) fn record_of(game: &PgnGame) -> Result<(GameRecord, Option<u64>), Skip> {
    let result = match game.tag("Result").unwrap_or(game.result.as_str()) {
        "1-0" => Wdl::WhiteWins,
        "0-1" => Wdl::BlackWins,
        "1/2-1/2" => Wdl::Draw,
        _ => return Err(Skip::Unfinished),
    };
    let scores: Vec<MoveScore> = (0..game.moves.len())
        .map(|i| parse_comment(game.comments.get(i).and_then(|c| c.as_deref())))
        .collect();
    let first = scores
        .iter()
        .position(|s| matches!(s, MoveScore::Scored { .. }))
        .ok_or(Skip::NoScores)?;
    let mut board = game.start;
    for &mv in &game.moves[..first] {
        board.play(mv);
    }
    let start = board;
    let mut moves = Vec::with_capacity(game.moves.len() - first);
    let mut nodes = Some(0u64);
    for (&mv, score) in game.moves[first..].iter().zip(&scores[first..]) {
        let white = match *score {
            MoveScore::Scored { mover, nodes: n } => {
                nodes = nodes.zip(n).map(|(a, b)| a.saturating_add(b));
                let white = if board.side_to_move() == Color::White {
                    mover
                } else {
                    -mover
                };
                white.clamp(-i32::from(i16::MAX) + 1, i32::from(i16::MAX) - 1) as i16
            }
            MoveScore::Book | MoveScore::None => NO_SCORE,
        };
        moves.push((mv, white));
        board.play(mv);
    }
    let start_eval = moves[0].1;
    Ok((
        GameRecord {
            start,
            start_eval,
            result,
            moves,
        },
        nodes,
    ))
}

/// The games of a PGN text one by one, each with the line it starts on: a game starts at a
/// tag line after movetext (as every PGN writer separates them), so that one game that
/// cannot be read costs only itself.
pub(crate) fn split_games(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut in_movetext = false;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start_matches('\u{feff}').trim();
        let is_tag = trimmed.starts_with('[');
        if out.is_empty() || (is_tag && in_movetext) {
            if trimmed.is_empty() && out.is_empty() {
                continue;
            }
            out.push((i + 1, String::new()));
            in_movetext = false;
        }
        if !is_tag && !trimmed.is_empty() {
            in_movetext = true;
        }
        if let Some((_, game)) = out.last_mut() {
            game.push_str(line);
            game.push('\n');
        }
    }
    out
}

/// What one PGN gave.
#[derive(Debug, Default)]
pub(crate) struct Imported {
    /// The games kept, with their node counts.
    pub games: Vec<(GameRecord, Option<u64>)>,
    /// Games skipped as unfinished.
    pub unfinished: u64,
    /// Games skipped without a scored move.
    pub unscored: u64,
    /// Games that could not be read, with the reason.
    pub unreadable: Vec<String>,
    /// Whether any game is Chess960 (a `Variant` tag saying so).
    pub chess960: bool,
}

/// Reads every game of a PGN text.
pub(crate) fn import_text(text: &str) -> Imported {
    let mut out = Imported::default();
    for (n, (line, game_text)) in split_games(text).into_iter().enumerate() {
        let games = match parse_pgn(&game_text) {
            Ok(games) => games,
            Err(e) => {
                out.unreadable.push(format!(
                    "game {} (line {}): {}",
                    n + 1,
                    line + e.line.saturating_sub(1),
                    e.message
                ));
                continue;
            }
        };
        for game in games {
            if game.tag("Variant").is_some_and(|v| {
                matches!(
                    v.to_ascii_lowercase().as_str(),
                    "chess960" | "fischerandom" | "960"
                )
            }) {
                out.chess960 = true;
            }
            match record_of(&game) {
                Ok(record) => out.games.push(record),
                Err(Skip::Unfinished) => out.unfinished += 1,
                Err(Skip::NoScores) => out.unscored += 1,
            }
        }
    }
    out
}

/// The settings header of an imported file: where its games came from.
fn import_header(pgn: &Path, chess960: bool) -> GenHeader {
    let name = datagen::file_name(pgn);
    GenHeader {
        generator: format!("luft-datagen {} import-pgn", env!("CARGO_PKG_VERSION")),
        net_source: format!("pgn {name}"),
        book: format!("pgn {name}"),
        start_positions: if chess960 {
            StartPositions::Chess960
        } else {
            StartPositions::Classical
        },
        ..GenHeader::default()
    }
}

/// The data file a PGN is imported into: `import-<stem>.bin` in `dir`.
fn output_name(dir: &Path, pgn: &Path) -> PathBuf {
    let stem = pgn
        .file_stem()
        .map_or_else(|| "games".to_string(), |s| s.to_string_lossy().into_owned());
    dir.join(format!("import-{stem}.bin"))
}

/// `datagen import-pgn`: each PGN into its data file in `dir` (see the module notes).
pub fn import_pgn(pgns: &[PathBuf], dir: &Path) -> Result<i32> {
    if pgns.is_empty() {
        bail!("give at least one PGN file");
    }
    let mut outputs = Vec::new();
    for pgn in pgns {
        if pgn.is_dir() {
            bail!("{} is a directory; give PGN files", pgn.display());
        }
        let out = output_name(dir, pgn);
        if outputs.iter().any(|(_, o)| o == &out) {
            bail!(
                "two PGNs would be imported into {} (their names are alike); import them apart, \
                 into other directories",
                out.display()
            );
        }
        outputs.push((pgn.clone(), out));
    }
    let created = !dir.exists();
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let lock = DirLock::acquire(dir)?;
    let result = import_into(&outputs, dir);
    // A directory this import made and wrote nothing into (an unreadable PGN, no game with
    // scores) is taken away again, lock and all, so a failed import leaves nothing behind.
    if created && result.as_ref().map_or(true, |&games| games == 0) {
        let lock_path = lock.path.clone();
        drop(lock);
        let only_the_lock = std::fs::read_dir(dir)
            .map(|entries| entries.flatten().all(|e| e.path() == lock_path))
            .unwrap_or(false);
        if only_the_lock {
            let _ = std::fs::remove_file(&lock_path);
            let _ = std::fs::remove_dir(dir);
        }
    }
    Ok(if result? == 0 { 1 } else { 0 })
}

/// Imports each (PGN, data file) pair of `outputs` into `dir`, which the caller has locked.
/// Returns the number of games written. Errors: a PGN that cannot be read or is not UTF-8,
/// a data file that cannot be written.
fn import_into(outputs: &[(PathBuf, PathBuf)], dir: &Path) -> Result<u64> {
    let (mut games, mut positions, mut scored) = (0u64, 0u64, 0u64);
    for (pgn, out) in outputs {
        let bytes = std::fs::read(pgn).with_context(|| format!("cannot read {}", pgn.display()))?;
        let text = String::from_utf8(bytes).map_err(|_| {
            anyhow::anyhow!(
                "{} is not UTF-8 text (a compressed PGN? decompress it first)",
                pgn.display()
            )
        })?;
        let imported = import_text(&text);
        for why in &imported.unreadable {
            output::errln!("warning: {}: {why} (skipped)", pgn.display());
        }
        let mut file = encode_header(&import_header(pgn, imported.chess960));
        let (mut file_positions, mut file_scored) = (0u64, 0u64);
        for (seq, (game, nodes)) in imported.games.iter().enumerate() {
            encode_chunk(
                std::slice::from_ref(game),
                seq as u64,
                nodes.unwrap_or(0),
                &mut file,
            );
            file_positions += game.moves.len() as u64;
            file_scored += game.moves.iter().filter(|m| m.1 != NO_SCORE).count() as u64;
        }
        let kept = imported.games.len() as u64;
        if kept == 0 {
            output::errln!(
                "{}: no game with scores ({} unfinished, {} without scores, {} unreadable); nothing written",
                pgn.display(),
                imported.unfinished,
                imported.unscored,
                imported.unreadable.len()
            );
            continue;
        }
        store::create_file(out, &file)?;
        println!(
            "{}: {kept} games, {file_positions} positions ({file_scored} scored) -> {}; skipped {} unfinished, \
             {} without scores, {} unreadable",
            pgn.display(),
            out.display(),
            imported.unfinished,
            imported.unscored,
            imported.unreadable.len()
        );
        games += kept;
        positions += file_positions;
        scored += file_scored;
    }
    if games == 0 {
        // Nothing was written, so there is no directory to name (the caller says so).
        println!("imported no games");
    } else {
        println!(
            "imported {games} games, {positions} positions ({scored} scored) into {}",
            dir.display()
        );
    }
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_as_fastchess_arena_and_openbench_write_them() {
        let s = |c: &str| parse_comment(Some(c));
        let cp = |mover| MoveScore::Scored { mover, nodes: None };
        assert_eq!(s("book"), MoveScore::Book);
        assert_eq!(s(" book "), MoveScore::Book);
        assert_eq!(s("+0.35/12 0.123s"), cp(35));
        assert_eq!(
            s("-1.86/1 0.005s, n=33, sd=3"),
            MoveScore::Scored {
                mover: -186,
                nodes: Some(33)
            }
        );
        assert_eq!(s("+0.35/12"), cp(35), "OpenBench compact");
        assert_eq!(s("+0.35/12, line=eval 0.3"), cp(35));
        assert_eq!(s("0.00/1 0.001s"), cp(0));
        assert_eq!(s("+M5/20 0.1s"), cp(MATE - 5));
        assert_eq!(s("-M4/18"), cp(-(MATE - 4)));
        assert_eq!(
            s("-18.81/6 0.011s, n=605, sd=10, Black wins by adjudication"),
            MoveScore::Scored {
                mover: -1881,
                nodes: Some(605)
            }
        );
        assert_eq!(s("+900.00/3"), cp(MAX_CP), "kept below the mates");
        assert_eq!(s("unknown"), MoveScore::None);
        assert_eq!(s("White mates"), MoveScore::None);
        assert_eq!(s("1/2"), MoveScore::None);
        assert_eq!(s("12/3"), MoveScore::None, "pawns come with decimals");
        assert_eq!(s("+0.3x/4"), MoveScore::None);
        assert_eq!(s("+M/4"), MoveScore::None);
        assert_eq!(parse_comment(None), MoveScore::None);
    }

    /// A move with several comments (an engine's, then an annotation or a second tool's):
    /// the first `SCORE/DEPTH` is the move's score, as the docs say, never a later one.
    #[test]
    fn the_first_score_of_a_move_with_several_comments_is_taken() {
        let text = "[Event \"x\"]\n[Result \"1-0\"]\n\n1. e4 {+0.35/12 0.1s, n=100} {-2.00/3 0.0s, n=7} \
                    1... e5 {unknown} {-0.40/11 0.1s, n=90} 2. Nf3 {+0.30/10 0.1s, n=80} {a good move} 1-0\n";
        let imported = import_text(text);
        assert_eq!(imported.games.len(), 1);
        let (g, nodes) = &imported.games[0];
        let scores: Vec<i16> = g.moves.iter().map(|m| m.1).collect();
        assert_eq!(scores, [35, 40, 30], "White's view");
        assert_eq!(*nodes, Some(270));
    }

    #[test]
    fn games_split_at_tags_after_movetext() {
        let text = "\u{feff}[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n[Event \"b\"]\n\n1. d4 *\n";
        let games = split_games(text);
        assert_eq!(games.len(), 2);
        assert_eq!((games[0].0, games[1].0), (1, 6));
        assert!(games[1].1.starts_with("[Event \"b\"]"));
    }

    #[test]
    fn a_record_starts_at_the_first_scored_move_and_marks_the_rest() {
        let text = "[Event \"x\"]\n[Result \"0-1\"]\n\n1. e4 {book} 1... e5 {book} 2. Nf3 {+0.40/10 0.1s} \
                    2... Nc6 {-0.25/9} 3. Bb5 3... a6 {-M3/5} 0-1\n";
        let imported = import_text(text);
        assert_eq!(imported.games.len(), 1);
        let (g, nodes) = &imported.games[0];
        assert_eq!(*nodes, None);
        assert_eq!(g.result, Wdl::BlackWins);
        assert_eq!(
            g.start.to_fen(),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
        );
        let scores: Vec<i16> = g.moves.iter().map(|m| m.1).collect();
        assert_eq!(scores, [40, 25, NO_SCORE, (MATE - 3) as i16], "White's view");
        assert_eq!(g.start_eval, 40);
    }
}

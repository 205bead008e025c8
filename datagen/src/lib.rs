//! Self-play data generation (`docs/design/NNUE.md`): each thread plays whole games with its own
//! searcher and a small transposition table cleared every game, from an opening of the one
//! opening source shared with genfens (`movegen::openings::OpeningSource`: the start
//! position, a book line, or a random Chess960 / double-Chess960 position, plus 8 or 9
//! random plies) that the shared playability check (`engine::openings::OpeningCheck`: 1000
//! soft nodes) scores within ±1000 cp; game `i` of thread file `s` draws opening
//! `movegen::openings::opening_rng(seed, s, i)`. Moves are searched to a soft node limit (hard cap 8x,
//! the budget at most [`MAX_NODES`]); a [`SelfPlayer::stopper`] ends the search in progress
//! from another thread and gives up the game. Games end by the rules,
//! by adjudication (a win at |score| >= [`WIN_SCORE`] = 2000 for [`WIN_PLIES`] = 4 plies in
//! a row, a draw at |score| <= [`DRAW_SCORE`] = 5 for [`DRAW_PLIES`] = 12 plies from ply
//! [`DRAW_MIN_PLY`] = 40; off for a material-only net, whose scores mean little) or at
//! [`MAX_PLIES`] = 400 plies (a draw). Every one of these numbers is a field of
//! [`GenSettings`] and goes into each data file's header, where resuming checks them and
//! `datagen stats` shows them ([`adjudication_text`]; format 1 files, which did not record
//! the thresholds, were all made with these same defaults). With Syzygy tables
//! (`datagen --syzygy DIR`, [`SelfPlayer::set_tablebases`]) a game ends as soon as it
//! reaches a position the tables cover (right after a capture or a pawn move, where their
//! WDL is exact), with its true result under the 50-move rule; what the tables hold (their
//! WDL table count and piece count, not their folders) goes into the header (version 4). The
//! header names the net and the book by file name and fingerprint, never by folder, so the
//! same games played anywhere give the same bytes. Each game is appended to the thread's
//! file as its own checksummed chunk (`records::record`), so a kill loses at most the games
//! in flight and a rerun resumes; [`store`] keeps the files safe (directory lock, atomic
//! creation, repair that moves damage aside instead of deleting it).

#![warn(missing_docs)]

pub mod label_quality;
pub mod store;

use engine::openings::{draw_opening, OpeningCheck, CHECK_MAX_SCORE, CHECK_NODES, SELF_PLAY_HASH_MIB};
use engine::{hard_nodes_for, Limits, SearchStopper, Searcher, TtAllocError};
use movegen::openings::{NoPlayableOpening, OpeningSource, StartPositions};
use movegen::{Board, Color, Game, Outcome};
use nnue::Network;
use records::record::{GameRecord, GenHeader, Header, Wdl};
use std::sync::Arc;
use tablebase::Tablebases;

/// The transposition table of each self-play thread, in MiB (cleared every game): the
/// engine's self-play table, on which genfens checks its openings too.
pub const HASH_MIB: usize = SELF_PLAY_HASH_MIB;

/// Win adjudication: a game is won once the score is at least this many centipawns (for the
/// same side) ...
pub const WIN_SCORE: i32 = 2000;
/// ... for this many plies in a row.
pub const WIN_PLIES: usize = 4;
/// Draw adjudication: a game is drawn once |score| is at most this many centipawns ...
pub const DRAW_SCORE: i32 = 5;
/// ... for this many plies in a row ...
pub const DRAW_PLIES: usize = 12;
/// ... counting only from this ply (plies played since the opening).
pub const DRAW_MIN_PLY: usize = 40;
/// A game that reaches this many plies (after the opening) is a draw.
pub const MAX_PLIES: usize = 400;

/// The adjudication rules a data file's games were played under, as one line for `datagen
/// stats`: the thresholds a format 2 to 4 header records (and the Syzygy tables a format 4
/// header names, which end games by their result), or, for a format 1 file (which
/// records only whether adjudication was on), the defaults above, which every format 1
/// writer used.
pub fn adjudication_text(header: &Header) -> String {
    let rules = |on: bool, win: (u32, u32), draw: (u32, u32, u32), max: u32| {
        let end = format!("draw at {max} plies");
        if on {
            format!(
                "adjudication on (win at |score| >= {} cp for {} plies, draw at |score| <= {} cp \
                 for {} plies from ply {}), {end}",
                win.0, win.1, draw.0, draw.1, draw.2
            )
        } else {
            format!("adjudication off, {end}")
        }
    };
    match header {
        Header::V2(h) | Header::V3(h) | Header::V4(h) => {
            let text = rules(
                h.adjudicate,
                (h.win_score, h.win_plies),
                (h.draw_score, h.draw_plies, h.draw_min_ply),
                h.max_plies,
            );
            if h.syzygy.is_empty() {
                text
            } else {
                format!(
                    "{text}, games end at the first position of at most {} pieces with the Syzygy tables' result ({})",
                    h.syzygy_pieces, h.syzygy
                )
            }
        }
        Header::V1 { settings } => {
            let on = !settings.lines().any(|l| l.trim() == "adjudicate=false");
            let text = rules(
                on,
                (WIN_SCORE as u32, WIN_PLIES as u32),
                (DRAW_SCORE as u32, DRAW_PLIES as u32, DRAW_MIN_PLY as u32),
                MAX_PLIES as u32,
            );
            format!("{text} (format 1 records no thresholds: the defaults)")
        }
    }
}

/// Settings of one generation run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenSettings {
    /// Soft node limit per move (`engine::Limits::soft_nodes`).
    pub nodes: u64,
    /// Hard node limit per move.
    pub hard_nodes: u64,
    /// Random plies after the start position (this or one more, per game).
    pub random_plies: usize,
    /// The opening check: a search at these limits must score within `opening_max_score`.
    pub opening_nodes: u64,
    /// The opening check's hard node limit.
    pub opening_hard_nodes: u64,
    /// The largest opening score kept, centipawns (either side).
    pub opening_max_score: i32,
    /// Whether games end by adjudication (off for a material-only net).
    pub adjudicate: bool,
    /// A win at |score| >= `win_score` (centipawns) for `win_plies` plies in a row.
    pub win_score: i32,
    /// Plies in a row for a win.
    pub win_plies: usize,
    /// A draw at |score| <= `draw_score` for `draw_plies` plies from ply `draw_min_ply`.
    pub draw_score: i32,
    /// Plies in a row for a draw.
    pub draw_plies: usize,
    /// The first ply a draw may be adjudicated at.
    pub draw_min_ply: usize,
    /// Plies after which a game is a draw.
    pub max_plies: usize,
    /// Where games start without a book: the classical position, or a random Chess960 or
    /// double-Chess960 one (`--openings-960 frc|dfrc`), before the random plies.
    pub start_positions: StartPositions,
    /// The Syzygy tables that adjudicate (`--syzygy`): what was loaded
    /// (`records::record::syzygy_description`, not their folders), empty for none.
    pub syzygy: String,
    /// The most pieces of a position they cover (0 without tables).
    pub syzygy_pieces: u32,
}

/// The largest soft node budget a move may be given (`datagen --nodes`, `label-quality
/// --nodes` and `--reference`): 100,000,000 nodes, minutes of search a move on one core, with a
/// hard cap of [`engine::SOFT_NODES_HARD_FACTOR`] times it. A larger budget is refused, as one
/// no game could finish with.
pub const MAX_NODES: u64 = 100_000_000;

/// Most random plies after the start position (`datagen --random-plies`).
pub const MAX_RANDOM_PLIES: usize = 40;

/// Most self-play threads (`datagen --threads`).
pub const MAX_THREADS: usize = 256;

/// The soft node budget of the opening check (its hard limit: [`engine::hard_nodes_for`]),
/// the shared check's ([`engine::openings::CHECK_NODES`]).
pub const OPENING_NODES: u64 = CHECK_NODES;

impl GenSettings {
    /// The recipe of `docs/design/NNUE.md` at `nodes` soft nodes a move (hard limit
    /// [`engine::SOFT_NODES_HARD_FACTOR`] times that, the factor `UseSoftNodes` uses too),
    /// from the classical start position.
    pub fn new(nodes: u64, random_plies: usize, adjudicate: bool) -> GenSettings {
        GenSettings {
            nodes,
            hard_nodes: hard_nodes_for(nodes),
            random_plies,
            opening_nodes: OPENING_NODES,
            opening_hard_nodes: hard_nodes_for(OPENING_NODES),
            opening_max_score: CHECK_MAX_SCORE,
            adjudicate,
            win_score: WIN_SCORE,
            win_plies: WIN_PLIES,
            draw_score: DRAW_SCORE,
            draw_plies: DRAW_PLIES,
            draw_min_ply: DRAW_MIN_PLY,
            max_plies: MAX_PLIES,
            start_positions: StartPositions::Classical,
            syzygy: String::new(),
            syzygy_pieces: 0,
        }
    }
}

impl GenSettings {
    /// The opening source of these settings over `book` (empty: `start_positions`).
    pub fn opening_source(&self, book: &[Board]) -> OpeningSource {
        OpeningSource {
            book: book.to_vec(),
            start: self.start_positions,
            random_plies: self.random_plies,
        }
    }

    /// The playability check of these settings.
    pub fn opening_check(&self) -> OpeningCheck {
        OpeningCheck {
            soft_nodes: self.opening_nodes,
            hard_nodes: self.opening_hard_nodes,
            max_score: self.opening_max_score,
        }
    }

    /// `header` with every field these settings decide written into it: the node limits,
    /// the random plies, the opening check, adjudication, the ply cap and the start
    /// positions. The net, the
    /// book, the seed, the stream and the generator's name are the caller's.
    pub fn fill_header(&self, header: GenHeader) -> GenHeader {
        GenHeader {
            soft_nodes: self.nodes,
            hard_nodes: self.hard_nodes,
            random_plies: self.random_plies as u32,
            opening_soft_nodes: self.opening_nodes,
            opening_hard_nodes: self.opening_hard_nodes,
            opening_max_score: self.opening_max_score as u32,
            adjudicate: self.adjudicate,
            win_score: self.win_score as u32,
            win_plies: self.win_plies as u32,
            draw_score: self.draw_score as u32,
            draw_plies: self.draw_plies as u32,
            draw_min_ply: self.draw_min_ply as u32,
            max_plies: self.max_plies as u32,
            start_positions: self.start_positions,
            syzygy: self.syzygy.clone(),
            syzygy_pieces: self.syzygy_pieces,
            ..header
        }
    }
}

/// What a data file's header keeps of a file given on the command line (a net, a book, an
/// imported PGN): its file name, without the folder it lay in (`some/dir/x.nnue`: `x.nnue`),
/// so a header says the same wherever the run's files lay.
pub fn file_name(path: &std::path::Path) -> String {
    match path.file_name() {
        Some(name) => name.to_string_lossy().into_owned(),
        // A path ending in `..` names no file; keep its last part all the same.
        None => records::record::source_file_name(&path.to_string_lossy()).to_string(),
    }
}

pub use movegen::rng::SplitMix64 as Rng;

/// One thread's player: an `engine::Searcher`, reused for every move of every game.
pub struct SelfPlayer {
    searcher: Searcher,
    /// Tables that adjudicate games (`None`: games are played out).
    tables: Option<Arc<Tablebases>>,
}

impl std::fmt::Debug for SelfPlayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SelfPlayer")
    }
}

impl SelfPlayer {
    /// A player evaluating with `net`. Errors: its table cannot be allocated.
    pub fn new(net: Arc<Network>) -> Result<Self, TtAllocError> {
        Ok(SelfPlayer {
            searcher: Searcher::new(net, HASH_MIB)?,
            tables: None,
        })
    }

    /// Games end as soon as they reach a position `tables` cover, with its true result
    /// (`None`: played out). Record the tables in [`GenSettings::syzygy`] too.
    pub fn set_tablebases(&mut self, tables: Option<Arc<Tablebases>>) {
        self.tables = tables;
    }

    /// The result the tables give the game's position, when they adjudicate it: right after
    /// a capture or a pawn move (their WDL assumes a halfmove clock of 0), no castling
    /// rights, few enough pieces; cursed wins and blessed losses are draws.
    fn tablebase_result(&self, game: &Game) -> Option<Wdl> {
        let board = game.board();
        if board.halfmove_clock() != 0 {
            return None;
        }
        let tables = self.tables.as_ref()?;
        let probe = tables.probe_wdl(board);
        for path in tables.take_damaged() {
            output::errln!(
                "warning: Syzygy table {} is damaged: its probes answer unknown, games it would end \
                 are played out",
                path.display()
            );
        }
        let verdict = probe?.outcome(true);
        let mover_wins = match verdict {
            tablebase::Wdl::Win => true,
            tablebase::Wdl::Loss => false,
            _ => return Some(Wdl::Draw),
        };
        Some(if mover_wins == (board.side_to_move() == Color::White) {
            Wdl::WhiteWins
        } else {
            Wdl::BlackWins
        })
    }

    /// A handle that stops this player from another thread (a Ctrl-C): the search running
    /// answers at once, and [`SelfPlayer::play_game`] gives up the game in progress.
    pub fn stopper(&self) -> SearchStopper {
        self.searcher.stopper()
    }

    /// Whether a [`SelfPlayer::stopper`] was used.
    pub fn stopped(&self) -> bool {
        self.searcher.stopped()
    }

    /// Empties the searcher's table and histories, as at the start of every game.
    pub fn new_game(&mut self) {
        self.searcher.new_game();
    }

    /// Searches `board`, whose game so far had the positions with keys `history` (for
    /// repetitions), at a soft node budget of `soft` with a hard cap of `hard` nodes, exactly
    /// as every move of a self-play game is searched; returns the best move, its score for
    /// the side to move and the nodes used (`None`: no legal move). The table and histories
    /// carry over from the previous call (see [`SelfPlayer::new_game`]).
    pub fn search_position(
        &mut self,
        board: &Board,
        history: &[u64],
        soft: u64,
        hard: u64,
    ) -> Option<(movegen::Move, i32, u64)> {
        let limits = Limits {
            nodes: Some(hard),
            soft_nodes: Some(soft),
            ..Limits::default()
        };
        let result = self.searcher.search(board, history, &limits);
        Some((result.best_move?, result.score?.value(), result.nodes))
    }

    /// Searches `game`'s current position (see [`SelfPlayer::search_position`]).
    fn search(&mut self, game: &Game, soft: u64, hard: u64) -> Option<(movegen::Move, i32, u64)> {
        let positions = game.positions();
        let history: Vec<u64> = positions[..positions.len() - 1].iter().map(Board::hash).collect();
        self.search_position(game.board(), &history, soft, hard)
    }

    /// Plays one game from the opening `source` draws with `rng` (see
    /// [`GenSettings::opening_source`]; `rng` from `movegen::openings::opening_rng`), kept by
    /// `settings`' playability check, and returns it with the nodes it took (its opening
    /// checks' included). `None`: its [`SelfPlayer::stopper`] was used before the game
    /// ended, and the game cut short is given up (its moves were searched short). Errors:
    /// no playable opening among the candidates (never once stopped: that is `None`).
    pub fn play_game(
        &mut self,
        settings: &GenSettings,
        source: &OpeningSource,
        rng: &mut Rng,
    ) -> Result<Option<(GameRecord, u64)>, NoPlayableOpening> {
        let opening = match draw_opening(source, &settings.opening_check(), &mut self.searcher, rng) {
            _ if self.stopped() => return Ok(None),
            drawn => drawn?,
        };
        let mut total_nodes = opening.nodes;
        let white = if opening.game.board().side_to_move() == Color::White {
            opening.score
        } else {
            -opening.score
        };
        let (mut game, start_eval) = (Game::new(*opening.game.board()), white);
        self.searcher.new_game();

        let mut moves = Vec::new();
        let (mut win_plies, mut draw_plies) = (0usize, 0usize);
        let mut winner_sign = 0;
        let result = loop {
            if let Some(outcome) = game.outcome_with_claims() {
                break match outcome {
                    Outcome::Checkmate { winner: Color::White } => Wdl::WhiteWins,
                    Outcome::Checkmate { winner: Color::Black } => Wdl::BlackWins,
                    Outcome::Draw(_) => Wdl::Draw,
                };
            }
            if moves.len() >= settings.max_plies {
                break Wdl::Draw;
            }
            let searched = self.search(&game, settings.nodes, settings.hard_nodes);
            if self.stopped() {
                return Ok(None);
            }
            let Some((mv, score, nodes)) = searched else {
                break Wdl::Draw;
            };
            total_nodes += nodes;
            let white = if game.board().side_to_move() == Color::White {
                score
            } else {
                -score
            };
            moves.push((mv, white.clamp(-32000, 32000) as i16));
            game.play_unchecked(mv);
            // The tables: a covered position's true result (a move that ends the game by
            // the rules is left to them, at the top of the loop).
            if game.outcome_with_claims().is_none() {
                if let Some(result) = self.tablebase_result(&game) {
                    break result;
                }
            }
            if settings.adjudicate {
                if white.abs() >= settings.win_score {
                    let sign = white.signum();
                    win_plies = if sign == winner_sign { win_plies + 1 } else { 1 };
                    winner_sign = sign;
                } else {
                    win_plies = 0;
                    winner_sign = 0;
                }
                draw_plies = if white.abs() <= settings.draw_score && moves.len() >= settings.draw_min_ply {
                    draw_plies + 1
                } else {
                    0
                };
                if win_plies >= settings.win_plies {
                    break if winner_sign > 0 {
                        Wdl::WhiteWins
                    } else {
                        Wdl::BlackWins
                    };
                }
                if draw_plies >= settings.draw_plies {
                    break Wdl::Draw;
                }
            }
        };
        Ok(Some((
            GameRecord {
                start: *game.start(),
                start_eval: start_eval.clamp(-32000, 32000) as i16,
                result,
                moves,
            },
            total_nodes,
        )))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The king squares of a game's first position, which at most one random ply cannot
    /// have moved (every back-rank square is taken at a Chess960 start).
    fn king_files(settings: &GenSettings, seed: u64) -> (usize, usize) {
        let mut player = SelfPlayer::new(engine::default_net()).unwrap();
        let (record, _) = player
            .play_game(settings, &settings.opening_source(&[]), &mut Rng(seed))
            .unwrap()
            .unwrap();
        let b = record.start;
        (
            b.king(Color::White).file().index(),
            b.king(Color::Black).file().index(),
        )
    }

    #[test]
    fn games_start_from_chess960_positions_when_asked() {
        let mut settings = GenSettings::new(200, 0, true);
        settings.max_plies = 1;
        let kings = |settings: &GenSettings| -> Vec<(usize, usize)> {
            (0..8).map(|seed| king_files(settings, seed)).collect()
        };
        // Classical: the kings on e1 and e8.
        assert!(kings(&settings).iter().all(|&k| k == (4, 4)));
        // Chess960: one back rank for both sides, not always the classical one.
        settings.start_positions = StartPositions::Chess960;
        let frc = kings(&settings);
        assert!(frc.iter().all(|&(w, b)| w == b), "{frc:?}");
        assert!(frc.iter().any(|&k| k != (4, 4)), "{frc:?}");
        // Double Chess960: each side its own.
        settings.start_positions = StartPositions::DoubleChess960;
        let dfrc = kings(&settings);
        assert!(dfrc.iter().any(|&(w, b)| w != b), "{dfrc:?}");
        // And the header records it.
        let h = settings.fill_header(GenHeader::default());
        assert_eq!(h.start_positions, StartPositions::DoubleChess960);
        assert_eq!(h.hard_nodes, 200 * engine::SOFT_NODES_HARD_FACTOR);
    }

    /// OpenBench's distributed self-play and Luft's own start from the same openings:
    /// `luft genfens N seed S book None <extra>` prints the starts of the first N games of
    /// datagen's first thread file (`games-0.bin`, stream 0) with `--seed S` and the same
    /// random plies and start positions.
    #[test]
    fn genfens_with_openbench_arguments_draws_datagens_openings() {
        let net = engine::default_net();
        let seed = 11;
        for (extra, plies, start) in [
            ("", 8, StartPositions::Classical),
            (" random_moves 6 dfrc true", 6, StartPositions::DoubleChess960),
            (" frc true", 8, StartPositions::Chess960),
        ] {
            let words = format!("5 seed {seed} book None{extra}");
            let request =
                movegen::openings::GenfensRequest::parse(&words.split_whitespace().collect::<Vec<_>>())
                    .unwrap();
            let fens = engine::genfens::generate(&request, &net).unwrap();
            // datagen --seed 11 --random-plies P [--openings-960 frc|dfrc]: its settings, not
            // the request's.
            let mut settings = GenSettings::new(5000, plies, true);
            settings.start_positions = start;
            settings.max_plies = 0;
            let source = settings.opening_source(&[]);
            let mut player = SelfPlayer::new(net.clone()).unwrap();
            let starts: Vec<String> = (0..5)
                .map(|game| {
                    let mut rng = movegen::openings::opening_rng(seed, 0, game);
                    let (record, _) = player.play_game(&settings, &source, &mut rng).unwrap().unwrap();
                    record.start.to_fen()
                })
                .collect();
            assert_eq!(fens, starts, "{words}");
            // Five different openings, none the bare start position.
            let distinct: std::collections::HashSet<&String> = fens.iter().collect();
            assert_eq!(distinct.len(), 5, "{fens:?}");
        }
    }

    #[test]
    fn the_adjudication_rules_of_every_format_are_shown() {
        let settings = GenSettings::new(5000, 8, true).fill_header(GenHeader::default());
        let rules = "adjudication on (win at |score| >= 2000 cp for 4 plies, draw at |score| <= 5 cp \
                     for 12 plies from ply 40), draw at 400 plies";
        assert_eq!(adjudication_text(&Header::V3(settings.clone())), rules);
        assert_eq!(adjudication_text(&Header::V2(settings)), rules);
        let v1 = Header::V1 {
            settings: "format=luft-games-1\nnodes=5000\nadjudicate=true\n".into(),
        };
        assert_eq!(
            adjudication_text(&v1),
            format!("{rules} (format 1 records no thresholds: the defaults)")
        );
        let v1_off = Header::V1 {
            settings: "format=luft-games-1\nadjudicate=false\n".into(),
        };
        assert_eq!(
            adjudication_text(&v1_off),
            "adjudication off, draw at 400 plies (format 1 records no thresholds: the defaults)"
        );
    }
}

//! Self-play data generation (`NNUE.md`): each thread plays whole games with its own
//! searcher and a small transposition table cleared every game, from the start position (or
//! a book line) plus 8 or 9 random plies, discarding openings a short search scores beyond
//! ±1000 cp. Moves are searched to a soft node limit (hard cap 8x). Games end by the rules,
//! by adjudication (a win at |score| >= 2000 for 4 plies in a row, a draw at |score| <= 5
//! for 12 plies after ply 40; off for a material-only net, whose scores mean little) or at
//! 400 plies (a draw). Each game is appended to the thread's file as its own checksummed
//! chunk (`nnue::record`), so a kill loses at most the games in flight and a rerun resumes.

use engine::accumulator::{detected_backend, AccumulatorStack};
use engine::search::{Limits, Shared, Worker};
use engine::tt::TranspositionTable;
use movegen::{Board, Color, Game, Outcome};
use nnue::record::{GameRecord, Wdl};
use nnue::Network;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;

/// Settings of one generation run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenSettings {
    pub nodes: u64,
    pub random_plies: usize,
    pub adjudicate: bool,
    pub max_plies: usize,
}

pub use movegen::rng::SplitMix64 as Rng;

/// One thread's searcher.
pub struct SelfPlayer {
    worker: Worker,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for SelfPlayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SelfPlayer")
    }
}

impl SelfPlayer {
    pub fn new(net: Arc<Network>) -> Self {
        let shared = Arc::new(Shared {
            tt: Arc::new(TranspositionTable::new(16)),
            stop: AtomicBool::new(false),
            nodes: vec![AtomicU64::new(0)],
        });
        let worker = Worker::new(0, shared.clone(), AccumulatorStack::new(net, detected_backend()));
        SelfPlayer { worker, shared }
    }

    /// Searches `game`'s current position; returns the best move and its score for the side
    /// to move, and the nodes used.
    fn search(&mut self, game: &Game, soft: u64, hard: u64) -> Option<(movegen::Move, i32, u64)> {
        let positions = game.positions();
        let history: Vec<u64> = positions[..positions.len() - 1].iter().map(Board::hash).collect();
        let limits = Limits {
            nodes: Some(hard),
            soft_nodes: Some(soft),
            multipv: 1,
            ..Limits::default()
        };
        self.shared
            .stop
            .store(false, std::sync::atomic::Ordering::Relaxed);
        self.worker
            .search(game.board(), &history, limits, None, |_, _| {});
        let line = self.worker.completed.lines.first()?;
        Some((*line.pv.first()?, line.score, self.worker.nodes()))
    }

    /// Plays one game. `book` holds start positions (the start position if empty).
    pub fn play_game(&mut self, settings: &GenSettings, book: &[Board], rng: &mut Rng) -> (GameRecord, u64) {
        let mut total_nodes = 0;
        // Opening: random plies, then a short search must find it playable.
        let (mut game, start_eval) = loop {
            let start = if book.is_empty() {
                Board::startpos()
            } else {
                book[rng.below(book.len())]
            };
            let mut game = Game::new(start);
            let plies = settings.random_plies + rng.below(2);
            for _ in 0..plies {
                let moves = game.board().legal_moves();
                if moves.is_empty() {
                    break;
                }
                game.play_unchecked(moves[rng.below(moves.len())]);
            }
            if game.outcome_with_claims().is_some() {
                continue;
            }
            self.shared.tt.clear();
            self.worker.history.clear();
            if let Some((_, score, nodes)) = self.search(&game, 1000, 8000) {
                total_nodes += nodes;
                if score.abs() <= 1000 {
                    let white = if game.board().side_to_move() == Color::White {
                        score
                    } else {
                        -score
                    };
                    let game = Game::new(*game.board());
                    break (game, white);
                }
            }
        };
        self.shared.tt.clear();
        self.worker.history.clear();

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
            let Some((mv, score, nodes)) = self.search(&game, settings.nodes, settings.nodes * 8) else {
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
            if settings.adjudicate {
                if white.abs() >= 2000 {
                    let sign = white.signum();
                    win_plies = if sign == winner_sign { win_plies + 1 } else { 1 };
                    winner_sign = sign;
                } else {
                    win_plies = 0;
                    winner_sign = 0;
                }
                draw_plies = if white.abs() <= 5 && moves.len() >= 40 {
                    draw_plies + 1
                } else {
                    0
                };
                if win_plies >= 4 {
                    break if winner_sign > 0 {
                        Wdl::WhiteWins
                    } else {
                        Wdl::BlackWins
                    };
                }
                if draw_plies >= 12 {
                    break Wdl::Draw;
                }
            }
        };
        (
            GameRecord {
                start: *game.start(),
                start_eval: start_eval.clamp(-32000, 32000) as i16,
                result,
                moves,
            },
            total_nodes,
        )
    }
}

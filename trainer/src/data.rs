//! Training positions: games from datagen files expanded through the filter of `NNUE.md`
//! into compact feature lists, one list per perspective (side to move first), with the
//! search score and the game result from the side to move's view.

use movegen::{Board, Color};
use nnue::feature_index;
use nnue::record::{keep_for_training, scan, GameRecord};
use std::path::Path;

/// Most active features in a position (32 pieces).
pub const MAX_FEATURES: usize = 32;

/// One position, ready for the network.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Position {
    pub count: u8,
    /// Feature indices from the side to move's view, then from the other side's view.
    pub stm: [u16; MAX_FEATURES],
    pub nstm: [u16; MAX_FEATURES],
    /// Search score, side to move's view, centipawns.
    pub score: f32,
    /// Game result, side to move's view: 0, 0.5 or 1.
    pub result: f32,
}

impl Position {
    pub fn from_board(board: &Board, score_stm: f32, result_stm: f32) -> Position {
        let us = board.side_to_move();
        let mut p = Position {
            count: 0,
            stm: [0; MAX_FEATURES],
            nstm: [0; MAX_FEATURES],
            score: score_stm,
            result: result_stm,
        };
        for sq in board.occupied() {
            let piece = board.piece_on(sq).expect("occupied square");
            let i = p.count as usize;
            if i == MAX_FEATURES {
                break;
            }
            p.stm[i] = feature_index(us, piece, sq) as u16;
            p.nstm[i] = feature_index(!us, piece, sq) as u16;
            p.count += 1;
        }
        p
    }

    /// The training target: `wdl * result + (1 - wdl) * sigmoid(score / 400)`.
    #[inline]
    pub fn target(&self, wdl: f32) -> f32 {
        wdl * self.result + (1.0 - wdl) * sigmoid(self.score / nnue::SCALE as f32)
    }
}

#[inline]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The positions of one game that pass the training filter.
pub fn expand(game: &GameRecord, out: &mut Vec<Position>) {
    let white_result = game.result.white_score();
    for (ply, (board, best, score_white)) in game.positions().enumerate() {
        if !keep_for_training(&board, best, score_white, ply) {
            continue;
        }
        let (score, result) = match board.side_to_move() {
            Color::White => (f32::from(score_white), white_result),
            Color::Black => (-f32::from(score_white), 1.0 - white_result),
        };
        out.push(Position::from_board(&board, score, result));
    }
}

/// Reads every game of every file; a damaged file contributes its good chunks and a warning.
pub fn load(files: &[impl AsRef<Path>]) -> anyhow::Result<(Vec<Position>, Vec<String>)> {
    let mut positions = Vec::new();
    let mut warnings = Vec::new();
    for file in files {
        let path = file.as_ref();
        let bytes =
            std::fs::read(path).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
        let s = scan(&bytes, true).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        if let Some(e) = s.error {
            warnings.push(format!(
                "{}: {e}; using the {} games before it",
                path.display(),
                s.games.len()
            ));
        }
        for g in &s.games {
            expand(g, &mut positions);
        }
    }
    Ok((positions, warnings))
}

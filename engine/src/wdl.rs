//! The win-draw-loss model behind `UCI_ShowWDL`: how often a position with a given search
//! score and material ends in a win, a draw or a loss in Luft's own games.
//!
//! With `s` the score (centipawns, side to move's view) and `m` the material on the board
//! (pawn 1, knight and bishop 3, rook 5, queen 9, both sides, clamped to
//! [`MATERIAL_MIN`]..=[`MATERIAL_MAX`]) mapped to `x = (m - 43) / 35` in `[-1, 1]`:
//!
//! ```text
//! P(win)  = sigmoid(( s - a(x)) / b(x))
//! P(loss) = sigmoid((-s - a(x)) / b(x))
//! P(draw) = 1 - P(win) - P(loss)
//! ```
//! with `a` and `b` cubic polynomials in `x`. `a(x)` is the score at which a win and a
//! non-win are equally likely, `b(x)` how fast the odds change with the score; `a > 0`
//! keeps the draw probability positive. The coefficients in [`MODEL`] were fitted by
//! maximum likelihood on Luft's self-play data with `datagen wdl-fit` (see [`MODEL`] and
//! `docs/engine.md`); the same [`WdlModel`] type evaluates and fits, so the two cannot drift
//! apart. Mate scores are certain: `1000 0 0` or `0 0 1000`.

use crate::search::is_mate;
use movegen::{Board, PieceType};

/// The smallest material count the model distinguishes (fewer counts as this).
pub const MATERIAL_MIN: i32 = 8;
/// The largest material count (the start position has 78).
pub const MATERIAL_MAX: i32 = 78;

/// The material on the board: pawns 1, knights and bishops 3, rooks 5, queens 9, both
/// sides, not clamped (the start position has 78).
pub fn material(board: &Board) -> i32 {
    let count = |kind| board.pieces(kind).len() as i32;
    count(PieceType::Pawn)
        + 3 * (count(PieceType::Knight) + count(PieceType::Bishop))
        + 5 * count(PieceType::Rook)
        + 9 * count(PieceType::Queen)
}

/// The model's input for a material count: clamped, then mapped to `[-1, 1]`.
pub fn material_x(material: i32) -> f64 {
    let m = material.clamp(MATERIAL_MIN, MATERIAL_MAX);
    f64::from(m - 43) / 35.0
}

/// The logistic function.
pub fn sigmoid(t: f64) -> f64 {
    1.0 / (1.0 + (-t).exp())
}

/// A WDL model: the cubic coefficients (constant term first) of `a(x)` and `b(x)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WdlModel {
    /// `a(x)`: the score (centipawns) at which a win is as likely as not.
    pub a: [f64; 4],
    /// `b(x)`: how many centipawns change the odds by a factor of e.
    pub b: [f64; 4],
}

/// A cubic's value at `x` (coefficients constant term first).
pub fn cubic(c: &[f64; 4], x: f64) -> f64 {
    ((c[3] * x + c[2]) * x + c[1]) * x + c[0]
}

impl WdlModel {
    /// `(a, b)` at the model input `x` (see [`material_x`]).
    pub fn params_at(&self, x: f64) -> (f64, f64) {
        (cubic(&self.a, x), cubic(&self.b, x))
    }

    /// Whether `a > 0` and `b > 0` at every material count the model sees (then every
    /// probability it gives is a probability).
    pub fn is_valid(&self) -> bool {
        (MATERIAL_MIN..=MATERIAL_MAX).all(|m| {
            let (a, b) = self.params_at(material_x(m));
            a > 0.0 && b > 0.0 && a.is_finite() && b.is_finite()
        })
    }

    /// `[win, draw, loss]` probabilities of a (non-mate) score at model input `x`.
    pub fn probabilities_at(&self, score: f64, x: f64) -> [f64; 3] {
        let (a, b) = self.params_at(x);
        // An invalid model (never the fitted one) still gives probabilities.
        let (a, b) = (a.max(0.0), b.max(1e-6));
        let win = sigmoid((score - a) / b);
        let loss = sigmoid((-score - a) / b);
        [win, (1.0 - win - loss).max(0.0), loss]
    }

    /// `[win, draw, loss]` probabilities of a (non-mate) score with `material` on the board.
    pub fn probabilities(&self, score: f64, material: i32) -> [f64; 3] {
        self.probabilities_at(score, material_x(material))
    }

    /// `[win, draw, loss]` per mille, summing to 1000, for a search score (mates
    /// included) from the side to move's view.
    pub fn permille(&self, score: i32, material: i32) -> [u32; 3] {
        if is_mate(score) {
            return if score > 0 { [1000, 0, 0] } else { [0, 0, 1000] };
        }
        let [win, _, loss] = self.probabilities(f64::from(score), material);
        let mut w = (win * 1000.0).round() as u32;
        let mut l = (loss * 1000.0).round() as u32;
        // win + loss < 1 keeps w + l <= 1000; rounding error is taken from the larger one.
        while w + l > 1000 {
            if w >= l {
                w -= 1;
            } else {
                l -= 1;
            }
        }
        [w, 1000 - w - l, l]
    }

    /// The expected score (win 1, draw 1/2) of a search score, mates included.
    pub fn expected_score(&self, score: i32, material: i32) -> f64 {
        if is_mate(score) {
            return if score > 0 { 1.0 } else { 0.0 };
        }
        let [win, draw, _] = self.probabilities(f64::from(score), material);
        win + draw / 2.0
    }
}

/// The model of Luft's own games, fitted by
///
/// ```text
/// datagen wdl-fit gen3-a.bin gen3-b.bin
/// ```
/// on the generation-3 self-play data (the two files of the reference data beside the
/// repository, not in it; 28,517 games of the embedded net `gen3-32` at 5000
/// soft nodes a move; 4,477,220 positions, every one whose score is outside the mate band):
/// 0.658 nats a position against 1.097 for the score-blind W/D/L rates. `a` runs from 158
/// (full board) through 201 (40 material) to 648 (8 and less): with little material a
/// larger edge is needed to win. Refit after a new net changes the score scale.
pub const MODEL: WdlModel = WdlModel {
    a: [200.985, 16.275, 201.549, -261.350],
    b: [186.044, 110.762, 52.161, -119.777],
};

/// `[win, draw, loss]` per mille of a search score (side to move's view) at `board`.
pub fn wdl(score: i32, board: &Board) -> [u32; 3] {
    MODEL.permille(score, material(board))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::MATE;

    fn boards() -> Vec<Board> {
        [
            movegen::STARTPOS_FEN,
            "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
            "8/5pk1/6p1/8/3R4/6P1/5PK1/2r5 w - - 0 40",
            "8/8/4k3/8/8/3K4/4P3/8 w - - 0 60",
            "4k3/8/8/8/8/8/8/4K3 w - - 0 80",
        ]
        .iter()
        .map(|fen| Board::from_fen(fen).unwrap())
        .collect()
    }

    #[test]
    fn the_fitted_model_is_valid() {
        assert!(MODEL.is_valid(), "{MODEL:?}");
    }

    #[test]
    fn material_counts_both_sides() {
        assert_eq!(material(&Board::startpos()), 78);
        let b = Board::from_fen("8/8/4k3/8/8/3K4/4P3/8 w - - 0 60").unwrap();
        assert_eq!(material(&b), 1);
        assert_eq!(material_x(1), -1.0);
        assert_eq!(material_x(78), 1.0);
        assert_eq!(material_x(200), 1.0);
    }

    #[test]
    fn sums_to_a_thousand() {
        for board in boards() {
            for score in (-3000..=3000).step_by(7) {
                let [w, d, l] = wdl(score, &board);
                assert_eq!(w + d + l, 1000, "{score} {}", board.to_fen());
            }
        }
    }

    #[test]
    fn monotonic_in_the_score() {
        for board in boards() {
            let mut last = wdl(-5000, &board);
            for score in -4999..=5000 {
                let now = wdl(score, &board);
                assert!(now[0] >= last[0], "win fell at {score}: {last:?} -> {now:?}");
                assert!(now[2] <= last[2], "loss rose at {score}: {last:?} -> {now:?}");
                last = now;
            }
            let high = wdl(3000, &board);
            let low = wdl(-3000, &board);
            assert!(high[0] > 900 && low[2] > 900, "{high:?} {low:?}");
            // Exact probabilities keep rising where the per mille rounding hides it.
            let p = |s: f64| MODEL.probabilities(s, material(&board));
            assert!(p(101.0)[0] > p(100.0)[0] && p(101.0)[2] < p(100.0)[2]);
        }
    }

    #[test]
    fn symmetric() {
        for board in boards() {
            for score in (-3000..=3000).step_by(3) {
                let [w, d, l] = wdl(score, &board);
                assert_eq!(wdl(-score, &board), [l, d, w], "{score}");
            }
            let [w, _, l] = wdl(0, &board);
            assert_eq!(w, l);
        }
    }

    #[test]
    fn mates_are_certain() {
        let board = Board::startpos();
        assert_eq!(wdl(MATE - 5, &board), [1000, 0, 0]);
        assert_eq!(wdl(-MATE + 4, &board), [0, 0, 1000]);
        assert_eq!(wdl(MATE - 1, &board), [1000, 0, 0]);
        assert_eq!(MODEL.expected_score(MATE - 1, 78), 1.0);
        assert_eq!(MODEL.expected_score(-MATE + 2, 78), 0.0);
    }

    #[test]
    fn an_invalid_model_still_gives_probabilities() {
        let bad = WdlModel {
            a: [-50.0, 0.0, 0.0, 0.0],
            b: [0.0, 0.0, 0.0, 0.0],
        };
        assert!(!bad.is_valid());
        for score in [-100, 0, 100] {
            let [w, d, l] = bad.permille(score, 40);
            assert_eq!(w + d + l, 1000);
        }
    }
}

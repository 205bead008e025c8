//! The network's weights and the scalar reference inference.
//!
//! Layout: `feature_weights` is feature-major, each feature's N weights contiguous (the
//! engine adds and subtracts whole rows); `output_weights` holds, per bucket, 2N weights:
//! first for the side to move's accumulator, then for the other one.
//!
//! Evaluation in integers (exactly what the engine's SIMD code reproduces):
//! `sum = Σ clamp(acc, 0, QA)² · w` over both halves (i32), then
//! `((sum / QA + bias) · SCALE) / (QA · QB)` centipawns, from the side to move's view.

use crate::{INPUTS, QA, QB, SCALE};
use movegen::{Board, Color, Piece, PieceType};

/// Index of `piece` on `sq` in the input layer as seen by `perspective`: own pieces first,
/// and for Black the board flipped vertically (`sq ^ 56`).
#[inline(always)]
pub fn feature_index(perspective: Color, piece: Piece, sq: movegen::Square) -> usize {
    let (side, square) = match perspective {
        Color::White => (piece.color as usize, sq.index()),
        Color::Black => ((!piece.color) as usize, sq.index() ^ 56),
    };
    side * 384 + piece.kind.index() * 64 + square
}

/// A quantised network.
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    pub hidden: usize,
    pub output_buckets: usize,
    /// `INPUTS * hidden`, feature-major.
    pub feature_weights: Vec<i16>,
    /// `hidden`.
    pub feature_bias: Vec<i16>,
    /// `output_buckets * 2 * hidden`.
    pub output_weights: Vec<i16>,
    /// `output_buckets`, at scale `QA * QB`.
    pub output_bias: Vec<i32>,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Network")
            .field("hidden", &self.hidden)
            .field("output_buckets", &self.output_buckets)
            .finish_non_exhaustive()
    }
}

impl Network {
    /// A network of the given shape with every weight zero.
    pub fn zeroed(hidden: usize, output_buckets: usize) -> Network {
        Network {
            hidden,
            output_buckets,
            feature_weights: vec![0; INPUTS * hidden],
            feature_bias: vec![0; hidden],
            output_weights: vec![0; output_buckets * 2 * hidden],
            output_bias: vec![0; output_buckets],
        }
    }

    /// The output bucket for a position: see [`output_bucket`].
    #[inline]
    pub fn output_bucket(&self, board: &Board) -> usize {
        output_bucket(board.occupied().len() as usize, self.output_buckets)
    }

    /// The row of N weights of input `feature`.
    #[inline(always)]
    pub fn feature_row(&self, feature: usize) -> &[i16] {
        &self.feature_weights[feature * self.hidden..(feature + 1) * self.hidden]
    }

    /// Computes both accumulators from scratch: `(white view, black view)`.
    pub fn refresh(&self, board: &Board) -> (Vec<i16>, Vec<i16>) {
        let mut white = self.feature_bias.clone();
        let mut black = self.feature_bias.clone();
        for color in Color::ALL {
            for kind in PieceType::ALL {
                for sq in board.colored_pieces(color, kind) {
                    let piece = Piece::new(color, kind);
                    for (acc, view) in [(&mut white, Color::White), (&mut black, Color::Black)] {
                        let row = self.feature_row(feature_index(view, piece, sq));
                        for (a, w) in acc.iter_mut().zip(row) {
                            *a = a.wrapping_add(*w);
                        }
                    }
                }
            }
        }
        (white, black)
    }

    /// The output layer on two accumulators (side to move first), in centipawns.
    pub fn forward(&self, us: &[i16], them: &[i16], bucket: usize) -> i32 {
        let weights = &self.output_weights[bucket * 2 * self.hidden..(bucket + 1) * 2 * self.hidden];
        let (w_us, w_them) = weights.split_at(self.hidden);
        let mut sum: i32 = 0;
        for (acc, w) in us.iter().zip(w_us).chain(them.iter().zip(w_them)) {
            let v = i32::from(*acc).clamp(0, QA);
            // Wrapping: the SIMD path sums in i32 lanes that wrap; order does not matter.
            sum = sum.wrapping_add(v * v * i32::from(*w));
        }
        (sum / QA + self.output_bias[bucket]) * SCALE / (QA * QB)
    }

    /// The reference evaluation of `board` from the side to move's view, in centipawns.
    pub fn evaluate(&self, board: &Board) -> i32 {
        let (white, black) = self.refresh(board);
        let bucket = self.output_bucket(board);
        match board.side_to_move() {
            Color::White => self.forward(&white, &black, bucket),
            Color::Black => self.forward(&black, &white, bucket),
        }
    }

    /// A net whose output is exactly linear in material: pawn 1, knight 3, bishop 3,
    /// rook 5, queen 9 (units of about 99 cp).
    ///
    /// Under SCReLU a pair of hidden units with bias `b` and opposite inputs `b + m` and
    /// `b - m` gives `(b + m)² - (b - m)² = 4bm`, exactly linear while both stay in
    /// `[0, QA]`. With `b = 127` that holds for `|m| <= 127` pawn units, beyond any legal
    /// material difference (at most 103). 16 such pairs with output weights ±127 scale the
    /// result to centipawns; ±127 keeps `clamp(acc) · w` inside i16 for the SIMD path.
    pub fn material(hidden: usize) -> Network {
        assert!(hidden >= 2 && hidden % 2 == 0, "material net needs an even width");
        let pairs = 16.min(hidden / 2);
        let mut net = Network::zeroed(hidden, 1);
        let values = [1i16, 3, 3, 5, 9, 0];
        for pair in 0..pairs {
            let (plus, minus) = (2 * pair, 2 * pair + 1);
            net.feature_bias[plus] = 127;
            net.feature_bias[minus] = 127;
            for feature in 0..INPUTS {
                let own = feature < 384;
                let kind = (feature % 384) / 64;
                let value = if own { values[kind] } else { -values[kind] };
                net.feature_weights[feature * hidden + plus] = value;
                net.feature_weights[feature * hidden + minus] = -value;
            }
            net.output_weights[plus] = 127;
            net.output_weights[minus] = -127;
        }
        net
    }

    /// A network with pseudo-random weights in the ranges a trained net uses (for speed
    /// measurements and SIMD tests), reproducible from `seed`.
    pub fn random(hidden: usize, output_buckets: usize, seed: u64) -> Network {
        let mut state = seed ^ 0x9E37_79B9_7F4A_7C15;
        let mut next = move |range: i32| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state >> 33) as i32 % (2 * range + 1)) - range
        };
        let mut net = Network::zeroed(hidden, output_buckets);
        net.feature_weights.iter_mut().for_each(|w| *w = next(60) as i16);
        net.feature_bias.iter_mut().for_each(|w| *w = next(200) as i16);
        net.output_weights.iter_mut().for_each(|w| *w = next(127) as i16);
        net.output_bias.iter_mut().for_each(|w| *w = next(QA * QB));
        net
    }
}

/// The output bucket of a position with `pieces` pieces (kings included) in a net with
/// `buckets` output buckets: `(pieces - 2) / ceil(32 / buckets)`, at most `buckets - 1`
/// (with 8 buckets: `(pieces - 2) / 4`). The one definition shared by the engine, the
/// reference forward pass and the trainer.
#[inline]
pub fn output_bucket(pieces: usize, buckets: usize) -> usize {
    if buckets <= 1 {
        return 0;
    }
    let per_bucket = 32usize.div_ceil(buckets);
    (pieces.saturating_sub(2) / per_bucket).min(buckets - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_index_mirrors_between_perspectives() {
        let sq = movegen::Square::parse("e2").unwrap();
        let white_pawn = Piece::new(Color::White, PieceType::Pawn);
        assert_eq!(feature_index(Color::White, white_pawn, sq), 12);
        // From Black's view a white pawn is an enemy pawn on e7.
        assert_eq!(feature_index(Color::Black, white_pawn, sq), 384 + 52);
        let black_king = Piece::new(Color::Black, PieceType::King);
        let e8 = movegen::Square::parse("e8").unwrap();
        assert_eq!(feature_index(Color::Black, black_king, e8), 5 * 64 + 4);
    }

    #[test]
    fn material_net_is_linear_in_material() {
        let net = Network::material(32);
        let eval = |fen: &str| net.evaluate(&Board::from_fen(fen).unwrap());
        // The exact integer pipeline for a material difference of m pawn units.
        let expected = |m: i32| (16 * 127 * 4 * 127 * m / QA) * SCALE / (QA * QB);
        assert_eq!(expected(1), 99);
        assert_eq!(eval(movegen::STARTPOS_FEN), 0);
        assert_eq!(
            eval("rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            expected(1)
        );
        assert_eq!(
            eval("rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1"),
            expected(-1)
        );
        assert_eq!(
            eval("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/R1BQKBNR w KQkq - 0 1"),
            expected(-3)
        );
        // Far beyond legal material (relaxed FEN): 8 pawns and 7 queens, m = 71.
        let extreme = Board::from_fen_relaxed("7k/8/8/8/8/8/PPPPPPPP/QQQQQQQK w - - 0 1").unwrap();
        assert_eq!(net.evaluate(&extreme), expected(71));
    }
}

//! `UCI_LimitStrength` and `UCI_Elo`: Luft playing like a weaker player, for people who
//! play against it. Two things weaken it, both scaled by the Elo asked for:
//!
//! - **It sees less.** The search gets a node budget, [`StrengthLimit::nodes`], that
//!   doubles every [`ELO_PER_DOUBLING`] Elo from [`NODES_AT_MIN`] at [`ELO_MIN`] (and never
//!   more time than the clock allows), and it searches [`LINES`] lines (MultiPV), which
//!   spreads the budget over more moves.
//! - **It chooses like a person.** From the final lines it picks a move at random, with
//!   probabilities from a softmax over how much each line loses against the best: the
//!   drop in expected score by the WDL model (`crate::wdl`), plus a small centipawn term so
//!   it still makes progress in won positions. The temperature, [`StrengthLimit::temperature`],
//!   halves every [`ELO_PER_HALVING`] Elo. So a low level often plays a move a little
//!   worse than the best and sometimes a clearly worse one, while a move that throws the
//!   game away (a hung queen in a level position) is as good as never chosen; an
//!   inaccuracy matters less when the game is already decided, as it does for people. A
//!   mate its search found is always played.
//!
//! The choice is reproducible: with `Strength Seed` above 0 the random number comes from
//! the seed and the position, so the same search gives the same move (for whole games,
//! also use `Threads 1`). With seed 0 it comes from a generator seeded at start-up.
//!
//! The search itself is untouched: the engine (`crate::Engine`, with `UCI_LimitStrength`
//! on) sets the node limit and MultiPV, runs the ordinary threaded search, and answers with
//! the line [`StrengthLimit::choose`] picks, reported alone as the best line (so in UCI the
//! `bestmove` is always the first move of the last `pv` printed).
//!
//! The Elo scale is provisional until `scripts/calibrate-elo.sh` (games against
//! Stockfish's own `UCI_Elo` at 10+0.1) has been run; see `docs/engine.md`.

use crate::report::Score;
use crate::search::{is_mate, MATE};
use crate::wdl::MODEL;
use movegen::rng::{hash, SplitMix64};
use movegen::Board;

/// The lowest `UCI_Elo`.
pub const ELO_MIN: i32 = 1320;
/// The highest `UCI_Elo`.
pub const ELO_MAX: i32 = 3000;
/// `UCI_Elo`'s default (the lowest, as Stockfish has it).
pub const ELO_DEFAULT: i32 = ELO_MIN;
/// The node budget at [`ELO_MIN`].
pub const NODES_AT_MIN: f64 = 256.0;
/// Elo for each doubling of the node budget.
pub const ELO_PER_DOUBLING: f64 = 120.0;
/// The softmax temperature (in expected score, 0 to 1) at [`ELO_MIN`].
pub const TEMPERATURE_AT_MIN: f64 = 0.15;
/// Elo for each halving of the temperature.
pub const ELO_PER_HALVING: f64 = 220.0;
/// Elo added to every level's node budget by the calibration of 2026-11-30
/// (`scripts/calibrate-elo.sh`, 4 levels x 40 games at 10+0.1 against Stockfish 15.1's
/// `UCI_Elo`): the uncorrected levels 1400 and 1800 scored 5.0% and 7.5% against the
/// same Stockfish levels (about 510 and 440 Elo below their labels), 2200 scored 0%. The
/// shift multiplies every budget by 2^(500/120), about 18; it has not been re-measured.
pub const CALIBRATION_SHIFT: f64 = 500.0;
/// The lines searched (MultiPV) and chosen among.
pub const LINES: usize = 4;
/// Centipawns of score loss that count as much as one whole game point (the small
/// centipawn term that keeps a decided game moving).
pub const CENTIPAWNS_PER_POINT: f64 = 1500.0;
/// Non-mate scores are clamped to this for the choice; mates rank above it.
const SCORE_CLAMP: i32 = 2500;

/// A strength limit: the Elo asked for and the seed (0: not reproducible).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StrengthLimit {
    /// The Elo asked for, in `ELO_MIN..=ELO_MAX`.
    pub elo: i32,
    /// The seed of the choice; 0 for a different choice each time.
    pub seed: u64,
}

impl StrengthLimit {
    /// A limit at `elo` (clamped into [`ELO_MIN`]..=[`ELO_MAX`]).
    pub fn new(elo: i32, seed: u64) -> Self {
        StrengthLimit {
            elo: elo.clamp(ELO_MIN, ELO_MAX),
            seed,
        }
    }

    fn steps(&self) -> f64 {
        f64::from(self.elo.clamp(ELO_MIN, ELO_MAX) - ELO_MIN)
    }

    /// The node budget of one move: [`NODES_AT_MIN`] doubled every [`ELO_PER_DOUBLING`]
    /// Elo above [`ELO_MIN`], shifted up by [`CALIBRATION_SHIFT`].
    pub fn nodes(&self) -> u64 {
        (NODES_AT_MIN * ((self.steps() + CALIBRATION_SHIFT) / ELO_PER_DOUBLING).exp2()).round() as u64
    }

    /// The softmax temperature, in expected score.
    pub fn temperature(&self) -> f64 {
        TEMPERATURE_AT_MIN * (-self.steps() / ELO_PER_HALVING).exp2()
    }

    /// Sets the node limit (the smaller of the budget and any `go nodes`) and MultiPV (at
    /// least [`LINES`]) of a search.
    pub(crate) fn apply(&self, limits: &mut crate::search::ResolvedLimits) {
        limits.nodes = Some(limits.nodes.map_or(self.nodes(), |n| n.min(self.nodes())));
        limits.multipv = limits.multipv.max(LINES);
    }

    /// The random number for the choice at `board`: from the seed and the position when
    /// the seed is set, else from `fallback`.
    pub fn random_for(&self, board: &Board, fallback: &mut SplitMix64) -> u64 {
        if self.seed == 0 {
            fallback.next_u64()
        } else {
            hash(self.seed ^ hash(board.hash()))
        }
    }

    /// The probability of choosing each line, given the lines' scores (same order), with
    /// `material` on the board (pawn 1, minor 3, rook 5, queen 9, both sides: see
    /// `crate::wdl::material`). Empty for no lines.
    pub fn probabilities(&self, scores: &[Score], material: i32) -> Vec<f64> {
        let Some(best) = scores.iter().map(|&s| utility(s, material)).reduce(f64::max) else {
            return Vec::new();
        };
        let temperature = self.temperature();
        // A mate the search found is always played (one of them, when there are several).
        let mates = |score: Score| score.is_mate() && score.value() > 0;
        let mating = scores.iter().any(|&s| mates(s));
        let weights: Vec<f64> = scores
            .iter()
            .map(|&s| {
                if mating && !mates(s) {
                    0.0
                } else {
                    (-(best - utility(s, material)) / temperature).exp()
                }
            })
            .collect();
        let total: f64 = weights.iter().sum();
        weights.iter().map(|w| w / total).collect()
    }

    /// The index of the line to play among lines with `scores`, given a uniform random
    /// 64-bit number (see [`StrengthLimit::random_for`]); `None` when there are no lines.
    pub fn choose(&self, scores: &[Score], material: i32, random: u64) -> Option<usize> {
        let probabilities = self.probabilities(scores, material);
        let mut left = (random >> 11) as f64 / (1u64 << 53) as f64;
        for (i, p) in probabilities.iter().enumerate() {
            if left < *p {
                return Some(i);
            }
            left -= p;
        }
        // Rounding left a sliver: the most likely line.
        probabilities
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(i, _)| i)
    }
}

/// How good a score is for the choice: the expected score by the WDL model plus a small
/// centipawn term; a mate ranks above every other score, a shorter one higher.
fn utility(score: Score, material: i32) -> f64 {
    let score = score.value();
    let centipawns = if is_mate(score) {
        let distance = MATE - score.abs();
        score.signum() * (2 * SCORE_CLAMP - distance)
    } else {
        score.clamp(-SCORE_CLAMP, SCORE_CLAMP)
    };
    MODEL.expected_score(score, material) + f64::from(centipawns) / CENTIPAWNS_PER_POINT
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(scores: &[i32]) -> Vec<Score> {
        scores.iter().map(|&s| Score::new(s)).collect()
    }

    /// How often each line is chosen over `n` evenly spread random numbers.
    fn frequencies(limit: &StrengthLimit, scores: &[i32], material: i32, n: u64) -> Vec<f64> {
        let lines = lines(scores);
        let mut counts = vec![0u64; scores.len()];
        let mut rng = SplitMix64(42);
        for _ in 0..n {
            counts[limit.choose(&lines, material, rng.next_u64()).unwrap()] += 1;
        }
        counts.iter().map(|&c| c as f64 / n as f64).collect()
    }

    #[test]
    fn budgets_grow_and_noise_falls_with_elo() {
        let mut last = StrengthLimit::new(ELO_MIN, 0);
        assert_eq!(
            last.nodes(),
            (NODES_AT_MIN * (CALIBRATION_SHIFT / ELO_PER_DOUBLING).exp2()).round() as u64
        );
        for elo in (ELO_MIN + 10..=ELO_MAX).step_by(10) {
            let now = StrengthLimit::new(elo, 0);
            assert!(now.nodes() > last.nodes(), "{elo}");
            assert!(now.temperature() < last.temperature(), "{elo}");
            last = now;
        }
        assert_eq!(StrengthLimit::new(100, 0).elo, ELO_MIN);
        assert_eq!(StrengthLimit::new(9000, 0).elo, ELO_MAX);
        let top = StrengthLimit::new(ELO_MAX, 0);
        assert!(top.nodes() > 500_000 && top.temperature() < 0.001);
    }

    #[test]
    fn apply_takes_the_smaller_node_limit_and_enough_lines() {
        let limit = StrengthLimit::new(1500, 0);
        let mut limits = crate::search::ResolvedLimits {
            multipv: 1,
            ..Default::default()
        };
        limit.apply(&mut limits);
        assert_eq!((limits.nodes, limits.multipv), (Some(limit.nodes()), LINES));
        let mut limits = crate::search::ResolvedLimits {
            nodes: Some(10),
            multipv: 7,
            ..Default::default()
        };
        limit.apply(&mut limits);
        assert_eq!((limits.nodes, limits.multipv), (Some(10), 7));
    }

    #[test]
    fn probabilities_are_a_distribution_favouring_better_lines() {
        for elo in [ELO_MIN, 1800, 2400, ELO_MAX] {
            let limit = StrengthLimit::new(elo, 0);
            let p = limit.probabilities(&lines(&[40, 25, 0, -200]), 60);
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9);
            assert!(p.windows(2).all(|w| w[0] > w[1]), "{elo}: {p:?}");
        }
        assert!(StrengthLimit::new(1500, 0).probabilities(&[], 60).is_empty());
        assert_eq!(StrengthLimit::new(1500, 0).choose(&[], 60, 7), None);
    }

    #[test]
    fn weak_levels_vary_strong_levels_play_the_best() {
        let scores = [30, 10, -20, -90];
        let weak = frequencies(&StrengthLimit::new(ELO_MIN, 0), &scores, 60, 20_000);
        assert!(weak[0] < 0.6 && weak[1] > 0.15 && weak[3] > 0.005, "{weak:?}");
        let strong = frequencies(&StrengthLimit::new(ELO_MAX, 0), &scores, 60, 20_000);
        assert!(strong[0] > 0.999, "{strong:?}");
        // The average loss in expected score falls as the Elo rises.
        let loss = |elo| {
            let limit = StrengthLimit::new(elo, 0);
            let p = limit.probabilities(&lines(&scores), 60);
            let best = MODEL.expected_score(scores[0], 60);
            p.iter()
                .zip(scores)
                .map(|(p, s)| p * (best - MODEL.expected_score(s, 60)))
                .sum::<f64>()
        };
        let mut last = loss(ELO_MIN);
        for elo in (ELO_MIN + 100..=ELO_MAX).step_by(100) {
            let now = loss(elo);
            assert!(now < last, "{elo}: {now} >= {last}");
            last = now;
        }
    }

    #[test]
    fn blunders_in_level_positions_are_all_but_never_chosen() {
        let p = StrengthLimit::new(ELO_MIN, 0).probabilities(&lines(&[20, 0, -880]), 70);
        assert!(p[2] < 1e-3, "{p:?}");
    }

    #[test]
    fn inaccuracies_cost_less_when_the_game_is_decided() {
        let limit = StrengthLimit::new(1600, 0);
        let level = limit.probabilities(&lines(&[0, -100]), 50);
        let won = limit.probabilities(&lines(&[900, 800]), 50);
        assert!(won[1] > 2.0 * level[1], "{level:?} {won:?}");
        // Still, the better of two winning moves is the likelier one.
        assert!(won[0] > won[1]);
    }

    #[test]
    fn a_found_mate_is_always_played() {
        for elo in [ELO_MIN, 2000, ELO_MAX] {
            let p = StrengthLimit::new(elo, 0).probabilities(&lines(&[MATE - 7, 2400, 1800]), 20);
            assert_eq!(p, [1.0, 0.0, 0.0], "{elo}");
            let p = StrengthLimit::new(elo, 0).probabilities(&lines(&[MATE - 3, MATE - 9, 500]), 20);
            assert!(p[0] > p[1] && p[2] == 0.0, "{elo}: {p:?}");
            // Being mated: the longest defence is preferred.
            let p = StrengthLimit::new(elo, 0).probabilities(&lines(&[-MATE + 9, -MATE + 3]), 20);
            assert!(p[0] > p[1], "{elo}: {p:?}");
        }
    }

    #[test]
    fn the_choice_is_reproducible_under_a_seed() {
        let board = Board::startpos();
        let mut a = SplitMix64(1);
        let mut b = SplitMix64(2);
        let seeded = StrengthLimit::new(1500, 77);
        assert_eq!(
            seeded.random_for(&board, &mut a),
            seeded.random_for(&board, &mut b)
        );
        let mut other = board;
        other.play(board.parse_uci("e2e4").unwrap());
        assert_ne!(
            seeded.random_for(&board, &mut a),
            seeded.random_for(&other, &mut a)
        );
        let unseeded = StrengthLimit::new(1500, 0);
        assert_ne!(
            unseeded.random_for(&board, &mut a),
            unseeded.random_for(&board, &mut a)
        );
        let lines = lines(&[10, 5, 0, -5]);
        let r = seeded.random_for(&board, &mut a);
        assert_eq!(seeded.choose(&lines, 78, r), seeded.choose(&lines, 78, r));
    }
}

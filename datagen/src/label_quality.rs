//! Label quality against positions per hour: how much a training label (the score datagen's
//! search gives a position at its soft node budget) loses against a much deeper search, and
//! what each budget costs. `datagen label-quality` drives it;
//! `records/2026-11-30-label-quality` holds the figures that chose datagen's nodes per move.
//!
//! The method. [`Reservoir`] draws a uniform sample of the positions that pass the training
//! filter (`records::record::keep_for_training`: the positions that become labels) from data
//! files, each with its game's earlier positions so that repetitions count as they did in
//! the game. [`measure`] searches every sampled position once per budget and once at the
//! reference budget, with datagen's own search ([`SelfPlayer::search_position`]: the same
//! net, soft budget, hard cap [`engine::hard_nodes_for`] and table size), each search
//! starting from an empty table and histories ([`SelfPlayer::new_game`]), so every search
//! is independent and the result does not depend on the order. (In a datagen game the
//! table carries over from the previous move, so real labels are, if anything, a little
//! better than the ones measured at the same budget.) [`summarise`] then compares each
//! budget's score with the reference score of the same position:
//!
//! - in the trainer's target space, `sigmoid(score / nnue::SCALE)` (the score part of the
//!   target `wdl * result + (1 - wdl) * sigmoid(score / 400)`, `trainer::data`): the mean
//!   squared difference with its standard error, the figure comparable with the trainer's
//!   loss (a mean squared error in that same space; the label's share of the target error
//!   is `(1 - wdl)^2` times it);
//! - in centipawns: the mean and the median absolute difference, both scores clamped to
//!   ±[`CP_CLAMP`] first, so that mates and won positions, where the sigmoid is flat, do not
//!   swamp the mean;
//! - the share of positions where the budget's best move is the reference's;
//! - the cost: nodes and CPU time per search (the searching thread's CPU time, so other
//!   work on the machine does not count), hence positions per hour per thread. Datagen
//!   searches once for every position it stores, so that is also datagen's positions per
//!   hour per thread at this budget (up to the opening check, one 1000-node search per game
//!   of ~150 positions); times the share of positions the training filter keeps, training
//!   positions per hour.
//!
//! The reference is itself a search, not the truth: its own error is in every budget's
//! figure, more so the closer a budget comes to it, so the reference should be at least
//! ten times the largest budget.

use crate::{Rng, SelfPlayer};
use engine::hard_nodes_for;
use movegen::{Board, Move};
use records::record::{keep_for_training, GameRecord};
use std::time::Duration;

/// Centipawn scores are clamped to ±this before their mean absolute difference is taken
/// (datagen's win adjudication score: `sigmoid(2000 / 400)` is within 0.7% of 1).
pub const CP_CLAMP: i32 = crate::WIN_SCORE;

/// One sampled position: the board, the keys of its game's earlier positions (for
/// repetitions, as datagen passes them), and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The position.
    pub board: Board,
    /// Keys of the positions before it since the game's recorded start.
    pub history: Vec<u64>,
    /// Its ply in the game's record.
    pub ply: usize,
}

/// A uniform random sample of the positions that pass the training filter, drawn in one
/// pass over any number of games (reservoir sampling, Algorithm R), reproducible from its
/// seed and the order of the games.
#[derive(Debug)]
pub struct Reservoir {
    capacity: usize,
    rng: Rng,
    samples: Vec<Sample>,
    /// Positions seen, all of them and those the training filter keeps.
    positions: u64,
    kept: u64,
}

impl Reservoir {
    /// An empty sample of at most `capacity` positions drawn with `seed`.
    pub fn new(capacity: usize, seed: u64) -> Reservoir {
        Reservoir {
            capacity,
            rng: Rng(seed ^ 0x6C61_6265_6C5F_7175), // "label_qu"
            // Grows as positions arrive: a huge --positions must not allocate up front.
            samples: Vec::with_capacity(capacity.min(1 << 16)),
            positions: 0,
            kept: 0,
        }
    }

    /// Offers every position of `game`; each one the training filter keeps is taken with
    /// the probability that keeps the sample uniform.
    pub fn add_game(&mut self, game: &GameRecord) {
        let mut history: Vec<u64> = Vec::with_capacity(game.moves.len());
        for (ply, (board, mv, score)) in game.positions().enumerate() {
            self.positions += 1;
            if keep_for_training(&board, mv, score, ply) {
                self.kept += 1;
                let slot = if self.samples.len() < self.capacity {
                    Some(self.samples.len())
                } else {
                    let j = self.rng.below(usize::try_from(self.kept).unwrap_or(usize::MAX));
                    (j < self.capacity).then_some(j)
                };
                if let Some(slot) = slot {
                    let sample = Sample {
                        board,
                        history: history.clone(),
                        ply,
                    };
                    if slot == self.samples.len() {
                        self.samples.push(sample);
                    } else {
                        self.samples[slot] = sample;
                    }
                }
            }
            history.push(board.hash());
        }
    }

    /// Positions seen so far, and how many of them pass the training filter.
    pub fn seen(&self) -> (u64, u64) {
        (self.positions, self.kept)
    }

    /// The sample (fewer than the capacity when fewer positions passed the filter).
    pub fn into_samples(self) -> Vec<Sample> {
        self.samples
    }
}

/// One search of one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Searched {
    /// Score for the side to move (centipawns, or a mate score).
    pub score: i32,
    /// The move the search chose.
    pub best: Move,
    /// Nodes searched.
    pub nodes: u64,
    /// CPU time of the searching thread (zero where it cannot be read).
    pub cpu: Duration,
}

/// Searches `sample` at each soft budget of `budgets` (in that order), each search from an
/// empty table and histories, with datagen's hard cap. `None` when the position has no legal
/// move (the training filter never keeps one).
pub fn measure(player: &mut SelfPlayer, sample: &Sample, budgets: &[u64]) -> Option<Vec<Searched>> {
    budgets
        .iter()
        .map(|&soft| {
            player.new_game();
            let before = progress::thread_cpu_time();
            let (best, score, nodes) =
                player.search_position(&sample.board, &sample.history, soft, hard_nodes_for(soft))?;
            let cpu = before
                .zip(progress::thread_cpu_time())
                .map_or(Duration::ZERO, |(a, b)| b.saturating_sub(a));
            Some(Searched {
                score,
                best,
                nodes,
                cpu,
            })
        })
        .collect()
}

/// One budget's figures against the reference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row {
    /// The soft node budget.
    pub budget: u64,
    /// Positions compared.
    pub positions: usize,
    /// Mean nodes per search.
    pub nodes: f64,
    /// Mean CPU seconds per search.
    pub cpu_secs: f64,
    /// Mean squared difference of `sigmoid(score / SCALE)` from the reference's.
    pub mse: f64,
    /// The standard error of `mse`.
    pub mse_se: f64,
    /// Mean absolute difference in centipawns, both clamped to ±[`CP_CLAMP`].
    pub mae_cp: f64,
    /// The median of the same absolute differences.
    pub median_cp: f64,
    /// Share of positions (0 to 1) where the best move is the reference's.
    pub same_move: f64,
}

impl Row {
    /// Searches per hour of one thread's CPU time (infinite when no time was measured).
    pub fn per_hour(&self) -> f64 {
        3600.0 / self.cpu_secs
    }
}

/// The training target's score part for a score (side to move's view).
pub fn target(score: i32) -> f64 {
    1.0 / (1.0 + (-f64::from(score) / f64::from(nnue::SCALE)).exp())
}

/// One [`Row`] per column of `results` (each entry: one position's searches, in the order of
/// the budgets), each against column `reference`. Empty `results` give no rows.
pub fn summarise(budgets: &[u64], results: &[Vec<Searched>], reference: usize) -> Vec<Row> {
    if results.is_empty() {
        return Vec::new();
    }
    let n = results.len() as f64;
    budgets
        .iter()
        .enumerate()
        .map(|(col, &budget)| {
            let (mut sq, mut sq2, mut same, mut nodes, mut cpu) = (0.0, 0.0, 0, 0u64, 0.0);
            let mut cp: Vec<i32> = Vec::with_capacity(results.len());
            for r in results {
                let (s, t) = (r[col], r[reference]);
                let e = (target(s.score) - target(t.score)).powi(2);
                sq += e;
                sq2 += e * e;
                cp.push((s.score.clamp(-CP_CLAMP, CP_CLAMP) - t.score.clamp(-CP_CLAMP, CP_CLAMP)).abs());
                same += usize::from(s.best == t.best);
                nodes += s.nodes;
                cpu += s.cpu.as_secs_f64();
            }
            let mse = sq / n;
            // The standard error of a mean: the sample deviation over sqrt(n).
            let var = if results.len() > 1 {
                (sq2 / n - mse * mse).max(0.0) * n / (n - 1.0)
            } else {
                0.0
            };
            cp.sort_unstable();
            let mid = cp.len() / 2;
            let median_cp = if cp.len() % 2 == 1 {
                f64::from(cp[mid])
            } else {
                (f64::from(cp[mid - 1]) + f64::from(cp[mid])) / 2.0
            };
            Row {
                budget,
                positions: results.len(),
                nodes: nodes as f64 / n,
                cpu_secs: cpu / n,
                mse,
                mse_se: (var / n).sqrt(),
                mae_cp: cp.iter().map(|&d| f64::from(d)).sum::<f64>() / n,
                median_cp,
                same_move: same as f64 / n,
            }
        })
        .collect()
}

/// The table of `rows` as text, one line per budget, the reference (`reference`, its row
/// compares it with itself) marked; `kept_share` is the share of positions the training
/// filter keeps, for training positions per hour.
pub fn table(rows: &[Row], reference: u64, kept_share: f64) -> String {
    let mut out = String::from(
        "     nodes  nodes/pos  cpu ms/pos  pos/h/thread  train pos/h/thread  MSE(sigmoid) +- s.e.     RMSE  \
         MAE cp  median cp  same move\n",
    );
    for r in rows {
        let mark = if r.budget == reference {
            "  (reference)"
        } else {
            ""
        };
        out.push_str(&format!(
            "{:>10} {:>10.0} {:>11.2} {:>13.0} {:>19.0}  {:>12.6} {:>8.6} {:>8.4} {:>7.1} {:>10.1} {:>9.1}%{mark}\n",
            r.budget,
            r.nodes,
            r.cpu_secs * 1e3,
            r.per_hour(),
            r.per_hour() * kept_share,
            r.mse,
            r.mse_se,
            r.mse.sqrt(),
            r.mae_cp,
            r.median_cp,
            100.0 * r.same_move,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::GenSettings;

    /// A few short real games to sample from (datagen's own play at a tiny budget).
    fn games(count: u64) -> Vec<GameRecord> {
        let mut player = SelfPlayer::new(engine::default_net()).unwrap();
        let mut settings = GenSettings::new(300, 8, true);
        settings.max_plies = 40;
        (0..count)
            .map(|seed| {
                player
                    .play_game(&settings, &settings.opening_source(&[]), &mut Rng(seed))
                    .unwrap()
                    .unwrap()
                    .0
            })
            .collect()
    }

    #[test]
    fn the_sample_is_uniform_over_kept_positions_and_reproducible() {
        let games = games(3);
        let draw = |capacity, seed| {
            let mut r = Reservoir::new(capacity, seed);
            games.iter().for_each(|g| r.add_game(g));
            let seen = r.seen();
            (seen, r.into_samples())
        };
        let ((positions, kept), all) = draw(10_000, 1);
        assert_eq!(positions, games.iter().map(|g| g.moves.len() as u64).sum::<u64>());
        assert!(kept > 10 && kept < positions, "{kept} of {positions}");
        // Room for everything: every kept position, in order, with its game's history.
        assert_eq!(all.len() as u64, kept);
        for s in &all {
            assert!(s.ply >= 16);
            assert_eq!(s.history.len(), s.ply);
        }
        let ((_, _), few) = draw(5, 1);
        assert_eq!(few.len(), 5);
        assert!(few.iter().all(|s| all.contains(s)));
        assert_eq!(draw(5, 1).1, few);
        assert_ne!(draw(5, 2).1, few);
    }

    #[test]
    fn a_budget_against_itself_has_no_error_and_a_smaller_one_has_some() {
        let mut r = Reservoir::new(4, 7);
        games(2).iter().for_each(|g| r.add_game(g));
        let samples = r.into_samples();
        assert_eq!(samples.len(), 4);
        let mut player = SelfPlayer::new(engine::default_net()).unwrap();
        // The reference twice: every search starts afresh, so both give the same answer.
        let budgets = [20, 3000, 3000];
        let results: Vec<Vec<Searched>> = samples
            .iter()
            .map(|s| measure(&mut player, s, &budgets).unwrap())
            .collect();
        let rows = summarise(&budgets, &results, 2);
        assert_eq!(rows.len(), 3);
        for row in &rows {
            assert!(row.mse.is_finite() && row.mse_se.is_finite() && row.mae_cp.is_finite());
            assert!(row.median_cp <= f64::from(2 * CP_CLAMP) && row.mae_cp <= f64::from(2 * CP_CLAMP));
            assert!((0.0..=1.0).contains(&row.mse) && (0.0..=1.0).contains(&row.same_move));
            assert!(row.nodes > 0.0 && row.cpu_secs >= 0.0);
        }
        let (tiny, itself, reference) = (rows[0], rows[1], rows[2]);
        assert_eq!(
            (itself.mse, itself.mae_cp, itself.median_cp, itself.same_move),
            (0.0, 0.0, 0.0, 1.0)
        );
        assert_eq!((reference.mse, reference.mse_se), (0.0, 0.0));
        assert_eq!(itself.nodes, reference.nodes);
        assert!(tiny.mse > 0.0 && tiny.mae_cp > 0.0, "{tiny:?}");
        assert!(tiny.nodes < reference.nodes / 10.0, "{tiny:?}");
        let text = table(&rows, 3000, 0.5);
        assert_eq!(text.lines().count(), 4);
        assert!(
            text.lines().nth(2).unwrap().ends_with("100.0%  (reference)"),
            "{text}"
        );
    }

    #[test]
    fn the_target_is_the_trainers_sigmoid() {
        assert_eq!(target(0), 0.5);
        assert!((target(400) - 1.0 / (1.0 + (-1.0f64).exp())).abs() < 1e-12);
        assert!((target(-250) + target(250) - 1.0).abs() < 1e-12);
        assert!(summarise(&[1], &[], 0).is_empty());
    }
}

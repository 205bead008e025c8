//! The counts of a match from one engine's side: trinomial (losses, draws, wins per game)
//! and pentanomial (per pair of games with colours reversed: LL, LD, DD+WL, WD, WW), kept
//! as the games end, and the Elo estimate of them as fastchess computes it
//! ([`crate::stats::estimate`]). The pentanomial bucket of one win and one loss is the same
//! as that of two draws (both score one point of two); `wl` keeps how many were a win and a
//! loss, for the report's `WL/DD Ratio`.

use crate::stats::{self, Counts, EloEstimate};

/// Running totals from one engine's side against another.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// (losses, draws, wins).
    pub tri: [u64; 3],
    /// (LL, LD, DD+WL, WD, WW).
    pub penta: [u64; 5],
    /// How many of `penta[2]` were a win and a loss (the rest are two draws).
    pub wl: u64,
}

impl Tally {
    /// Games counted.
    pub fn games(&self) -> u64 {
        self.tri.iter().sum()
    }

    /// Complete game pairs counted.
    pub fn pairs(&self) -> u64 {
        self.penta.iter().sum()
    }

    /// Counts one game: `half_points` 0 (a loss), 1 (a draw) or 2 (a win). Panics above 2.
    pub fn add_game(&mut self, half_points: u8) {
        self.tri[usize::from(half_points)] += 1;
    }

    /// Counts one complete pair from its two games' half-points (each 0 to 2; the games
    /// themselves are counted by [`Tally::add_game`]).
    pub fn add_pair(&mut self, a: u8, b: u8) {
        self.penta[usize::from(a + b)] += 1;
        if a + b == 2 && a != 1 {
            self.wl += 1;
        }
    }
}

/// fastchess's estimate ([`stats::estimate`]) of a tally: per pair (`penta`) or per game.
pub fn estimate(tally: &Tally, penta: bool) -> EloEstimate {
    stats::estimate(if penta {
        Counts::Penta(tally.penta)
    } else {
        Counts::Tri(tally.tri)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_count_win_loss_apart_from_two_draws() {
        let mut t = Tally::default();
        t.add_pair(2, 0);
        t.add_pair(1, 1);
        t.add_pair(0, 2);
        t.add_pair(2, 1);
        assert_eq!((t.penta, t.wl), ([0, 0, 3, 1, 0], 2));
    }
}

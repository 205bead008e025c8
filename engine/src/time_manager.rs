//! How long to think. A `go` with clock times gets a soft limit (checked between
//! iterations: do not start another one past it) and a hard limit (checked every 1024
//! nodes: stop at once). Both come from the remaining time divided over the expected moves
//! to go plus most of the increment, minus `Move Overhead`, and the hard limit never takes
//! more than a fixed fraction of what is left, so a game at 1 s + 0.01 s is never lost on
//! time. `movetime` makes both limits that time less the overhead. While pondering the
//! clock does not run; `ponderhit` starts it. The arithmetic saturates, so no clock value
//! (the UCI front end clamps them to [`MAX_TIME_MS`]) can overflow into a wrong limit.
//!
//! A `go` that gives a clock but no time for the side to move (`go wtime 1000` with Black
//! to move) is a GUI error; the front end then plans with the other side's time, or with
//! [`ASSUMED_TIME_MS`] left when there is none, instead of searching without end.

use crate::params::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The largest clock value (time, increment, movetime) taken from `go`, in ms: about 31
/// years; larger values are clamped to it.
pub const MAX_TIME_MS: u64 = 1_000_000_000_000;

/// The least and the most the search may scale a soft limit by ([`search_scale`]).
pub const TM_MIN_SCALE: f64 = 0.4;
/// See [`TM_MIN_SCALE`].
pub const TM_MAX_SCALE: f64 = 2.5;

/// How much of its base soft limit a search should use, from what its last iteration
/// showed: `best_fraction`, the share (0 to 1) of the search's nodes spent below the best
/// move (a move that takes most of the effort is clear: less; a contested one: more);
/// `stability`, how many iterations in a row kept the best move; `score_drop`, how many
/// centipawns the best score fell since the previous iteration. The product of the three
/// factors (the `tm_*` tunables), within [[`TM_MIN_SCALE`], [`TM_MAX_SCALE`]]. The
/// one rule for both soft limits: a clock's (`TimeManager::scale_soft`) and a soft node
/// budget's (datagen, `UseSoftNodes`: [`crate::Limits::soft_nodes`]).
pub fn search_scale(best_fraction: f64, stability: u32, score_drop: i32) -> f64 {
    let per_mille = |v: i32| f64::from(v) / 1000.0;
    let nodes = per_mille(tm_nodes_base()) - per_mille(tm_nodes_scale()) * best_fraction.clamp(0.0, 1.0);
    let stable =
        per_mille(tm_stability_base()) - per_mille(tm_stability_step()) * f64::from(stability.min(8));
    let drop = (1.0 + per_mille(tm_score_drop_scale()) * f64::from(score_drop.max(0))).clamp(0.8, 1.5);
    (nodes * stable * drop).clamp(TM_MIN_SCALE, TM_MAX_SCALE)
}

/// The mean of [`search_scale`] over self-play moves at datagen's budgets: a soft node budget
/// is scaled by `search_scale / SOFT_NODES_MEAN_SCALE`, so `datagen --nodes N` still
/// averages about N nodes a position. Measured with gen20-128 at 5000 soft nodes (datagen,
/// 20,000 positions, one seed): 6,366 nodes a position scaled by `search_scale` alone,
/// 5,164 unscaled; and 5,308 at 4,050 scaled, so 1.23 to 1.27.
pub const SOFT_NODES_MEAN_SCALE: f64 = 1.25;

/// The time left assumed when a `go` has clock fields but no time for either side.
pub const ASSUMED_TIME_MS: u64 = 1000;

/// The side to move's clock, as a `go` command gives it. All values in milliseconds;
/// the arithmetic saturates, so no value overflows (UCI clamps them to 31 years).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Time left on the side to move's clock (`wtime` or `btime`).
    pub time_ms: Option<u64>,
    /// Its increment per move (`winc` or `binc`), 0 for none.
    pub increment_ms: u64,
    /// Moves until the next time control (`movestogo`); none for sudden death.
    pub moves_to_go: Option<u64>,
    /// A fixed time for this move (`movetime`); it wins over `time_ms`.
    pub movetime_ms: Option<u64>,
}

/// The soft and hard limits of one search, and the clock they are measured on.
#[derive(Clone, Debug)]
pub struct TimeManager {
    start: Instant,
    /// The soft limit before any rescaling by the search.
    base_soft: Duration,
    soft: Duration,
    hard: Duration,
    /// Set while pondering; the clock starts when it is cleared.
    pondering: Arc<AtomicBool>,
    /// Milliseconds after `start` at which `ponderhit` arrived.
    ponderhit_at: Arc<AtomicU64>,
}

/// `ms * p / 1000` without overflow (saturating).
fn per_mille(ms: u64, p: u64) -> u64 {
    (ms / 1000).saturating_mul(p).saturating_add(ms % 1000 * p / 1000)
}

/// A time parameter (never negative) as a `u64`.
fn param(value: i32) -> u64 {
    value.max(0) as u64
}

impl TimeManager {
    /// Limits for `clock`, or `None` when the `go` has no time limit.
    pub fn new(clock: Clock, overhead_ms: u64, start: Instant, pondering: Arc<AtomicBool>) -> Option<Self> {
        let (soft_ms, hard_ms) = if let Some(movetime) = clock.movetime_ms {
            let t = movetime.saturating_sub(overhead_ms).max(1);
            (t, t)
        } else {
            let time = clock.time_ms?;
            let available = time.saturating_sub(overhead_ms).max(1);
            let moves_to_go = clock
                .moves_to_go
                .unwrap_or(param(time_default_moves_to_go()))
                .clamp(1, param(time_max_moves_to_go()).max(1));
            let base = (available / moves_to_go)
                .saturating_add(per_mille(clock.increment_ms, param(time_increment_per_mille())));
            let cap = per_mille(available, param(time_max_fraction_per_mille()));
            let hard = per_mille(base, param(time_hard_per_mille())).min(cap).max(1);
            let soft = per_mille(base, param(time_soft_per_mille())).min(hard).max(1);
            (soft, hard)
        };
        Some(TimeManager {
            start,
            base_soft: Duration::from_millis(soft_ms),
            soft: Duration::from_millis(soft_ms),
            hard: Duration::from_millis(hard_ms),
            pondering,
            ponderhit_at: Arc::new(AtomicU64::new(0)),
        })
    }

    /// The shared cell `ponderhit` writes its arrival time into.
    pub fn ponderhit_cell(&self) -> Arc<AtomicU64> {
        self.ponderhit_at.clone()
    }

    /// Time on our clock so far (zero while pondering).
    fn used(&self) -> Option<Duration> {
        if self.pondering.load(Ordering::Relaxed) {
            return None;
        }
        let hit = Duration::from_millis(self.ponderhit_at.load(Ordering::Relaxed));
        Some(self.start.elapsed().saturating_sub(hit))
    }

    /// Rescales the soft limit by [`search_scale`] of what the last iteration showed, never
    /// past the hard limit. A `movetime` search (soft equal to hard) is left as it is.
    pub fn scale_soft(&mut self, scale: f64) {
        if self.base_soft >= self.hard {
            return;
        }
        self.soft = self.base_soft.mul_f64(scale).min(self.hard);
    }

    /// Whether the soft limit is used up (start no new iteration).
    pub fn soft_limit_reached(&self) -> bool {
        self.used().is_some_and(|u| u >= self.soft)
    }

    /// Whether the hard limit is used up (stop at once).
    pub fn hard_limit_reached(&self) -> bool {
        self.used().is_some_and(|u| u >= self.hard)
    }

    #[cfg(test)]
    fn soft_limit(&self) -> Duration {
        self.soft
    }

    #[cfg(test)]
    fn hard_limit(&self) -> Duration {
        self.hard
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manager(clock: Clock, overhead: u64) -> TimeManager {
        TimeManager::new(clock, overhead, Instant::now(), Arc::new(AtomicBool::new(false))).unwrap()
    }

    #[test]
    fn the_search_scales_the_soft_limit_within_bounds() {
        let clock = Clock {
            time_ms: Some(60_000),
            increment_ms: 600,
            ..Clock::default()
        };
        let base = manager(clock, 10).soft_limit();
        // A clear, stable best move: less time; a contested, new one with a falling score: more.
        let mut clear = manager(clock, 10);
        clear.scale_soft(search_scale(0.95, 8, 0));
        let mut contested = manager(clock, 10);
        contested.scale_soft(search_scale(0.2, 0, 40));
        assert!(clear.soft_limit() < base, "{:?} {:?}", clear.soft_limit(), base);
        assert!(contested.soft_limit() > base);
        assert!(contested.soft_limit() <= contested.hard_limit());
        assert!(clear.soft_limit() >= base.mul_f64(TM_MIN_SCALE));
        // movetime: untouched.
        let mut fixed = manager(
            Clock {
                movetime_ms: Some(500),
                ..Clock::default()
            },
            10,
        );
        fixed.scale_soft(search_scale(0.1, 0, 100));
        assert_eq!(fixed.soft_limit(), fixed.hard_limit());
    }

    #[test]
    fn limits_fit_the_clock() {
        // 1 s + 0.01 s with 10 ms overhead: (990 / 25 + 7) = 46 ms base.
        let tm = manager(
            Clock {
                time_ms: Some(1000),
                increment_ms: 10,
                ..Clock::default()
            },
            10,
        );
        assert_eq!(
            tm.soft_limit(),
            Duration::from_millis(46 * param(time_soft_per_mille()) / 1000)
        );
        assert_eq!(tm.hard_limit(), Duration::from_millis(115));
        // Nearly flagged: never more than 40% of what is left.
        let tm = manager(
            Clock {
                time_ms: Some(30),
                increment_ms: 10,
                ..Clock::default()
            },
            10,
        );
        assert_eq!(tm.hard_limit(), Duration::from_millis(8));
        let tm = manager(
            Clock {
                movetime_ms: Some(500),
                ..Clock::default()
            },
            20,
        );
        assert_eq!(
            (tm.soft_limit(), tm.hard_limit()),
            (Duration::from_millis(480), Duration::from_millis(480))
        );
        // Absurd clocks cannot overflow into a short (or endless) limit.
        let tm = manager(
            Clock {
                time_ms: Some(u64::MAX),
                increment_ms: u64::MAX,
                moves_to_go: Some(1),
                ..Clock::default()
            },
            10,
        );
        let left = u64::MAX - 10;
        let fraction = param(time_max_fraction_per_mille());
        let cap = left / 1000 * fraction + left % 1000 * fraction / 1000;
        assert_eq!(tm.hard_limit(), Duration::from_millis(cap));
        assert!(tm.soft_limit() <= tm.hard_limit());
        // No time left at all: the smallest limits, not none.
        let tm = manager(
            Clock {
                time_ms: Some(0),
                moves_to_go: Some(1),
                ..Clock::default()
            },
            10,
        );
        assert_eq!(
            (tm.soft_limit(), tm.hard_limit()),
            (Duration::from_millis(1), Duration::from_millis(1))
        );
        assert!(TimeManager::new(
            Clock::default(),
            10,
            Instant::now(),
            Arc::new(AtomicBool::new(false))
        )
        .is_none());
    }
}

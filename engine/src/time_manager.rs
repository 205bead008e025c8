//! How long to think. A `go` with clock times gets a soft limit (checked between
//! iterations: do not start another one past it) and a hard limit (checked every 1024
//! nodes: stop at once). Both come from the remaining time divided over the expected moves
//! to go plus most of the increment, minus `Move Overhead`, and the hard limit never takes
//! more than a fixed fraction of what is left, so a game at 1 s + 0.01 s is never lost on
//! time. `movetime` makes both limits that time less the overhead. While pondering the
//! clock does not run; `ponderhit` starts it.

use crate::params::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The clock part of a `go` command.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    pub time_ms: Option<u64>,
    pub increment_ms: u64,
    pub moves_to_go: Option<u64>,
    pub movetime_ms: Option<u64>,
}

#[derive(Clone, Debug)]
pub struct TimeManager {
    start: Instant,
    soft: Duration,
    hard: Duration,
    /// Set while pondering; the clock starts when it is cleared.
    pondering: Arc<AtomicBool>,
    /// Milliseconds after `start` at which `ponderhit` arrived.
    ponderhit_at: Arc<AtomicU64>,
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
            let moves_to_go = clock.moves_to_go.unwrap_or(TIME_DEFAULT_MOVES_TO_GO).clamp(1, 50);
            let base = available / moves_to_go + clock.increment_ms * 3 / 4;
            let cap = available * TIME_MAX_FRACTION_PER_MILLE / 1000;
            let hard = (base * TIME_HARD_PER_MILLE / 1000).min(cap).max(1);
            let soft = (base * TIME_SOFT_PER_MILLE / 1000).min(hard).max(1);
            (soft, hard)
        };
        Some(TimeManager {
            start,
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

    pub fn start(&self) -> Instant {
        self.start
    }

    /// Time on our clock so far (zero while pondering).
    fn used(&self) -> Option<Duration> {
        if self.pondering.load(Ordering::Relaxed) {
            return None;
        }
        let hit = Duration::from_millis(self.ponderhit_at.load(Ordering::Relaxed));
        Some(self.start.elapsed().saturating_sub(hit))
    }

    pub fn soft_limit_reached(&self) -> bool {
        self.used().is_some_and(|u| u >= self.soft)
    }

    pub fn hard_limit_reached(&self) -> bool {
        self.used().is_some_and(|u| u >= self.hard)
    }

    pub fn soft_limit(&self) -> Duration {
        self.soft
    }

    pub fn hard_limit(&self) -> Duration {
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
        assert_eq!(tm.soft_limit(), Duration::from_millis(27));
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
        assert!(TimeManager::new(
            Clock::default(),
            10,
            Instant::now(),
            Arc::new(AtomicBool::new(false))
        )
        .is_none());
    }
}

//! `progress`: the one progress display of Luft's long-running tools (`datagen`,
//! `trainer`, `arena`). On a terminal, stderr gets an `indicatif` bar, all of them drawn
//! alike ([`bar`]: spinner, elapsed time, `=> ` bar, the tool's own counts and message,
//! redrawn four times a second); piped or logged, the tools print plain lines instead, at
//! most every [`PLAIN_EVERY`] ([`Throttle`]), so a log file stays readable. What the bar
//! counts and what the lines say stay with each tool: only how they are shown lives here.
//!
//! The rates those lines show are measured in CPU time as well as wall-clock time (the
//! machines they run on are shared, so wall-clock rates fall whenever other work runs):
//! [`process_cpu_time`] (every thread of the process) and [`thread_cpu_time`] (the calling
//! thread), read with `clock_gettime`, `None` where the platform does not say.
//!
//! It is its own small crate because the three tools share nothing else that could carry
//! it: `arena` depends on `movegen` alone, and neither `movegen` (no dependencies by
//! design) nor `nnue` (the net definition the engine links) should pull in a terminal
//! library.

#![warn(missing_docs)]

pub use indicatif::ProgressBar;
use indicatif::ProgressStyle;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// How often a plain progress line is printed when stderr is not a terminal.
pub const PLAIN_EVERY: Duration = Duration::from_secs(10);

/// How often a bar is redrawn by itself (the spinner and the elapsed time move between
/// updates).
pub const TICK: Duration = Duration::from_millis(250);

/// Whether stderr is a terminal: the tools draw a bar only then.
pub fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}

/// A bar on stderr over `len` units (`None`: a spinner without a total), starting at
/// `done` (a resumed run's work), drawn with `template` (indicatif's keys: `{spinner}`,
/// `{elapsed_precise}`, `{wide_bar}`, `{pos}`, `{len}`, `{per_sec}`, `{eta}`, `{msg}`; a
/// template indicatif refuses falls back to its default bar). It ticks by itself every
/// [`TICK`], and its ETA counts from now, not from `done`.
pub fn bar(len: Option<u64>, done: u64, template: &str) -> ProgressBar {
    let bar = match len {
        Some(len) => ProgressBar::new(len),
        None => ProgressBar::new_spinner(),
    }
    .with_position(done);
    bar.set_style(
        ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.enable_steady_tick(TICK);
    bar.reset_eta();
    bar
}

/// When a plain progress line is due: the first time it is asked, then at most once every
/// `every`.
#[derive(Clone, Copy, Debug)]
pub struct Throttle {
    every: Duration,
    last: Option<Instant>,
}

impl Throttle {
    /// A throttle letting a line through at most once every `every` ([`PLAIN_EVERY`] for
    /// the tools' plain lines).
    pub fn new(every: Duration) -> Throttle {
        Throttle { every, last: None }
    }

    /// Whether a line may be printed now (and if so, the clock restarts).
    pub fn due(&mut self) -> bool {
        let due = self.last.is_none_or(|t| t.elapsed() >= self.every);
        if due {
            self.last = Some(Instant::now());
        }
        due
    }
}

/// The CPU time this process has used so far, all its threads together (`None` where the
/// platform does not say).
pub fn process_cpu_time() -> Option<Duration> {
    cpu_time(Clock::Process)
}

/// The CPU time the calling thread has used so far (`None` where the platform does not
/// say): what one search cost, whatever else the process is doing.
pub fn thread_cpu_time() -> Option<Duration> {
    cpu_time(Clock::Thread)
}

#[derive(Clone, Copy)]
enum Clock {
    Process,
    Thread,
}

fn cpu_time(clock: Clock) -> Option<Duration> {
    #[cfg(unix)]
    {
        let id = match clock {
            Clock::Process => libc::CLOCK_PROCESS_CPUTIME_ID,
            Clock::Thread => libc::CLOCK_THREAD_CPUTIME_ID,
        };
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes only the timespec it is given, which outlives the call.
        let rc = unsafe { libc::clock_gettime(id, &mut ts) };
        let secs = u64::try_from(ts.tv_sec).ok()?;
        let nanos = u32::try_from(ts.tv_nsec).ok()?;
        (rc == 0).then(|| Duration::new(secs, nanos))
    }
    #[cfg(not(unix))]
    {
        let _ = clock;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spins for `ms` milliseconds of wall-clock time.
    fn spin(ms: u64) {
        let mut x = 1u64;
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(ms) {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
    }

    #[test]
    fn the_cpu_times_grow_with_work() {
        let (process, thread) = (process_cpu_time(), thread_cpu_time());
        spin(50);
        if cfg!(unix) {
            let (p0, p1) = (process.unwrap(), process_cpu_time().unwrap());
            let (t0, t1) = (thread.unwrap(), thread_cpu_time().unwrap());
            assert!(p1 > p0, "{p0:?} -> {p1:?}");
            assert!(t1 > t0, "{t0:?} -> {t1:?}");
            // A sleeping thread uses (almost) no CPU time.
            let before = thread_cpu_time().unwrap();
            std::thread::sleep(Duration::from_millis(50));
            let slept = thread_cpu_time().unwrap() - before;
            assert!(slept < Duration::from_millis(25), "{slept:?}");
        }
    }

    #[test]
    fn the_throttle_lets_one_line_through_per_period() {
        let mut t = Throttle::new(Duration::from_millis(40));
        assert!(t.due());
        assert!(!t.due());
        std::thread::sleep(Duration::from_millis(50));
        assert!(t.due());
        assert!(!t.due());
        let mut always = Throttle::new(Duration::ZERO);
        assert!(always.due() && always.due());
    }

    #[test]
    fn bars_start_at_the_work_done_and_spinners_have_no_total() {
        let b = bar(Some(100), 40, "{pos}/{len} {msg}");
        assert_eq!((b.position(), b.length()), (40, Some(100)));
        b.inc(2);
        assert_eq!(b.position(), 42);
        b.finish_and_clear();
        let s = bar(None, 7, "{spinner} {pos} games");
        assert_eq!((s.position(), s.length()), (7, None));
        s.finish_and_clear();
        // A template indicatif refuses still gives a bar.
        let bad = bar(Some(3), 0, "{unclosed");
        bad.inc(1);
        assert_eq!(bad.position(), 1);
        bad.finish_and_clear();
    }
}

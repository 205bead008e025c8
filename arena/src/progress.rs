//! A progress bar for people watching a match: games finished of the total, rate, ETA, and
//! the score so far (Elo and, in an SPRT, the LLR), drawn on stderr when stderr is a
//! terminal (the workspace's `progress` crate, which draws datagen's and the trainer's
//! bars too). The match's own output (fastchess's lines, which OpenBench and
//! scripts read) stays on stdout, unchanged; each of its lines is printed with the bar
//! lifted and redrawn below it, so the two never tear each other. When stderr is not a
//! terminal (OpenBench, a log file, the tests) there is no bar and nothing else changes.

use progress::ProgressBar;

/// The bar, or nothing.
#[derive(Debug)]
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar over `total` games with `done` already played, when stderr is a terminal.
    pub fn new(total: u64, done: u64) -> Progress {
        Progress::with_terminal(total, done, progress::stderr_is_terminal())
    }

    /// As [`Progress::new`], with the terminal question answered by the caller.
    pub fn with_terminal(total: u64, done: u64, terminal: bool) -> Progress {
        let bar = terminal.then(|| {
            progress::bar(
                Some(total),
                done.min(total),
                "{spinner} {elapsed_precise} [{wide_bar}] {pos}/{len} games, ETA {eta}  {msg}",
            )
        });
        Progress { bar }
    }

    /// Whether a bar is shown.
    pub fn is_shown(&self) -> bool {
        self.bar.is_some()
    }

    /// Prints a line of the match's output on stdout, with the bar out of the way.
    pub fn say(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| output::outln!("{text}")),
            None => output::outln!("{text}"),
        }
    }

    /// One more game finished; `summary` is the score so far.
    pub fn game_finished(&self, summary: String) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
            bar.set_message(summary);
        }
    }

    /// Takes the bar off the screen (before the final report).
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_terminal_there_is_no_bar() {
        let p = Progress::with_terminal(10, 0, false);
        assert!(!p.is_shown());
        p.game_finished("x".into());
        p.finish();
        let p = Progress::with_terminal(10, 4, true);
        assert!(p.is_shown());
        p.game_finished("Elo 3.0".into());
        assert_eq!(p.bar.as_ref().map(|b| b.position()), Some(5));
        p.finish();
    }
}

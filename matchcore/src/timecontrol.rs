//! Time controls as cutechess-cli and fastchess write them, and the clock that keeps them.
//!
//! `tc=` takes `[MOVES/]TIME[+INC]`: TIME is seconds (`8`, `0.5`) or minutes and seconds
//! (`1:30`, `0:05.5`), INC is seconds, and MOVES makes a repeating control: after every
//! MOVES moves of its own, a side's clock gets TIME again (`40/60+0.6`: 60 s for each 40
//! moves, 0.6 s more after every move). `inf` (or `infinite`) is no clock at all, for games
//! at a node or depth limit. A time of 0 with an increment is allowed (`0+0.1`); a control
//! that gives no time at all is refused.
//!
//! The [`Clock`] keeps one side's time exactly as the control says: a move's thinking time
//! comes off the clock; a clock that falls below minus the time margin has lost on time;
//! otherwise it stops at zero or above, gets the increment, and, when the move ends a
//! session of MOVES moves, the session time. `go` is told `movestogo` (moves left in the
//! session) for a repeating control.

use std::fmt;

/// Longest time or increment a control may name: a day, in milliseconds.
pub const MAX_TIME_MS: u64 = 86_400_000;
/// Largest time margin (the grace past a clock's end before a move is lost on time), in
/// milliseconds: a day.
pub const MAX_TIME_MARGIN_MS: u64 = 86_400_000;
/// Most moves a repeating session may have.
pub const MAX_SESSION_MOVES: u32 = 10_000;

/// A clock control: time per session, increment, and moves per session (`None`: the whole
/// game is one session).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Moves per session (`40/` in `40/60+0.6`); `None`: one session for the whole game.
    pub moves: Option<u32>,
    /// Time per session, in milliseconds.
    pub base_ms: u64,
    /// Increment per move, in milliseconds.
    pub inc_ms: u64,
}

/// Seconds as fastchess prints them in a time control: no trailing zeros, up to three
/// decimals (`8`, `0.08`, `60`, `0.6`).
pub fn seconds_text(ms: u64) -> String {
    let text = format!("{:.3}", ms as f64 / 1000.0);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl fmt::Display for TimeControl {
    /// `40/60+0.6`, `8+0.08`, `10` (the form fastchess prints and PGN `TimeControl` holds).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(moves) = self.moves {
            write!(f, "{moves}/")?;
        }
        write!(f, "{}", seconds_text(self.base_ms))?;
        if self.inc_ms > 0 {
            write!(f, "+{}", seconds_text(self.inc_ms))?;
        }
        Ok(())
    }
}

/// Why a `tc=` value is refused; each names the value as given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TimeControlError {
    /// Not of the form `[MOVES/]TIME[+INC]`.
    #[error("bad time control {0:?} (expected [MOVES/]TIME[+INC], TIME in seconds or M:SS)")]
    Form(String),
    /// A time or increment over [`MAX_TIME_MS`].
    #[error("time control {0:?} is longer than a day")]
    TooLong(String),
    /// cutechess's hourglass (`hg`).
    #[error("time control {0:?}: hourglass controls are not supported")]
    Hourglass(String),
    /// Moves per session that are not from 1 to [`MAX_SESSION_MOVES`].
    #[error(
        "time control {0:?}: the moves per session must be a whole number from 1 to {MAX_SESSION_MOVES}"
    )]
    SessionMoves(String),
    /// An increment given as minutes and seconds.
    #[error("time control {0:?}: the increment is in seconds")]
    IncrementNotSeconds(String),
    /// No time and no increment.
    #[error("time control {0:?} gives no time")]
    NoTime(String),
}

/// Seconds (`1.5`, `90`) or minutes and seconds (`1:30`, `0:05.5`) to milliseconds.
fn duration_ms(text: &str, whole: &str) -> Result<u64, TimeControlError> {
    let bad = || TimeControlError::Form(whole.to_string());
    let seconds = |s: &str| -> Result<f64, TimeControlError> {
        let s = s.trim();
        if s.is_empty() || !s.chars().all(|c| c.is_ascii_digit() || c == '.') {
            return Err(bad());
        }
        s.parse::<f64>().map_err(|_| bad())
    };
    let total = match text.split_once(':') {
        Some((minutes, secs)) => {
            if secs.contains(':') {
                return Err(bad());
            }
            seconds(minutes)? * 60.0 + seconds(secs)?
        }
        None => seconds(text)?,
    };
    let ms = (total * 1000.0).round();
    if !(0.0..=MAX_TIME_MS as f64).contains(&ms) {
        return Err(TimeControlError::TooLong(whole.to_string()));
    }
    Ok(ms as u64)
}

/// Parses a `tc=` value; `Ok(None)` is `inf`, no clock. Errors: [`TimeControlError`].
pub fn parse(value: &str) -> Result<Option<TimeControl>, TimeControlError> {
    let text = value.trim();
    if text == "inf" || text == "infinite" {
        return Ok(None);
    }
    if text.contains("hg") {
        return Err(TimeControlError::Hourglass(value.to_string()));
    }
    let (moves, rest) = match text.split_once('/') {
        Some((moves, rest)) => {
            let count = match moves.trim() {
                "inf" | "infinite" => None,
                m => match m.parse::<u32>() {
                    Ok(n) if (1..=MAX_SESSION_MOVES).contains(&n) => Some(n),
                    _ => return Err(TimeControlError::SessionMoves(value.to_string())),
                },
            };
            (count, rest)
        }
        None => (None, text),
    };
    let (time, inc) = match rest.split_once('+') {
        Some((time, inc)) => (time, Some(inc)),
        None => (rest, None),
    };
    let base_ms = duration_ms(time, value)?;
    let inc_ms = match inc {
        Some(inc) if inc.contains(':') => {
            return Err(TimeControlError::IncrementNotSeconds(value.to_string()))
        }
        Some(inc) => duration_ms(inc, value)?,
        None => 0,
    };
    if base_ms == 0 && inc_ms == 0 {
        return Err(TimeControlError::NoTime(value.to_string()));
    }
    Ok(Some(TimeControl {
        moves,
        base_ms,
        inc_ms,
    }))
}

/// One side's clock under a [`TimeControl`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// The control the clock runs under.
    pub control: TimeControl,
    /// Time left in milliseconds (never below zero between moves).
    pub left_ms: u64,
    /// Moves this side has made on the clock.
    pub moves_made: u32,
}

/// What happened to a clock after a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tick {
    /// In time; the clock now shows this.
    InTime,
    /// Over by more than the margin allows: lost on time.
    Flagged {
        /// How far over, in milliseconds.
        overrun_ms: u64,
    },
}

impl Clock {
    /// A clock at the start of a game: the first session's time, no moves made.
    pub fn new(control: TimeControl) -> Clock {
        Clock {
            control,
            left_ms: control.base_ms,
            moves_made: 0,
        }
    }

    /// Moves left until the session ends (for `go movestogo`), for a repeating control.
    pub fn moves_to_go(&self) -> Option<u32> {
        self.control.moves.map(|n| n - self.moves_made % n)
    }

    /// Books a move that took `elapsed_ms`, with `margin_ms` of grace.
    pub fn after_move(&mut self, elapsed_ms: u64, margin_ms: u64) -> Tick {
        if elapsed_ms > self.left_ms + margin_ms {
            return Tick::Flagged {
                overrun_ms: elapsed_ms - self.left_ms,
            };
        }
        self.left_ms = self.left_ms.saturating_sub(elapsed_ms) + self.control.inc_ms;
        self.moves_made += 1;
        if let Some(n) = self.control.moves {
            if self.moves_made.is_multiple_of(n) {
                self.left_ms += self.control.base_ms;
            }
        }
        Tick::InTime
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(moves: Option<u32>, base_ms: u64, inc_ms: u64) -> Option<TimeControl> {
        Some(TimeControl {
            moves,
            base_ms,
            inc_ms,
        })
    }

    #[test]
    fn reads_every_form() {
        assert_eq!(parse("8+0.08"), Ok(tc(None, 8000, 80)));
        assert_eq!(parse("10"), Ok(tc(None, 10_000, 0)));
        assert_eq!(parse("40/60+0.6"), Ok(tc(Some(40), 60_000, 600)));
        assert_eq!(parse("40/60"), Ok(tc(Some(40), 60_000, 0)));
        assert_eq!(parse("1:30+1"), Ok(tc(None, 90_000, 1000)));
        assert_eq!(parse("0:05.5"), Ok(tc(None, 5500, 0)));
        assert_eq!(parse("40/2:00+0.5"), Ok(tc(Some(40), 120_000, 500)));
        assert_eq!(parse("inf/10+0.1"), Ok(tc(None, 10_000, 100)));
        assert_eq!(parse("0+0.1"), Ok(tc(None, 0, 100)));
        assert_eq!(parse("inf"), Ok(None));
        assert_eq!(parse("infinite"), Ok(None));
        for bad in [
            "", "x", "1+", "+1", "0/10", "-5+1", "1:2:3", "10+1:00", "40/", "1e3", "0", "0+0", "nan",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} accepted");
        }
        assert_eq!(parse("100000"), Err(TimeControlError::TooLong("100000".into())));
        assert!(parse("100000")
            .unwrap_err()
            .to_string()
            .contains("longer than a day"));
        assert_eq!(
            parse("40/60hg"),
            Err(TimeControlError::Hourglass("40/60hg".into()))
        );
        assert!(parse("40/60hg").unwrap_err().to_string().contains("hourglass"));
        assert_eq!(parse("0/10"), Err(TimeControlError::SessionMoves("0/10".into())));
        assert_eq!(
            parse("10+1:00"),
            Err(TimeControlError::IncrementNotSeconds("10+1:00".into()))
        );
        assert_eq!(parse("0+0"), Err(TimeControlError::NoTime("0+0".into())));
        assert_eq!(parse("1:2:3"), Err(TimeControlError::Form("1:2:3".into())));
    }

    #[test]
    fn prints_as_fastchess_does() {
        for text in ["8+0.08", "40/60+0.6", "10", "0.5+0.01", "40/90"] {
            assert_eq!(parse(text).unwrap().unwrap().to_string(), text);
        }
        assert_eq!(parse("1:30+1").unwrap().unwrap().to_string(), "90+1");
    }

    #[test]
    fn the_clock_books_increments_sessions_and_flag_falls() {
        // 2 moves in 1 s, 0.1 s increment.
        let mut clock = Clock::new(parse("2/1+0.1").unwrap().unwrap());
        assert_eq!((clock.left_ms, clock.moves_to_go()), (1000, Some(2)));
        assert_eq!(clock.after_move(300, 0), Tick::InTime);
        assert_eq!((clock.left_ms, clock.moves_to_go()), (800, Some(1)));
        // The second move ends the session: the session time comes back on top.
        assert_eq!(clock.after_move(500, 0), Tick::InTime);
        assert_eq!((clock.left_ms, clock.moves_to_go()), (1400, Some(2)));
        // Within the margin: the clock stops at zero, then gets the increment.
        assert_eq!(clock.after_move(1450, 100), Tick::InTime);
        assert_eq!(clock.left_ms, 100);
        // Past the margin: lost, by the overrun.
        assert_eq!(clock.after_move(300, 100), Tick::Flagged { overrun_ms: 200 });
        // Sudden death with increment.
        let mut clock = Clock::new(parse("8+0.08").unwrap().unwrap());
        assert_eq!(clock.moves_to_go(), None);
        clock.after_move(1000, 0);
        assert_eq!(clock.left_ms, 7080);
    }
}

//! `learn`: the loop that runs itself. `learn init DIR --net NET` makes a run directory,
//! `learn run DIR [--for 170m | --until HH:MM]` runs (and resumes) it, `learn status DIR`
//! tells where it is, `learn report DIR` writes its report. See docs/learn.md.

use anyhow::{bail, Result};
use clap::{Parser, Subcommand};
use learn::run::{Runner, Until};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Parser, Debug)]
#[command(
    name = "learn",
    about = "Luft's learning loop: self-play, training, SPRT gate, promotion",
    version
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Makes a run directory: DIR/learn.toml with every setting at its default, the start net
    /// in DIR/nets/, the journal's first record.
    Init {
        /// The run directory (created).
        dir: PathBuf,
        /// The start net (the best net until a candidate beats it).
        #[arg(long)]
        net: PathBuf,
        /// Its name (default: the file's stem, e.g. gen13-128).
        #[arg(long)]
        name: Option<String>,
        /// Data used in every training besides the run's own self-play ([train] extra_data).
        #[arg(long = "extra-data")]
        extra_data: Vec<PathBuf>,
        /// Replace a learn.toml, openings.epd or nets/NAME.nnue already in DIR (without it,
        /// init refuses them; a run, DIR/journal, is never replaced).
        #[arg(long)]
        force: bool,
    },
    /// Runs the loop in DIR until stopped (Ctrl-C, SIGTERM) or the set time; resumes where
    /// it was.
    Run {
        /// The run directory.
        dir: PathBuf,
        /// Stop cleanly after this long (`170m`, `3h`, `90s`).
        #[arg(long = "for", value_parser = parse_duration)]
        for_: Option<Duration>,
        /// Stop cleanly at this local wall-clock time (HH:MM, today or tomorrow).
        #[arg(long, value_parser = parse_clock)]
        until: Option<Duration>,
        /// Stop cleanly once this many candidates (counting earlier runs) are decided.
        #[arg(long)]
        candidates: Option<usize>,
    },
    /// Where the run is: stage, best net, data, the gate's LLR so far, cores.
    Status {
        /// The run directory.
        dir: PathBuf,
    },
    /// Writes DIR/report.md with PNG plots and DIR/candidates.json.
    Report {
        /// The run directory.
        dir: PathBuf,
    },
}

/// The longest `--for`: ten years, far past any run, and a deadline every clock can hold.
const MAX_FOR_SECS: u64 = 10 * 366 * 24 * 3600;

/// `170m`, `3h`, `90s`, `2h30m`: at most [`MAX_FOR_SECS`].
fn parse_duration(text: &str) -> Result<Duration, String> {
    let mut secs = 0u64;
    let mut num = String::new();
    for c in text.trim().chars() {
        if c.is_ascii_digit() {
            num.push(c);
            continue;
        }
        let n: u64 = num
            .parse()
            .map_err(|_| format!("{text:?}: expected e.g. 170m, 3h, 90s"))?;
        num.clear();
        let unit = match c {
            'h' => 3600,
            'm' => 60,
            's' => 1,
            _ => return Err(format!("{text:?}: unknown unit {c:?} (h, m or s)")),
        };
        secs = n
            .checked_mul(unit)
            .and_then(|s| secs.checked_add(s))
            .filter(|&s| s <= MAX_FOR_SECS)
            .ok_or_else(|| format!("{text:?}: at most {} hours", MAX_FOR_SECS / 3600))?;
    }
    if !num.is_empty() {
        return Err(format!("{text:?}: a number needs a unit (h, m or s)"));
    }
    if secs == 0 {
        return Err(format!("{text:?}: a duration above zero"));
    }
    Ok(Duration::from_secs(secs))
}

/// HH:MM local time: the wait from now until then (today, or tomorrow when past).
fn parse_clock(text: &str) -> Result<Duration, String> {
    let (h, m) = text
        .split_once(':')
        .ok_or_else(|| format!("{text:?}: expected HH:MM"))?;
    let (h, m): (u64, u64) = (
        h.parse().map_err(|_| format!("{text:?}: expected HH:MM"))?,
        m.parse().map_err(|_| format!("{text:?}: expected HH:MM"))?,
    );
    if h > 23 || m > 59 {
        return Err(format!("{text:?}: no such time"));
    }
    // Local time as UTC plus the zone's offset, from libc.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|e| e.to_string())?
        .as_secs();
    let offset = local_offset_secs(now as i64);
    let local = (now as i64 + offset).rem_euclid(86_400) as u64;
    let target = h * 3600 + m * 60;
    let wait = if target > local {
        target - local
    } else {
        target + 86_400 - local
    };
    Ok(Duration::from_secs(wait))
}

fn local_offset_secs(t: i64) -> i64 {
    // SAFETY: localtime_r writes only into the tm we pass.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        let tt = t as libc::time_t;
        if libc::localtime_r(&tt, &mut tm).is_null() {
            return 0;
        }
        tm.tm_gmtoff
    }
}

fn main() {
    let cli = Cli::parse();
    let code = match run(cli) {
        Ok(code) => code,
        Err(e) => {
            output::errln!("learn: {e:#}");
            1
        }
    };
    std::process::exit(code);
}

/// Runs the command; the exit code (0 done, 130 `learn run` stopped by Ctrl-C or SIGTERM).
fn run(cli: Cli) -> Result<i32> {
    match cli.command {
        Cmd::Init {
            dir,
            net,
            name,
            extra_data,
            force,
        } => learn::init::init(&dir, &net, name.as_deref(), &extra_data, force).map(|()| 0),
        Cmd::Run {
            dir,
            for_,
            until,
            candidates,
        } => {
            if [for_.is_some(), until.is_some(), candidates.is_some()]
                .iter()
                .filter(|&&b| b)
                .count()
                > 1
            {
                bail!("give one of --for, --until and --candidates");
            }
            let stop = Arc::new(AtomicBool::new(false));
            let flag = stop.clone();
            ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed))?;
            let until = match (for_.or(until), candidates) {
                (Some(d), _) => Until::At(Instant::now() + d),
                (None, Some(n)) => Until::Candidates(n),
                (None, None) => Until::Stopped,
            };
            let mut runner = Runner::open(&dir, stop, until)?;
            if runner.run()? {
                // Stopped when asked: nothing is lost (`learn run` resumes), but the run did
                // not reach its end, so a script sees it (130, as datagen and the trainer).
                return Ok(130);
            }
            Ok(0)
        }
        Cmd::Status { dir } => {
            output::out!("{}", learn::report::status(&dir)?);
            Ok(0)
        }
        Cmd::Report { dir } => {
            let path = learn::report::report(&dir)?;
            output::outln!("learn: wrote {}", path.display());
            Ok(0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_clocks_parse() {
        assert_eq!(parse_duration("170m"), Ok(Duration::from_secs(10_200)));
        assert_eq!(parse_duration("2h30m"), Ok(Duration::from_secs(9_000)));
        assert!(
            parse_duration("10").is_err() && parse_duration("5x").is_err() && parse_duration("0s").is_err()
        );
        // Past ten years (and past u64, which wrapped or panicked): refused, naming the limit.
        for huge in [
            "18446744073709551615s",
            "5124095576030432h",
            "87841h",
            "99999999999999999999s",
        ] {
            assert!(parse_duration(huge).is_err(), "{huge}");
        }
        assert!(parse_duration("87840h").is_ok());
        assert!(parse_duration("87841h")
            .unwrap_err()
            .contains("at most 87840 hours"));
        assert!(parse_clock("25:00").is_err() && parse_clock("noon").is_err());
        assert!(parse_clock("12:30").is_ok_and(|d| d <= Duration::from_secs(86_400)));
    }
}

//! The `arena` binary.
//!
//! ```text
//! arena -engine cmd=PATH name=NAME [option.X=Y ...] -engine ... -each tc=8+0.08 ...   (fastchess's options)
//! arena sprt-calc (--penta a,b,c,d,e | --tri l,d,w) --elo0 X --elo1 Y [--alpha A --beta B] [--model M]
//! arena rate [--anchor NAME=ELO] [--prior P] FILE.pgn...
//! arena spsa -engine cmd=PATH ... -spsa params=FILE iterations=N ... [-config outname=STATE]
//! ```
//! Exit codes, as fastchess: 0 after a match that ended by itself (played out, or stopped by
//! its SPRT whichever hypothesis it accepted); with `-sprt-exit-codes` 0 H1 accepted (or a
//! match without `-sprt` played out), 1 H0 accepted, 2 no decision. 2 interrupted (Ctrl-C),
//! 3 error. After a match: `Finished match` and `Total Time: HH:MM:SS (hours:minutes:seconds)`
//! and an empty line, as fastchess ends. `arena spsa` exits 0 when it has played every
//! iteration, 2 interrupted, 3 error.

use arena::report;
use matchcore::sprt::{sprt_elo, sprt_probability, SettingError};
use matchcore::stats::{estimate, llr, sprt_bounds, Counts, Model, UnknownModel};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Why `arena sprt-calc` refuses its arguments.
#[derive(Debug, thiserror::Error)]
enum CalcError {
    /// An argument without its value.
    #[error("{0} needs a value")]
    NeedsValue(String),
    /// Counts that are not `n` whole numbers separated by commas.
    #[error("{arg} expects {n} comma-separated counts, found {found:?}")]
    Counts {
        /// `--penta` or `--tri`.
        arg: String,
        /// How many counts it takes.
        n: usize,
        /// The text given.
        found: String,
    },
    /// An argument sprt-calc does not have.
    #[error("unknown sprt-calc argument {0:?}")]
    Unknown(String),
    /// An SPRT bound or error rate out of its range.
    #[error(transparent)]
    Setting(#[from] SettingError),
    /// A model sprt-calc does not have.
    #[error(transparent)]
    Model(#[from] UnknownModel),
    /// A missing argument, or arguments that do not go together.
    #[error("{0}")]
    Refused(&'static str),
}

/// The most games `sprt-calc` takes: far beyond any match, and below the counts where the
/// likelihood maximisation loses its precision (the LLR of a fixed distribution grows with
/// the count exactly up to 2 x 10^8 games; at 5 x 10^8 it comes out 40% low, at 2 x 10^15
/// not at all).
const MAX_CALC_GAMES: u64 = 100_000_000;

fn sprt_calc(args: &[String]) -> Result<(), CalcError> {
    let mut counts = None;
    let (mut elo0, mut elo1, mut alpha, mut beta, mut model) = (None, None, 0.05, 0.05, Model::Normalized);
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| CalcError::NeedsValue(arg.clone()))
        };
        let parse_list = |v: String, n: usize| -> Result<Vec<u64>, CalcError> {
            let list: Result<Vec<u64>, _> = v.split(',').map(|x| x.trim().parse::<u64>()).collect();
            match list {
                Ok(l) if l.len() == n => Ok(l),
                _ => Err(CalcError::Counts {
                    arg: arg.clone(),
                    n,
                    found: v,
                }),
            }
        };
        match arg.as_str() {
            "--penta" => {
                let l = parse_list(value()?, 5)?;
                counts = Some(Counts::Penta([l[0], l[1], l[2], l[3], l[4]]));
            }
            "--tri" => {
                let l = parse_list(value()?, 3)?;
                counts = Some(Counts::Tri([l[0], l[1], l[2]]));
            }
            "--elo0" => elo0 = Some(sprt_elo("--elo0", &value()?)?),
            "--elo1" => elo1 = Some(sprt_elo("--elo1", &value()?)?),
            "--alpha" => alpha = sprt_probability("--alpha", &value()?)?,
            "--beta" => beta = sprt_probability("--beta", &value()?)?,
            "--model" => model = value()?.parse()?,
            other => return Err(CalcError::Unknown(other.to_string())),
        }
    }
    let counts = counts.ok_or(CalcError::Refused("give --penta a,b,c,d,e or --tri l,d,w"))?;
    let (elo0, elo1) = (
        elo0.ok_or(CalcError::Refused("give --elo0"))?,
        elo1.ok_or(CalcError::Refused("give --elo1"))?,
    );
    if elo1 <= elo0 {
        return Err(CalcError::Refused("--elo1 must exceed --elo0"));
    }
    if !(0.0 < alpha && alpha < 0.5 && 0.0 < beta && beta < 0.5) {
        return Err(CalcError::Refused("--alpha and --beta must be in (0, 0.5)"));
    }
    if model == Model::Bayes && matches!(counts, Counts::Penta(_)) {
        return Err(CalcError::Refused(
            "the bayes model is trinomial: give --tri l,d,w",
        ));
    }
    let games: u64 = match counts {
        Counts::Penta(c) => c
            .iter()
            .map(|&n| n.saturating_mul(2))
            .fold(0, u64::saturating_add),
        Counts::Tri(c) => c.iter().fold(0, |a, &n| a.saturating_add(n)),
    };
    if games > MAX_CALC_GAMES {
        return Err(CalcError::Refused(
            "the counts hold more than 100,000,000 games, beyond what the LLR is computed to here",
        ));
    }
    let value = llr(counts, elo0, elo1, model);
    if !value.is_finite() {
        return Err(CalcError::Refused("the LLR cannot be computed for these counts"));
    }
    let (lower, upper) = sprt_bounds(alpha, beta);
    output::outln!("LLR: {value:.4} ({lower:.4}, {upper:.4})");
    // The estimate and its lines as the match report prints them (`inf`, `nan`, nothing
    // clamped), from the same functions.
    let e = estimate(counts);
    output::outln!("{}", report::elo_line(&e));
    output::outln!("LOS: {}", report::los_text(&e));
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("sprt-calc") {
        return match sprt_calc(&args[1..]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                output::errln!("arena: {e}");
                ExitCode::from(3)
            }
        };
    }
    if args.first().map(String::as_str) == Some("spsa") {
        return ExitCode::from(arena::spsa_run::command(&args[1..]));
    }
    if args.first().map(String::as_str) == Some("rate") {
        return match arena::rating::rate_command(&args[1..]) {
            Ok(report) => {
                output::out!("{report}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                output::errln!("arena: {e}");
                ExitCode::from(3)
            }
        };
    }
    if args.is_empty() {
        output::outln!("{}", arena::cli::USAGE);
        return ExitCode::from(3);
    }
    let config = match arena::cli::parse_command(&args) {
        Ok(arena::cli::Command::Run(c)) => c,
        Ok(arena::cli::Command::Help) => {
            output::outln!("{}", arena::cli::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(arena::cli::Command::Version) => {
            output::outln!("{}", arena::cli::version_text());
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            output::errln!("arena: {e}");
            return ExitCode::from(3);
        }
    };
    let start = Instant::now();
    let interrupted = Arc::new(AtomicBool::new(false));
    let flag = interrupted.clone();
    if let Err(e) = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed)) {
        output::errln!("arena: cannot install the Ctrl-C handler: {e}");
    }
    match arena::runner::run(&config, interrupted) {
        Ok((end, _)) => {
            output::outln!("Finished match");
            let s = start.elapsed().as_secs();
            output::outln!(
                "Total Time: {:02}:{:02}:{:02} (hours:minutes:seconds)\n",
                s / 3600,
                s / 60 % 60,
                s % 60
            );
            ExitCode::from(end.exit_code(config.sprt_exit_codes))
        }
        Err(e) => {
            output::errln!("arena: error: {e}");
            ExitCode::from(3)
        }
    }
}

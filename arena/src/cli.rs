//! Command-line parsing: fastchess's command lines as fastchess spells them, so that
//! OpenBench's runner and engine developers' scripts can call arena in its place.
//!
//! ```text
//! arena -engine cmd=./new name=new -engine dir=Engines/ cmd=./base proto=uci tc=8+0.08 name=base \
//!       -each tc=40/60+0.6 timemargin=250 option.Hash=16 option.Threads=1 \
//!       -openings file=book.epd format=epd order=random start=1 -srand 42 \
//!       -concurrency 2 -rounds 500 -games 2 -repeat -recover -variant standard -testEnv \
//!       -sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized \
//!       -pgnout file=games.pgn nodes=true seldepth=true match_line="^info string pgncomment .*"
//! ```
//!
//! Options are one dash or two (`-engine` and `--engine` are the same), followed by their
//! values up to the next option: `key=value` groups (`-engine`, `-each`, `-openings`,
//! `-sprt`, `-pgnout`, ...), one value (`-rounds 500`), or none (`-recover`). This is a
//! hand parser rather than clap, the project's usual choice: clap reads a single dash as a
//! cluster of one-letter flags (`-engine` would be `-e -n -g ...`) and has no notion of an
//! option whose values are an open list of `key=value` words applied in order, which is
//! what fastchess's syntax is. Each option is one small handler in a table of option names
//! (`OPTIONS`), the checks across options run once every option is read, and the `key=value`
//! groups are functions of their own (`openings_option`, `resign_option`, `log_option`,
//! ...). Every value is checked, numbers against the range where they
//! make sense; an option or key arena does not have is an error that names it, and the
//! Syzygy adjudication is fastchess's: `-tb PATH` (directories separated by `:`), `-tbpieces
//! N`, `-tbignore50`, `-tbadjudicate WIN_LOSS|DRAW|BOTH`. fastchess options arena lacks (`-quick`, `-crc32`, cutechess output,
//! ...) say so. `-testEnv`, `-force-concurrency`, `-scoreinterval N` and `-output
//! format=fastchess` are accepted and change nothing (arena's messages are one line each
//! already, it sets no cap on concurrency, and fastchess's output is its only output).
//!
//! Engine settings (`-engine` keys, or `-each` for all engines): `cmd`, `name` (default: the
//! file name), `args`, `dir`, `proto=uci`, `restart=on|off`, `option.NAME=VALUE`, and the
//! limits `tc` (see [`matchcore::timecontrol`]; `inf` for none), `st` (seconds per move),
//! `nodes`, `plies` (or `depth`), `timemargin` (ms). A setting given for one engine wins
//! over `-each`. Engine names must differ.
//!
//! `arena spsa` (`crate::spsa_run`) reads its command line with the same groups and
//! `build`, its engine given twice (theta+'s side and theta-'s).

use crate::engine_process::EngineConfig;
use crate::log::{Level, LogConfig};
use crate::pgn_out::{Notation, PgnOptions};
use crate::play::{Adjudication, Limits, Resign, TbAdjudication, TbResults};
use crate::regex::Regex;
use matchcore::sprt::{sprt_elo, sprt_probability, SprtConfig};
use matchcore::stats::Model;
use matchcore::timecontrol::MAX_TIME_MARGIN_MS;
use matchcore::{MAX_CONCURRENCY, MAX_MOVES, MAX_ROUNDS};

/// Why a command line is refused. Every message names the option (or the engine) and what
/// it takes, as fastchess users expect to read it after `arena: `.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A number outside its range, or not a whole number.
    #[error("{key} must be a whole number from {lo} to {hi}, found {value:?}")]
    OutOfRange {
        /// The option or key, as the message names it (`-rounds`, `-resign score`).
        key: String,
        /// The lowest value accepted.
        lo: String,
        /// The highest value accepted.
        hi: String,
        /// The text given.
        value: String,
    },
    /// A flag value that is neither `true` nor `false`.
    #[error("{key} must be true or false, found {value:?}")]
    NotBoolean {
        /// The option and key (`-pgnout nodes`).
        key: String,
        /// The text given.
        value: String,
    },
    /// A value of a `key=value` option without `=`.
    #[error("-{option}: expected key=value, found {token:?}")]
    NotKeyValue {
        /// The option, without dashes.
        option: String,
        /// The value given.
        token: String,
    },
    /// A key the option does not have; `known` lists those it has.
    #[error("-{option}: unknown key {key:?} ({known})")]
    UnknownKey {
        /// The option, without dashes.
        option: String,
        /// The key given.
        key: String,
        /// The keys the option has, comma-separated.
        known: &'static str,
    },
    /// An option arena does not have.
    #[error("unknown option -{0} (see -help)")]
    UnknownOption(String),
    /// A fastchess option arena does not have, and why.
    #[error("-{option}: {why}")]
    Unsupported {
        /// The option, without dashes.
        option: String,
        /// Why arena lacks it, and what to use instead.
        why: &'static str,
    },
    /// An option without its value.
    #[error("-{0} needs a value")]
    NeedsValue(String),
    /// An option of one value given several.
    #[error("-{option} takes one value, found {values}")]
    OneValue {
        /// The option, without dashes.
        option: String,
        /// The values given, joined by spaces.
        values: String,
    },
    /// A flag given a value.
    #[error("-{option} takes no value, found {value:?}")]
    NoValue {
        /// The option, without dashes.
        option: String,
        /// The first value given.
        value: String,
    },
    /// A value before the first option.
    #[error("unexpected argument {0:?} (options start with -)")]
    Stray(String),
    /// An SPRT bound or error rate out of its range.
    #[error(transparent)]
    Sprt(#[from] matchcore::sprt::SettingError),
    /// An SPRT model arena does not have.
    #[error(transparent)]
    Model(#[from] matchcore::stats::UnknownModel),
    /// A `tc=` that is not a time control.
    #[error(transparent)]
    TimeControl(#[from] matchcore::timecontrol::TimeControlError),
    /// The state of `-config file=` cannot be read.
    #[error(transparent)]
    State(#[from] matchcore::state::StateFileError),
    /// A `match_line` pattern that does not compile.
    #[error(transparent)]
    Regex(#[from] crate::regex::RegexError),
    /// A log level arena does not have.
    #[error(transparent)]
    Level(#[from] crate::log::UnknownLevel),
    /// Any other value, or combination of options, that arena refuses; the message names
    /// the options.
    #[error("{0}")]
    Invalid(String),
}

/// [`CliError::UnknownKey`] of `option` for `key`.
fn unknown_key(option: &str, key: &str, known: &'static str) -> CliError {
    CliError::UnknownKey {
        option: option.to_string(),
        key: key.to_string(),
        known,
    }
}

/// Where the openings come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningsConfig {
    /// The book file (`file=`).
    pub file: String,
    /// Whether it is PGN (`format=pgn`) rather than EPD.
    pub pgn: bool,
    /// Shuffled by the tournament's seed (`order=random`) rather than in file order.
    pub random: bool,
    /// PGN books: keep at most this many plies of each game (`plies=`; all when `None`).
    pub plies: Option<usize>,
    /// The 1-based opening to begin with (`start=`); the book wraps around at its end.
    pub start: usize,
}

/// One engine of the tournament.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSpec {
    /// How to start the engine and what to call it.
    pub config: EngineConfig,
    /// Its limits per move (`tc`, `st`, `nodes`, `plies`, `timemargin`).
    pub limits: Limits,
    /// Start a fresh process for every game (`restart=on`).
    pub restart: bool,
}

/// Who plays whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TournamentKind {
    /// Every engine plays every other.
    RoundRobin,
    /// The first `seeds` engines play every engine after them.
    Gauntlet,
}

/// `-pgnout`.
#[derive(Clone, Debug, PartialEq)]
pub struct PgnOutConfig {
    /// The PGN file (`file=`).
    pub file: String,
    /// Append to an existing file (`append=true`) rather than replace it.
    pub append: bool,
    /// What each move's comment holds and the notation.
    pub options: PgnOptions,
    /// `match_line=REGEX` patterns: the last engine output line matching each goes into the
    /// move's comment.
    pub patterns: Vec<Regex>,
}

/// `-epdout`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpdOutConfig {
    /// The EPD file (`file=`): each game's final position, one line each.
    pub file: String,
    /// Append to an existing file (`append=true`) rather than replace it.
    pub append: bool,
}

/// A whole tournament.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchConfig {
    /// In command-line order; in a two-engine match the tested engine first.
    pub engines: Vec<EngineSpec>,
    /// Resignation, draw and move-count adjudication (`-resign`, `-draw`, `-maxmoves`).
    pub adjudication: Adjudication,
    /// The book (`-openings`); `None`: every game starts from the standard position.
    pub openings: Option<OpeningsConfig>,
    /// Rounds (`-rounds`): each pairing plays `games` games a round.
    pub rounds: u64,
    /// Games per pairing and round (`-games`): 2 (a pair with colours swapped) or 1.
    pub games: u64,
    /// Games played at once (`-concurrency`).
    pub concurrency: usize,
    /// The SPRT (`-sprt`); `None`: play all rounds and report Elo.
    pub sprt: Option<SprtConfig>,
    /// `-sprt-plot FILE.png|FILE.svg`: the SPRT's LLR and Elo over the games, drawn when
    /// the match ends.
    pub sprt_plot: Option<String>,
    /// `-sprt-exit-codes`: exit 0 H1 accepted, 1 H0 accepted, 2 no decision (arena's own
    /// codes, for scripts) instead of fastchess's 0 after every match that ended by itself.
    pub sprt_exit_codes: bool,
    /// Where finished games are written as PGN (`-pgnout`).
    pub pgnout: Option<PgnOutConfig>,
    /// Where finished games' final positions are written (`-epdout`).
    pub epdout: Option<EpdOutConfig>,
    /// The seed of the random opening order (`-srand`, also `-seed`).
    pub seed: u64,
    /// Restart an engine that faulted and play on (`-recover`) rather than stop with an error.
    pub recover: bool,
    /// Interim results after every this many encounters (`-ratinginterval`; 0: none).
    pub rating_interval: u64,
    /// Chess960 start positions and castling (`-variant fischerandom`).
    pub chess960: bool,
    /// Who plays whom (`-tournament`).
    pub tournament: TournamentKind,
    /// Gauntlet: how many of the first engines are the seeds (`-seeds`).
    pub seeds: usize,
    /// Report pentanomial statistics (`-report penta=`).
    pub report_penta: bool,
    /// The PGN `Event` tag (`-event`).
    pub event: String,
    /// The PGN `Site` tag (`-site`).
    pub site: String,
    /// The first engine of a pairing keeps White in every game (`-noswap`).
    pub noswap: bool,
    /// Colours the other way round (`-reverse`).
    pub reverse: bool,
    /// Pause after each game, in milliseconds (`-wait`).
    pub wait_ms: u64,
    /// A warning stops the match with an error (`-strict`).
    pub strict: bool,
    /// Check that mate scores come with a principal variation that mates (`-check-mate-pvs`).
    pub check_mate_pvs: bool,
    /// How long an engine may take from `uci` to `uciok`, in ms (`-startup-ms`).
    pub startup_ms: u64,
    /// How long `ucinewgame` and the `isready` after it may take, in ms (`-ucinewgame-ms`).
    pub ucinewgame_ms: u64,
    /// How long any other `isready` may take, in ms (`-ping-ms`).
    pub ping_ms: u64,
    /// `-use-affinity`: `Some(cpus)` pins each game's engines (an empty list: all CPUs).
    pub affinity: Option<Vec<usize>>,
    /// Where the log goes and how much it holds (`-log`); `None`: no log.
    pub log: Option<LogConfig>,
    /// Where the tournament state is saved: at the start and after every finished game
    /// (see [`matchcore::state`]).
    pub state_file: Option<String>,
    /// `-autosaveinterval N`, accepted for fastchess compatibility: with N > 0 and no
    /// `-config outname=`, the state goes to `config.json`; the state is saved after every
    /// game whatever N is.
    pub autosave_interval: u64,
    /// `-testEnv` was given (accepted for fastchess compatibility; it changes nothing).
    pub test_env: bool,
    /// The command line without `-config`, saved for a resume.
    pub args: Vec<String>,
    /// What a resumed tournament had already played (`-config file=`).
    pub resume: Option<matchcore::state::SavedState>,
}

/// What the command line asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Run the tournament the command line describes.
    Run(Box<MatchConfig>),
    /// Print the usage text (`-help`).
    Help,
    /// Print the version (`-version`).
    Version,
}

pub(crate) fn key_values(option: &str, tokens: &[String]) -> Result<Vec<(String, String)>, CliError> {
    tokens
        .iter()
        .map(|t| {
            t.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .ok_or_else(|| CliError::NotKeyValue {
                    option: option.to_string(),
                    token: t.clone(),
                })
        })
        .collect()
}

/// The fastchess version whose interface arena implements: its command line (as
/// OpenBench's client and engine developers' scripts use it), its output lines and its PGN.
/// OpenBench's client reads the installed runner's version and builds fastchess over it
/// when that is below its minimum (1.8.1 today), so `-version` puts this first.
pub const FASTCHESS_INTERFACE: &str = "1.8.1";

/// What `-version` prints: the fastchess interface version first (the first version number
/// in the output is the one OpenBench's client compares), then arena's own version.
pub fn version_text() -> String {
    format!(
        "fastchess {FASTCHESS_INTERFACE} interface: arena {}, Luft's match runner (it implements \
         fastchess {FASTCHESS_INTERFACE}'s command line, output and PGN as OpenBench uses them; it is not fastchess)",
        env!("CARGO_PKG_VERSION")
    )
}

/// Largest score, in centipawns, an adjudication rule may name (mates count as 100000).
pub const MAX_ADJUDICATION_SCORE: i32 = 100_000;
/// Rounds of an SPRT given no `-rounds` (as fastchess).
pub const SPRT_ROUNDS: u64 = 500_000;
/// Most engines in a tournament.
pub const MAX_ENGINES: usize = 1000;

/// A whole number from `lo` to `hi`.
pub(crate) fn whole<T>(key: &str, value: &str, lo: T, hi: T) -> Result<T, CliError>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display,
{
    match value.trim().parse::<T>() {
        Ok(v) if v >= lo && v <= hi => Ok(v),
        _ => Err(CliError::OutOfRange {
            key: key.to_string(),
            lo: lo.to_string(),
            hi: hi.to_string(),
            value: value.to_string(),
        }),
    }
}

fn boolean(key: &str, value: &str) -> Result<bool, CliError> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(CliError::NotBoolean {
            key: key.to_string(),
            value: value.to_string(),
        }),
    }
}

/// Whether `arg` starts an option: a dash and a letter (so `-5` stays a value).
pub(crate) fn option_name(arg: &str) -> Option<&str> {
    let name = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-'))?;
    name.chars().next().filter(|c| c.is_ascii_alphabetic())?;
    Some(name)
}

/// Splits the arguments into `-option values...` groups.
pub(crate) fn groups(args: &[String]) -> Result<Vec<(String, Vec<String>)>, CliError> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for arg in args {
        match option_name(arg) {
            Some(name) => out.push((name.to_string(), Vec::new())),
            None => match out.last_mut() {
                Some(group) => group.1.push(arg.clone()),
                None => return Err(CliError::Stray(arg.clone())),
            },
        }
    }
    Ok(out)
}

/// fastchess options arena does not have, and why.
fn unsupported(name: &str) -> Option<&'static str> {
    Some(match name {
        "quick" => "arena has no -quick shortcut; give -engine, -each, -openings and -rounds",
        "crc32" => "arena does not compute PGN checksums",
        "show-latency" => "arena does not print latencies; use -pgnout latency=true",
        "compliance" => "arena has no UCI compliance checker",
        "debug" => "use -log file=NAME engine=true for engine input and output",
        _ => return None,
    })
}

/// The `arena spsa` part of the usage text, as a literal (`concat!` puts it into
/// [`USAGE`]; [`SPSA_USAGE`] is it alone, for `arena spsa -help`).
macro_rules! spsa_usage {
    () => {
        "\
SPSA tuning (arena spsa; OpenBench's algorithm, played here): one engine against itself, theta+
against theta-, each side with option.NAME=VALUE for every parameter of the params file:
  arena spsa -engine cmd=PATH [name=NAME] [KEY=VALUE...] [-each KEY=VALUE...] [-openings ...]
             [-concurrency N] -spsa params=FILE iterations=N [KEY=VALUE...] [-config outname=STATE]
  arena spsa -config file=STATE   (resume: the saved command line, from the last whole iteration)
  -spsa params=FILE (the `luft spsa` format: name, int|float, start, min, max, c_end, r_end)
        iterations=N  pairs=P (8 game pairs an iteration: one opening, colours reversed)
        seed=S (0: the signs, the roundings, the opening order)  alpha=A (0.602)  gamma=G (0.101)
        A_ratio=R (0.1: A = R * N)  print=N (10: the values every N iterations; 0: at the end)
        csv=F (STATE's name with .csv: theta after each iteration)
        plot=F.png|F.svg (STATE's name with .png: each parameter's path)
  Also: -engine/-each (one limit: tc= nodes= st= plies=; options), -openings, -concurrency,
  -resign, -draw, -maxmoves, -variant, -recover, -startup-ms, -ucinewgame-ms, -ping-ms,
  -use-affinity, -log. -config outname=STATE (spsa.json) | file=STATE [discard=true]: the state is
  saved after every iteration; an iteration cut short (Ctrl-C, a kill) is played again on resume.
  Each iteration: c_k = c / k^gamma, a_k = a / (A + k)^alpha (c = c_end * N^gamma, a = r_end *
  c_end^2 * (A + N)^alpha), theta += (a_k / c_k) * (wins - losses of theta+) * delta, clipped.
  Exit codes: 0 finished, 2 interrupted (Ctrl-C), 3 error."
    };
}

/// The usage text of `arena spsa -help`.
pub const SPSA_USAGE: &str = spsa_usage!();

/// The usage text of `-help`.
pub const USAGE: &str = concat!(
    "\
usage: arena -engine cmd=PATH [name=NAME] [KEY=VALUE...] -engine ... [-each KEY=VALUE...] [OPTIONS]
       arena sprt-calc (--penta a,b,c,d,e | --tri l,d,w) --elo0 X --elo1 Y [--alpha A --beta B] [--model M]
       arena rate [--anchor NAME=ELO] [--prior P] FILE.pgn...
       arena spsa -engine cmd=PATH ... -spsa params=FILE iterations=N ...   (SPSA tuning; see below)

Engines (-engine, or -each for all; a setting for one engine wins over -each):
  cmd=PATH name=NAME args=\"A B\" dir=DIR proto=uci restart=on|off option.NAME=VALUE
  tc=[MOVES/]TIME[+INC] (seconds or M:SS; inf: none) st=SECONDS nodes=N plies=N (or depth=N)
  timemargin=MS
Tournament:
  -rounds N (2; 500000 with -sprt)  -games 1|2 (2)  -repeat  -concurrency N (1)  -force-concurrency
  -tournament roundrobin|gauntlet  -seeds N (1)  -noswap  -reverse  -wait MS  -recover
  -variant standard|fischerandom  -srand SEED (0; also -seed)
  -openings file=F [format=epd|pgn] [order=sequential|random] [plies=N] [start=N] [policy=round]
  -sprt [elo0=0] [elo1=5] [alpha=0.05] [beta=0.05] [model=normalized|logistic|bayesian]
Adjudication:
  -resign movecount=N score=CP [twosided=true]  -draw movenumber=N movecount=N score=CP  -maxmoves N
  -tb DIR[:DIR...] [-tbpieces N] [-tbignore50] [-tbadjudicate WIN_LOSS|DRAW|BOTH (BOTH)]
Output:
  -pgnout [file=F] [notation=san|lan|uci] [append=true] [nodes= seldepth= nps= hashfull= tbhits= pv=
          timeleft= latency= min=true|false] [match_line=REGEX]   (also: -pgnout FILE)
  -epdout [file=F] [append=true]  -event NAME  -site NAME  -ratinginterval N (10)
  -sprt-plot FILE.png|FILE.svg   (the SPRT's LLR and Elo after each pair, drawn at the end)
  -sprt-exit-codes   (exit 0 H1 accepted, 1 H0 accepted, 2 no decision; see below)
  -report penta=true|false  -output format=fastchess  -scoreinterval N (accepted, no effect)
  -log file=F [level=trace|info|warn|err|fatal] [engine=true] [append=true] [realtime=true]
Running:
  -startup-ms MS (10000)  -ucinewgame-ms MS (60000)  -ping-ms MS (60000)  -use-affinity [CPUS]
  -strict  -check-mate-pvs  -testEnv
  -config outname=F | file=F [discard=true] [stats=false]  -autosaveinterval N (the state is
    saved after every game; N > 0 without outname saves to config.json)
  -help  -version
Exit codes: 0 after a match that ended by itself (played out, or decided by its SPRT), as
fastchess; with -sprt-exit-codes 0 H1 accepted (or no -sprt), 1 H0 accepted, 2 no decision.
2 interrupted (Ctrl-C), 3 error.

",
    spsa_usage!()
);

/// Parses a match command line (without the program name).
pub fn parse_match(args: &[String]) -> Result<MatchConfig, CliError> {
    match parse_command(args)? {
        Command::Run(c) => Ok(*c),
        Command::Help | Command::Version => {
            Err(CliError::Invalid("-help and -version do not run a match".into()))
        }
    }
}

/// The `-config` settings.
#[derive(Default)]
pub(crate) struct ConfigOption {
    pub(crate) file: Option<String>,
    pub(crate) outname: Option<String>,
    pub(crate) discard: bool,
    pub(crate) stats: bool,
}

pub(crate) fn config_option(values: &[String]) -> Result<ConfigOption, CliError> {
    let mut c = ConfigOption {
        stats: true,
        ..ConfigOption::default()
    };
    for (k, v) in key_values("config", values)? {
        match k.as_str() {
            "file" => c.file = Some(v),
            "outname" => c.outname = Some(v),
            "discard" => c.discard = boolean("-config discard", &v)?,
            "stats" => c.stats = boolean("-config stats", &v)?,
            other => return Err(unknown_key("config", other, "file, outname, discard, stats")),
        }
    }
    Ok(c)
}

/// The `-config` settings of a command line (`None` when it has none; given twice is an
/// error) and the command line without them (what a saved state keeps).
pub(crate) fn split_config(
    args: &[String],
    groups: &[(String, Vec<String>)],
) -> Result<(Option<ConfigOption>, Vec<String>), CliError> {
    let configs: Vec<&Vec<String>> = groups
        .iter()
        .filter(|(n, _)| n == "config")
        .map(|(_, v)| v)
        .collect();
    if configs.len() > 1 {
        return Err(CliError::Invalid("-config is given twice".into()));
    }
    let config = match configs.first() {
        Some(values) => Some(config_option(values)?),
        None => None,
    };
    let mut own_args = Vec::new();
    let mut skipping = false;
    for arg in args {
        if let Some(name) = option_name(arg) {
            skipping = name == "config";
        }
        if !skipping {
            own_args.push(arg.clone());
        }
    }
    Ok((config, own_args))
}

/// Parses a command line (without the program name).
pub fn parse_command(args: &[String]) -> Result<Command, CliError> {
    let groups = groups(args)?;
    if groups.iter().any(|(n, _)| matches!(n.as_str(), "help" | "h")) {
        return Ok(Command::Help);
    }
    if groups.iter().any(|(n, _)| matches!(n.as_str(), "version" | "v")) {
        return Ok(Command::Version);
    }
    let (config, own_args) = split_config(args, &groups)?;
    let config = config.unwrap_or_default();
    if let (Some(file), false) = (&config.file, config.discard) {
        // Resume: the saved command line, as it was.
        if !own_args.is_empty() {
            return Err(CliError::Invalid(format!(
                "-config file={file} resumes the saved tournament as it was started; other options ({}) \
                 cannot be added (start a new one, or use discard=true to replace it)",
                own_args[0]
            )));
        }
        let saved = matchcore::state::load(file)?;
        let inner = groups_of(&saved.args)?;
        let mut c = build(&saved.args, &inner)?;
        c.state_file = Some(config.outname.unwrap_or_else(|| file.clone()));
        if c.autosave_interval == 0 {
            c.autosave_interval = 20;
        }
        if config.stats {
            c.resume = Some(saved);
        }
        return Ok(Command::Run(Box::new(c)));
    }
    let own_groups: Vec<(String, Vec<String>)> = groups.into_iter().filter(|(n, _)| n != "config").collect();
    let mut c = build(&own_args, &own_groups)?;
    let target = config.outname.or(if config.discard { config.file } else { None });
    if let Some(file) = target {
        c.state_file = Some(file);
        if !own_groups.iter().any(|(n, _)| n == "autosaveinterval") {
            c.autosave_interval = 20;
        }
    } else if c.autosave_interval > 0 {
        c.state_file = Some("config.json".into());
    }
    Ok(Command::Run(Box::new(c)))
}

fn groups_of(args: &[String]) -> Result<Vec<(String, Vec<String>)>, CliError> {
    groups(args)
}

/// One engine's settings before `-each` is merged in.
#[derive(Default)]
struct EngineDraft {
    config: Option<EngineConfig>,
    limits: Vec<(String, String)>,
    restart: Option<bool>,
}

/// Applies one engine key (for `-engine` or `-each`).
fn engine_key(draft: &mut EngineDraft, option: &str, k: &str, v: String) -> Result<(), CliError> {
    let config = draft.config.get_or_insert_with(|| EngineConfig {
        cmd: String::new(),
        name: String::new(),
        args: Vec::new(),
        options: Vec::new(),
        dir: None,
    });
    match k {
        "cmd" | "name" if option == "each" => {
            return Err(CliError::Invalid(format!(
                "-each cannot set {k}= (give it in -engine)"
            )));
        }
        "cmd" => config.cmd = v,
        "name" => config.name = v,
        "args" => config.args = v.split_whitespace().map(String::from).collect(),
        "dir" => config.dir = Some(v),
        "proto" if v == "uci" => {}
        "proto" => {
            return Err(CliError::Invalid(format!(
                "-{option}: arena speaks UCI only, not proto={v}"
            )))
        }
        "restart" => {
            draft.restart = Some(match v.as_str() {
                "on" => true,
                "off" => false,
                _ => {
                    return Err(CliError::Invalid(format!(
                        "-{option}: restart must be on or off, found {v:?}"
                    )))
                }
            })
        }
        _ if k.starts_with("option.") => {
            let name = &k["option.".len()..];
            if name.is_empty() {
                return Err(CliError::Invalid(format!(
                    "-{option}: option. needs a name (option.Hash=16)"
                )));
            }
            config.options.push((name.to_string(), v));
        }
        "tc" | "nodes" | "depth" | "plies" | "st" | "timemargin" => draft.limits.push((k.to_string(), v)),
        other => {
            return Err(unknown_key(
                option,
                other,
                "cmd, name, args, dir, proto, restart, option.NAME, tc, st, nodes, plies, depth, timemargin",
            ))
        }
    }
    Ok(())
}

fn apply_limit(limits: &mut Limits, key: &str, value: &str) -> Result<(), CliError> {
    match key {
        "tc" => limits.clock = matchcore::timecontrol::parse(value)?,
        "nodes" => limits.nodes = Some(whole("nodes", value, 1, u64::MAX / 2)?),
        "depth" | "plies" => limits.depth = Some(whole(key, value, 1, 1000)?),
        "st" => {
            let secs: f64 = value
                .trim()
                .parse()
                .ok()
                .filter(|s: &f64| (0.001..=86_400.0).contains(s))
                .ok_or_else(|| {
                    CliError::Invalid(format!("st must be 0.001 to 86400 seconds, found {value:?}"))
                })?;
            limits.movetime = Some((secs * 1000.0).round() as u64);
        }
        "timemargin" => limits.time_margin = whole("timemargin (ms)", value, 0, MAX_TIME_MARGIN_MS)?,
        other => return Err(CliError::Invalid(format!("unknown setting {other:?}"))),
    }
    Ok(())
}

/// Parses a CPU list `3,5,7-11,13`.
fn cpu_list(text: &str) -> Result<Vec<usize>, CliError> {
    let bad = || {
        CliError::Invalid(format!(
            "-use-affinity: bad CPU list {text:?} (expected a form like 0,2,4-7)"
        ))
    };
    let mut cpus = Vec::new();
    for part in text.split(',') {
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse::<usize>(), b.trim().parse::<usize>()),
            None => (part.trim().parse::<usize>(), part.trim().parse::<usize>()),
        };
        let (lo, hi) = (lo.map_err(|_| bad())?, hi.map_err(|_| bad())?);
        if lo > hi || hi >= 4096 {
            return Err(bad());
        }
        cpus.extend(lo..=hi);
    }
    Ok(cpus)
}

/// One option group as its handler sees it: the option's name as given (`srand` or
/// `seed`, without dashes) and the values up to the next option.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Group<'a> {
    /// The option's name.
    pub(crate) name: &'a str,
    /// Its values.
    pub(crate) values: &'a [String],
}

impl Group<'_> {
    /// The one value of an option that takes exactly one.
    pub(crate) fn single(&self) -> Result<String, CliError> {
        match self.values {
            [v] => Ok(v.clone()),
            [] => Err(CliError::NeedsValue(self.name.to_string())),
            _ => Err(CliError::OneValue {
                option: self.name.to_string(),
                values: self.values.join(" "),
            }),
        }
    }

    /// Checks that an option that is a bare flag has no value.
    pub(crate) fn none(&self) -> Result<(), CliError> {
        match self.values {
            [] => Ok(()),
            [v, ..] => Err(CliError::NoValue {
                option: self.name.to_string(),
                value: v.clone(),
            }),
        }
    }

    /// The values as `key=value` pairs, in order.
    pub(crate) fn key_values(&self) -> Result<Vec<(String, String)>, CliError> {
        key_values(self.name, self.values)
    }

    /// The one value, a whole number from `lo` to `hi` (the error names the option).
    fn whole<T>(&self, lo: T, hi: T) -> Result<T, CliError>
    where
        T: std::str::FromStr + PartialOrd + std::fmt::Display,
    {
        whole(&format!("-{}", self.name), &self.single()?, lo, hi)
    }
}

/// A match being built from its options: the configuration so far and what the handlers
/// keep between options until the engines are put together.
struct Draft {
    config: MatchConfig,
    engines: Vec<EngineDraft>,
    each: EngineDraft,
    rounds_given: bool,
    /// -tb and its companions, in any order: (path, pieces, ignore 50, results).
    tb: (Option<String>, u32, bool, TbResults),
}

/// Applies one option group to the match being built.
type Handler = fn(&mut Draft, Group) -> Result<(), CliError>;

/// Every option of a match command line and its handler (one name per entry; `seed` and
/// `srand` are the same option).
const OPTIONS: &[(&str, Handler)] = &[
    ("engine", |d, g| {
        d.engines.push(engine_draft(g)?);
        Ok(())
    }),
    ("each", |d, g| {
        for (k, v) in g.key_values()? {
            engine_key(&mut d.each, "each", &k, v)?;
        }
        Ok(())
    }),
    ("openings", |d, g| {
        d.config.openings = Some(openings_option(g)?);
        Ok(())
    }),
    ("rounds", |d, g| {
        d.config.rounds = g.whole(1, MAX_ROUNDS)?;
        d.rounds_given = true;
        Ok(())
    }),
    ("games", |d, g| {
        d.config.games = whole("-games", &g.single()?, 1, 2).map_err(|_| {
            CliError::Invalid(format!(
                "-games must be 1 or 2 (paired colours), found {}",
                g.values.join(" ")
            ))
        })?;
        Ok(())
    }),
    ("repeat", |d, g| {
        d.config.games = match g.values {
            [] => 2,
            [v] => whole("-repeat", v, 1, 2)
                .map_err(|_| CliError::Invalid(format!("-repeat takes 1 or 2 games, found {v:?}")))?,
            _ => return Err(CliError::Invalid("-repeat takes at most one value".into())),
        };
        Ok(())
    }),
    ("concurrency", |d, g| {
        d.config.concurrency = g.whole(1, MAX_CONCURRENCY)?;
        Ok(())
    }),
    ("force-concurrency", |_, g| g.none()),
    ("sprt", |d, g| {
        d.config.sprt = Some(sprt_option(g)?);
        Ok(())
    }),
    ("sprt-plot", |d, g| {
        d.config.sprt_plot = Some(sprt_plot_option(g)?);
        Ok(())
    }),
    ("resign", |d, g| {
        d.config.adjudication.resign = Some(resign_option(g)?);
        Ok(())
    }),
    ("draw", |d, g| {
        d.config.adjudication.draw = Some(draw_option(g)?);
        Ok(())
    }),
    ("maxmoves", |d, g| {
        d.config.adjudication.max_moves = Some(g.whole(1, MAX_MOVES)?);
        Ok(())
    }),
    ("pgnout", |d, g| {
        d.config.pgnout = Some(pgnout_option(g)?);
        Ok(())
    }),
    ("epdout", |d, g| {
        d.config.epdout = Some(epdout_option(g)?);
        Ok(())
    }),
    ("seed", seed_option),
    ("srand", seed_option),
    ("recover", |d, g| flag(g, &mut d.config.recover)),
    ("sprt-exit-codes", |d, g| flag(g, &mut d.config.sprt_exit_codes)),
    // 0: no interim reports.
    ("ratinginterval", |d, g| {
        d.config.rating_interval = g.whole(0, MAX_ROUNDS)?;
        Ok(())
    }),
    ("scoreinterval", |_, g| g.whole(0, MAX_ROUNDS).map(|_| ())),
    ("variant", |d, g| {
        d.config.chess960 = variant_option(g)?;
        Ok(())
    }),
    ("tournament", |d, g| {
        d.config.tournament = tournament_option(g)?;
        Ok(())
    }),
    ("seeds", |d, g| {
        d.config.seeds = g.whole(1, MAX_ENGINES)?;
        Ok(())
    }),
    ("report", |d, g| {
        for (k, v) in g.key_values()? {
            match k.as_str() {
                "penta" => d.config.report_penta = boolean("-report penta", &v)?,
                other => return Err(unknown_key("report", other, "penta")),
            }
        }
        Ok(())
    }),
    ("output", |_, g| output_option(g)),
    ("event", |d, g| {
        d.config.event = text_option(g)?;
        Ok(())
    }),
    ("site", |d, g| {
        d.config.site = text_option(g)?;
        Ok(())
    }),
    ("noswap", |d, g| flag(g, &mut d.config.noswap)),
    ("reverse", |d, g| flag(g, &mut d.config.reverse)),
    ("wait", |d, g| {
        d.config.wait_ms = whole("-wait (ms)", &g.single()?, 0, 3_600_000)?;
        Ok(())
    }),
    ("strict", |d, g| flag(g, &mut d.config.strict)),
    ("check-mate-pvs", |d, g| flag(g, &mut d.config.check_mate_pvs)),
    ("testEnv", |d, g| flag(g, &mut d.config.test_env)),
    ("startup-ms", |d, g| {
        d.config.startup_ms = g.whole(1, 3_600_000)?;
        Ok(())
    }),
    ("ucinewgame-ms", |d, g| {
        d.config.ucinewgame_ms = g.whole(1, 3_600_000)?;
        Ok(())
    }),
    ("ping-ms", |d, g| {
        d.config.ping_ms = g.whole(1, 3_600_000)?;
        Ok(())
    }),
    ("use-affinity", |d, g| {
        d.config.affinity = Some(affinity_option(g)?);
        Ok(())
    }),
    ("log", |d, g| {
        d.config.log = Some(log_option(g)?);
        Ok(())
    }),
    ("autosaveinterval", |d, g| {
        d.config.autosave_interval = g.whole(0, MAX_ROUNDS)?;
        Ok(())
    }),
    ("tb", |d, g| {
        d.tb.0 = Some(g.single()?);
        Ok(())
    }),
    ("tbpieces", |d, g| {
        d.tb.1 = g.whole(0, 32)?;
        Ok(())
    }),
    ("tbignore50", |d, g| flag(g, &mut d.tb.2)),
    ("tbadjudicate", |d, g| {
        d.tb.3 = match g.single()?.as_str() {
            "WIN_LOSS" => TbResults::WinLoss,
            "DRAW" => TbResults::Draw,
            "BOTH" => TbResults::Both,
            other => {
                return Err(CliError::Invalid(format!(
                    "-tbadjudicate: {other:?} is not WIN_LOSS, DRAW or BOTH"
                )))
            }
        };
        Ok(())
    }),
];

/// The handler of match option `name`, if arena has that option.
fn handler(name: &str) -> Option<Handler> {
    OPTIONS.iter().find(|(n, _)| *n == name).map(|&(_, h)| h)
}

/// A bare flag: no value, sets `flag`.
fn flag(g: Group, flag: &mut bool) -> Result<(), CliError> {
    g.none()?;
    *flag = true;
    Ok(())
}

fn seed_option(d: &mut Draft, g: Group) -> Result<(), CliError> {
    d.config.seed = g.whole(0, u64::MAX)?;
    Ok(())
}

/// `-engine KEY=VALUE...`: one engine, before `-each` is merged in.
fn engine_draft(g: Group) -> Result<EngineDraft, CliError> {
    let mut draft = EngineDraft::default();
    for (k, v) in g.key_values()? {
        engine_key(&mut draft, "engine", &k, v)?;
    }
    Ok(draft)
}

/// `-openings file=F [format=] [order=] [plies=] [start=] [policy=round]`.
pub(crate) fn openings_option(g: Group) -> Result<OpeningsConfig, CliError> {
    let mut openings = OpeningsConfig {
        file: String::new(),
        pgn: false,
        random: false,
        plies: None,
        start: 1,
    };
    let mut format = None;
    for (k, v) in g.key_values()? {
        match k.as_str() {
            "file" => openings.file = v,
            "format" => {
                format = Some(match v.as_str() {
                    "epd" => false,
                    "pgn" => true,
                    other => {
                        return Err(CliError::Invalid(format!(
                            "unknown openings format {other:?} (epd or pgn)"
                        )))
                    }
                })
            }
            "order" => {
                openings.random = match v.as_str() {
                    "random" => true,
                    "sequential" => false,
                    other => {
                        return Err(CliError::Invalid(format!(
                            "unknown order {other:?} (random or sequential)"
                        )))
                    }
                }
            }
            "plies" => openings.plies = Some(whole("-openings plies", &v, 0, 100_000)?),
            "start" => openings.start = whole("-openings start (1-based)", &v, 1, usize::MAX)?,
            "policy" if v == "round" => {}
            "policy" => {
                return Err(CliError::Invalid(format!(
                    "-openings policy={v} is not supported (round only)"
                )))
            }
            other => {
                return Err(unknown_key(
                    "openings",
                    other,
                    "file, format, order, plies, start, policy",
                ))
            }
        }
    }
    if openings.file.is_empty() {
        return Err(CliError::Invalid("-openings needs file=PATH".into()));
    }
    openings.pgn = format.unwrap_or_else(|| openings.file.to_ascii_lowercase().ends_with(".pgn"));
    Ok(openings)
}

/// `-sprt [elo0=] [elo1=] [alpha=] [beta=] [model=]`.
fn sprt_option(g: Group) -> Result<SprtConfig, CliError> {
    let mut sprt = SprtConfig {
        elo0: 0.0,
        elo1: 5.0,
        alpha: 0.05,
        beta: 0.05,
        model: Model::Normalized,
    };
    for (k, v) in g.key_values()? {
        match k.as_str() {
            "elo0" => sprt.elo0 = sprt_elo("-sprt elo0", &v)?,
            "elo1" => sprt.elo1 = sprt_elo("-sprt elo1", &v)?,
            "alpha" => sprt.alpha = sprt_probability("-sprt alpha", &v)?,
            "beta" => sprt.beta = sprt_probability("-sprt beta", &v)?,
            "model" => {
                sprt.model = match v.as_str() {
                    "bayesian" => Model::Bayes,
                    other => other.parse()?,
                }
            }
            other => return Err(unknown_key("sprt", other, "elo0, elo1, alpha, beta, model")),
        }
    }
    if sprt.elo1 <= sprt.elo0 {
        return Err(CliError::Invalid("-sprt needs elo1 > elo0".into()));
    }
    Ok(sprt)
}

/// `-sprt-plot FILE.png|FILE.svg`.
fn sprt_plot_option(g: Group) -> Result<String, CliError> {
    let file = g.single()?;
    let lower = file.to_ascii_lowercase();
    if !(lower.ends_with(".png") || lower.ends_with(".svg")) {
        return Err(CliError::Invalid(format!(
            "-sprt-plot {file:?}: the file name must end in .png or .svg"
        )));
    }
    Ok(file)
}

/// `-resign movecount=N score=CP [twosided=]`.
pub(crate) fn resign_option(g: Group) -> Result<Resign, CliError> {
    let mut r = Resign {
        count: 1,
        score: 0,
        twosided: false,
    };
    for (k, v) in g.key_values()? {
        match k.as_str() {
            "movecount" => r.count = whole("-resign movecount", &v, 1, 10_000)?,
            "score" => r.score = whole("-resign score", &v, 1, MAX_ADJUDICATION_SCORE)?,
            "twosided" => r.twosided = boolean("-resign twosided", &v)?,
            other => return Err(unknown_key("resign", other, "movecount, score, twosided")),
        }
    }
    if r.score == 0 {
        return Err(CliError::Invalid(
            "-resign needs score=CP (centipawns, at least 1)".into(),
        ));
    }
    Ok(r)
}

/// `-draw movenumber=N movecount=N score=CP`: (move number, move count, score).
pub(crate) fn draw_option(g: Group) -> Result<(u32, u32, i32), CliError> {
    let (mut number, mut count, mut score) = (0, 1, 0);
    for (k, v) in g.key_values()? {
        match k.as_str() {
            "movenumber" => number = whole("-draw movenumber", &v, 0, 10_000)?,
            "movecount" => count = whole("-draw movecount", &v, 1, 10_000)?,
            "score" => score = whole("-draw score", &v, 0, MAX_ADJUDICATION_SCORE)?,
            other => return Err(unknown_key("draw", other, "movenumber, movecount, score")),
        }
    }
    Ok((number, count, score))
}

/// `-pgnout FILE` or `-pgnout [file=F] [KEY=VALUE...]`.
fn pgnout_option(g: Group) -> Result<PgnOutConfig, CliError> {
    let mut out = PgnOutConfig {
        file: String::new(),
        append: true,
        options: PgnOptions::default(),
        patterns: Vec::new(),
    };
    // A bare path (cutechess style, and arena's own) or fastchess's keys.
    if let [path] = g.values {
        if !path.contains('=') {
            out.file = path.clone();
        }
    }
    if out.file.is_empty() {
        for (k, v) in g.key_values()? {
            let o = &mut out.options;
            match k.as_str() {
                "file" => out.file = v,
                "append" => out.append = boolean("-pgnout append", &v)?,
                "notation" => {
                    o.notation = match v.as_str() {
                        "san" => Notation::San,
                        "lan" => Notation::Lan,
                        "uci" => Notation::Uci,
                        other => {
                            return Err(CliError::Invalid(format!(
                                "-pgnout notation {other:?} (san, lan or uci)"
                            )))
                        }
                    }
                }
                "nodes" => o.nodes = boolean("-pgnout nodes", &v)?,
                "seldepth" => o.seldepth = boolean("-pgnout seldepth", &v)?,
                "nps" => o.nps = boolean("-pgnout nps", &v)?,
                "hashfull" => o.hashfull = boolean("-pgnout hashfull", &v)?,
                "tbhits" => o.tbhits = boolean("-pgnout tbhits", &v)?,
                "pv" => o.pv = boolean("-pgnout pv", &v)?,
                "timeleft" => o.timeleft = boolean("-pgnout timeleft", &v)?,
                "latency" => o.latency = boolean("-pgnout latency", &v)?,
                "min" => o.min = boolean("-pgnout min", &v)?,
                "match_line" => out.patterns.push(Regex::new(&v)?),
                other => return Err(unknown_key(
                    "pgnout",
                    other,
                    "file, notation, append, nodes, seldepth, nps, hashfull, tbhits, pv, timeleft, latency, \
                         min, match_line",
                )),
            }
        }
    }
    if out.file.is_empty() {
        out.file = format!("arena_{}.pgn", file_stamp());
    }
    Ok(out)
}

/// `-epdout [file=F] [append=]`.
fn epdout_option(g: Group) -> Result<EpdOutConfig, CliError> {
    let mut out = EpdOutConfig {
        file: String::new(),
        append: true,
    };
    for (k, v) in g.key_values()? {
        match k.as_str() {
            "file" => out.file = v,
            "append" => out.append = boolean("-epdout append", &v)?,
            other => return Err(unknown_key("epdout", other, "file, append")),
        }
    }
    if out.file.is_empty() {
        out.file = format!("arena_{}.epd", file_stamp());
    }
    Ok(out)
}

/// `-variant standard|fischerandom`: whether the games are Chess960.
pub(crate) fn variant_option(g: Group) -> Result<bool, CliError> {
    match g.single()?.as_str() {
        "standard" => Ok(false),
        "fischerandom" | "chess960" => Ok(true),
        other => Err(CliError::Invalid(format!(
            "unknown variant {other:?} (standard or fischerandom)"
        ))),
    }
}

/// `-tournament roundrobin|gauntlet`.
fn tournament_option(g: Group) -> Result<TournamentKind, CliError> {
    match g.single()?.as_str() {
        "roundrobin" => Ok(TournamentKind::RoundRobin),
        "gauntlet" => Ok(TournamentKind::Gauntlet),
        other => Err(CliError::Invalid(format!(
            "unknown tournament {other:?} (roundrobin or gauntlet)"
        ))),
    }
}

/// `-output format=fastchess` (the only output arena writes).
fn output_option(g: Group) -> Result<(), CliError> {
    for (k, v) in g.key_values()? {
        match (k.as_str(), v.as_str()) {
            ("format", "fastchess") => {}
            ("format", "cutechess") => {
                return Err(CliError::Invalid(
                    "-output format=cutechess: arena writes fastchess's output only".into(),
                ))
            }
            (k, v) => {
                return Err(CliError::Invalid(format!(
                    "-output: {k}={v} is not supported (format=fastchess)"
                )))
            }
        }
    }
    Ok(())
}

/// `-event NAME` and `-site NAME`: every value, joined by spaces.
fn text_option(g: Group) -> Result<String, CliError> {
    if g.values.is_empty() {
        return Err(CliError::NeedsValue(g.name.to_string()));
    }
    Ok(g.values.join(" "))
}

/// `-use-affinity [CPUS]`: the CPU list (empty: all CPUs).
pub(crate) fn affinity_option(g: Group) -> Result<Vec<usize>, CliError> {
    if !cfg!(target_os = "linux") {
        return Err(CliError::Invalid(
            "-use-affinity is supported on Linux only".into(),
        ));
    }
    match g.values {
        [] => Ok(Vec::new()),
        [list] => cpu_list(list),
        _ => Err(CliError::Invalid(
            "-use-affinity takes one CPU list (0,2,4-7)".into(),
        )),
    }
}

/// `-log file=F [level=] [engine=] [append=] [realtime=] [compress=false]`.
pub(crate) fn log_option(g: Group) -> Result<LogConfig, CliError> {
    let mut log = LogConfig {
        file: String::new(),
        level: Level::Warn,
        engine: false,
        append: true,
    };
    for (k, v) in g.key_values()? {
        match k.as_str() {
            "file" => log.file = v,
            "level" => log.level = v.parse()?,
            "engine" => log.engine = boolean("-log engine", &v)?,
            "append" => log.append = boolean("-log append", &v)?,
            "realtime" => {
                boolean("-log realtime", &v)?;
            }
            "compress" => {
                if boolean("-log compress", &v)? {
                    return Err(CliError::Invalid(
                        "-log compress=true: arena does not compress logs".into(),
                    ));
                }
            }
            other => {
                return Err(unknown_key(
                    "log",
                    other,
                    "file, level, engine, append, realtime, compress",
                ))
            }
        }
    }
    if log.file.is_empty() {
        return Err(CliError::Invalid("-log needs file=PATH".into()));
    }
    Ok(log)
}

/// The configuration of a match before its options: fastchess's defaults.
fn default_config(args: &[String]) -> MatchConfig {
    MatchConfig {
        engines: Vec::new(),
        adjudication: Adjudication::default(),
        openings: None,
        rounds: 2,
        games: 2,
        concurrency: 1,
        sprt: None,
        sprt_plot: None,
        sprt_exit_codes: false,
        pgnout: None,
        epdout: None,
        seed: 0,
        recover: false,
        rating_interval: 10,
        chess960: false,
        tournament: TournamentKind::RoundRobin,
        seeds: 1,
        report_penta: true,
        event: "arena match".to_string(),
        site: "local".to_string(),
        noswap: false,
        reverse: false,
        wait_ms: 0,
        strict: false,
        check_mate_pvs: false,
        startup_ms: 10_000,
        ucinewgame_ms: 60_000,
        ping_ms: 60_000,
        affinity: None,
        log: None,
        state_file: None,
        autosave_interval: 0,
        test_env: false,
        args: args.to_vec(),
        resume: None,
    }
}

/// Builds the configuration from the option groups (without `-config`).
pub(crate) fn build(args: &[String], groups: &[(String, Vec<String>)]) -> Result<MatchConfig, CliError> {
    let mut draft = Draft {
        config: default_config(args),
        engines: Vec::new(),
        each: EngineDraft::default(),
        rounds_given: false,
        tb: (None, 0, false, TbResults::Both),
    };
    for (name, values) in groups {
        let group = Group { name, values };
        match handler(name) {
            Some(apply) => apply(&mut draft, group)?,
            None => {
                return Err(match unsupported(name) {
                    Some(why) => CliError::Unsupported {
                        option: name.clone(),
                        why,
                    },
                    None => CliError::UnknownOption(name.clone()),
                })
            }
        }
    }
    let Draft {
        mut config,
        engines,
        each,
        rounds_given,
        tb,
    } = draft;
    // -tbpieces, -tbignore50 and -tbadjudicate apply to -tb; without it they change nothing
    // (as in fastchess).
    if let (Some(path), max_pieces, ignore_50, results) = tb {
        config.adjudication.tablebase = Some(TbAdjudication {
            path,
            max_pieces,
            ignore_50,
            results,
        });
    }
    config.engines = engine_specs(engines, &each, config.chess960)?;
    check_match(&config)?;
    if config.sprt.is_some() && !rounds_given {
        config.rounds = SPRT_ROUNDS;
    }
    Ok(config)
}

/// The engines: each `-engine` with `-each` under its own settings.
fn engine_specs(
    drafts: Vec<EngineDraft>,
    each: &EngineDraft,
    chess960: bool,
) -> Result<Vec<EngineSpec>, CliError> {
    if drafts.len() < 2 {
        return Err(CliError::Invalid(format!(
            "at least two -engine are needed, found {}",
            drafts.len()
        )));
    }
    let mut engines = Vec::new();
    for draft in drafts {
        let mut engine = draft.config.unwrap_or_else(|| EngineConfig {
            cmd: String::new(),
            name: String::new(),
            args: Vec::new(),
            options: Vec::new(),
            dir: None,
        });
        if engine.cmd.is_empty() {
            return Err(CliError::Invalid("-engine needs cmd=PATH".into()));
        }
        if engine.name.is_empty() {
            engine.name = std::path::Path::new(&engine.cmd)
                .file_name()
                .map_or_else(|| engine.cmd.clone(), |n| n.to_string_lossy().into_owned());
        }
        if let Some(each) = &each.config {
            for (k, v) in &each.options {
                if !engine.options.iter().any(|(name, _)| name == k) {
                    engine.options.push((k.clone(), v.clone()));
                }
            }
            if engine.args.is_empty() {
                engine.args = each.args.clone();
            }
            if engine.dir.is_none() {
                engine.dir = each.dir.clone();
            }
        }
        if chess960 && !engine.options.iter().any(|(k, _)| k == "UCI_Chess960") {
            engine.options.push(("UCI_Chess960".into(), "true".into()));
        }
        let mut limits = Limits::default();
        for (k, v) in each.limits.iter().chain(&draft.limits) {
            apply_limit(&mut limits, k, v)?;
        }
        if !limits.is_set() {
            return Err(CliError::Invalid(format!(
                "engine {} has no time control: give tc=BASE+INC, nodes=N, plies=N or st=SECONDS (in -engine or -each)",
                engine.name
            )));
        }
        engines.push(EngineSpec {
            config: engine,
            limits,
            restart: draft.restart.or(each.restart).unwrap_or(false),
        });
    }
    Ok(engines)
}

/// The checks across options, once every option is read.
fn check_match(config: &MatchConfig) -> Result<(), CliError> {
    if config.engines.len() > MAX_ENGINES {
        return Err(CliError::Invalid(format!("at most {MAX_ENGINES} engines")));
    }
    for (i, a) in config.engines.iter().enumerate() {
        if config.engines[..i].iter().any(|b| b.config.name == a.config.name) {
            return Err(CliError::Invalid(format!(
                "two engines are named {:?}: give each a different name=",
                a.config.name
            )));
        }
    }
    if config.sprt.is_some() && config.engines.len() != 2 {
        return Err(CliError::Invalid(format!(
            "-sprt needs exactly two engines, found {}",
            config.engines.len()
        )));
    }
    if config.tournament == TournamentKind::Gauntlet && config.seeds >= config.engines.len() {
        return Err(CliError::Invalid(format!(
            "-seeds {} leaves no opponents among {} engines",
            config.seeds,
            config.engines.len()
        )));
    }
    if let Some(cpus) = &config.affinity {
        if !cpus.is_empty() && cpus.len() < config.concurrency {
            return Err(CliError::Invalid(format!(
                "-use-affinity: {} CPUs for -concurrency {} (one CPU per game at least)",
                cpus.len(),
                config.concurrency
            )));
        }
    }
    if config.sprt_plot.is_some() && config.sprt.is_none() {
        return Err(CliError::Invalid(
            "-sprt-plot draws an SPRT: give -sprt too".into(),
        ));
    }
    Ok(())
}

/// `YYYYmmdd_HHMMSS` (UTC) for default output file names.
fn file_stamp() -> String {
    let now = std::time::SystemTime::now();
    let iso = crate::pgn_out::iso_time(now);
    // "YYYY-MM-DDTHH:MM:SS +0000"
    let digits: String = iso[..19].chars().filter(|c| c.is_ascii_digit()).collect();
    format!("{}_{}", &digits[..8], &digits[8..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn sprt_plot_takes_a_png_or_svg_file_and_needs_an_sprt() {
        let base = "-engine cmd=a -engine cmd=b -each nodes=100";
        let c = parse_match(&args(&format!("{base} -sprt elo0=0 elo1=5 -sprt-plot walk.png"))).unwrap();
        assert_eq!(c.sprt_plot.as_deref(), Some("walk.png"));
        let c = parse_match(&args(&format!("{base} --sprt --sprt-plot out/Walk.SVG"))).unwrap();
        assert_eq!(c.sprt_plot.as_deref(), Some("out/Walk.SVG"));
        assert_eq!(parse_match(&args(base)).unwrap().sprt_plot, None);
        let e = parse_match(&args(&format!("{base} -sprt -sprt-plot walk.jpg")))
            .unwrap_err()
            .to_string();
        assert!(e.contains("must end in .png or .svg"), "{e}");
        let e = parse_match(&args(&format!("{base} -sprt-plot walk.png")))
            .unwrap_err()
            .to_string();
        assert!(e.contains("give -sprt too"), "{e}");
        let e = parse_match(&args(&format!("{base} -sprt -sprt-plot")))
            .unwrap_err()
            .to_string();
        assert!(e.contains("needs a value"), "{e}");
        assert!(USAGE.contains("-sprt-plot FILE.png|FILE.svg"));
    }

    #[test]
    fn parses_a_fastchess_style_command_line() {
        let c = parse_match(&args(
            "--engine cmd=./new name=new option.Hash=32 --engine cmd=./old name=old \
             --each tc=8+0.08 timemargin=50 option.Threads=1 --openings file=book.epd format=epd order=random \
             --rounds 100 --games 2 --concurrency 2 --sprt elo0=0 elo1=5 model=logistic \
             --resign movecount=3 score=600 --draw movenumber=34 movecount=8 score=20 --maxmoves 200 \
             --pgnout games.pgn --seed 42 --recover --ratinginterval 5",
        ))
        .unwrap();
        assert_eq!(c.engines[0].config.name, "new");
        assert_eq!(
            c.engines[0].config.options,
            vec![
                ("Hash".to_string(), "32".to_string()),
                ("Threads".to_string(), "1".to_string())
            ]
        );
        let tc = matchcore::timecontrol::parse("8+0.08").unwrap();
        assert_eq!((c.engines[0].limits.clock, c.engines[1].limits.clock), (tc, tc));
        assert_eq!(c.engines[1].limits.time_margin, 50);
        assert!(c.openings.as_ref().unwrap().random);
        assert_eq!((c.rounds, c.games, c.concurrency, c.seed), (100, 2, 2, 42));
        assert_eq!(c.sprt.as_ref().unwrap().model, Model::Logistic);
        assert_eq!(
            c.adjudication.resign,
            Some(Resign {
                count: 3,
                score: 600,
                twosided: false
            })
        );
        assert_eq!(c.adjudication.draw, Some((34, 8, 20)));
        assert_eq!(c.adjudication.max_moves, Some(200));
        assert_eq!(c.pgnout.as_ref().unwrap().file, "games.pgn");
        assert!(c.recover);
        // Single-dash spellings and node limits.
        let c = parse_match(&args("-engine cmd=a -engine cmd=b -each nodes=5000 -rounds 2")).unwrap();
        assert_eq!(
            (c.engines[1].limits.nodes, c.engines[1].config.name.as_str()),
            (Some(5000), "b")
        );
    }

    #[test]
    fn parses_openbenchs_command_line() {
        let mut line = args(
            "-recover -variant standard -testEnv -concurrency 2 -rounds 8 -games 2 \
             -resign movecount=3 score=400 -draw movenumber=40 movecount=8 score=10 \
             -engine dir=Engines/ cmd=./dev proto=uci tc=inf nodes=25000 option.Threads=1 option.Hash=16 name=luft-dev \
             -engine dir=Engines/ cmd=./base proto=uci tc=40/9.12+0.09 timemargin=250 option.Threads=1 name=luft-base \
             -openings file=Books/UHO.epd format=epd order=random start=17 -srand 1234 \
             -pgnout file=PGNs/1.2.3.0.pgn seldepth=true nodes=true",
        );
        line.push("match_line=^info string pgncomment .*".into());
        let c = parse_match(&line).unwrap();
        assert_eq!(c.engines[0].config.dir.as_deref(), Some("Engines/"));
        assert_eq!(c.engines[0].limits.clock, None);
        assert_eq!(c.engines[0].limits.nodes, Some(25000));
        let base = &c.engines[1].limits;
        assert_eq!(base.clock.unwrap().to_string(), "40/9.12+0.09");
        assert_eq!((base.time_margin, base.nodes), (250, None));
        assert_eq!((c.seed, c.openings.as_ref().unwrap().start), (1234, 17));
        let pgn = c.pgnout.as_ref().unwrap();
        assert!(pgn.options.nodes && pgn.options.seldepth && !pgn.options.nps);
        assert!(pgn.patterns[0].is_match("info string pgncomment x"));
        assert!(c.test_env && c.recover);
        assert_eq!(c.state_file, None, "no file is written unasked");
        assert_eq!(c.adjudication.tablebase, None);
        // A worker with tables adds -tb (and fastchess's companions, in any order).
        line.extend(args(
            "-tbpieces 5 -tb /syzygy/345:/syzygy/6 -tbignore50 -tbadjudicate WIN_LOSS",
        ));
        let c = parse_match(&line).unwrap();
        assert_eq!(
            c.adjudication.tablebase,
            Some(TbAdjudication {
                path: "/syzygy/345:/syzygy/6".into(),
                max_pieces: 5,
                ignore_50: true,
                results: TbResults::WinLoss,
            })
        );
        line.extend(args("-tbadjudicate DRAW"));
        let c = parse_match(&line).unwrap();
        assert_eq!(c.adjudication.tablebase.unwrap().results, TbResults::Draw);
    }

    #[test]
    fn tournaments_help_version_and_the_long_tail() {
        let c = parse_match(&args(
            "-engine cmd=a restart=on -engine cmd=b plies=7 -engine cmd=c st=0.2 -each tc=1:30+1 \
             -tournament gauntlet -seeds 2 -noswap -reverse -wait 10 -strict -check-mate-pvs \
             -startup-ms 500 -ucinewgame-ms 600 -ping-ms 700 -report penta=false -event My Event -site Here \
             -epdout file=x.epd -log file=l.txt level=info engine=true -repeat -use-affinity 0-3 \
             -sprt elo0=0 elo1=1 model=bayesian -openings file=b.pgn -output format=fastchess -scoreinterval 3",
        ));
        assert_eq!(
            c.map_err(|e| e.to_string()),
            Err("-sprt needs exactly two engines, found 3".to_string())
        );
        let c = parse_match(&args(
            "-engine cmd=a restart=on -engine cmd=b plies=7 -engine cmd=c st=0.2 -each tc=1:30+1 \
             -tournament gauntlet -seeds 2 -noswap -reverse -wait 10 -strict -check-mate-pvs \
             -startup-ms 500 -ucinewgame-ms 600 -ping-ms 700 -report penta=false -event My Event -site Here \
             -epdout file=x.epd -log file=l.txt level=info engine=true -repeat -use-affinity 0-3 \
             -openings file=b.pgn -output format=fastchess -scoreinterval 3 -autosaveinterval 5",
        ))
        .unwrap();
        assert_eq!(c.engines.len(), 3);
        assert!(c.engines[0].restart && !c.engines[1].restart);
        assert_eq!(c.engines[1].limits.depth, Some(7));
        assert_eq!(c.engines[2].limits.movetime, Some(200));
        assert_eq!(c.engines[2].limits.clock.unwrap().base_ms, 90_000);
        assert_eq!((c.tournament, c.seeds), (TournamentKind::Gauntlet, 2));
        assert!(c.noswap && c.reverse && c.strict && c.check_mate_pvs && !c.report_penta);
        assert_eq!(
            (c.wait_ms, c.startup_ms, c.ucinewgame_ms, c.ping_ms),
            (10, 500, 600, 700)
        );
        assert_eq!((c.event.as_str(), c.site.as_str()), ("My Event", "Here"));
        assert_eq!(c.affinity, Some(vec![0, 1, 2, 3]));
        assert!(
            c.openings.as_ref().unwrap().pgn,
            "the format follows the file name"
        );
        assert_eq!(c.log.as_ref().unwrap().level, Level::Info);
        assert_eq!(
            (c.state_file.as_deref(), c.autosave_interval),
            (Some("config.json"), 5)
        );
        assert_eq!(c.rounds, 2, "fastchess's default");
        let c = parse_match(&args(
            "-engine cmd=a -engine cmd=b -each nodes=1 -sprt elo0=0 elo1=5",
        ))
        .unwrap();
        assert_eq!(c.rounds, SPRT_ROUNDS);
        assert!(matches!(
            parse_command(&args("-engine cmd=a -help")),
            Ok(Command::Help)
        ));
        assert!(matches!(parse_command(&args("-version")), Ok(Command::Version)));
        assert!(matches!(parse_command(&args("--help")), Ok(Command::Help)));
    }

    #[test]
    fn rejects_bad_values_with_a_reason() {
        for (line, error) in [
            ("--engine cmd=a --each tc=1+0", "at least two -engine are needed, found 1"),
            (
                "--engine cmd=a --engine cmd=b",
                "engine a has no time control: give tc=BASE+INC, nodes=N, plies=N or st=SECONDS (in -engine or -each)",
            ),
            (
                "-engine cmd=a -engine cmd=b -each tc=inf",
                "engine a has no time control: give tc=BASE+INC, nodes=N, plies=N or st=SECONDS (in -engine or -each)",
            ),
            (
                "--engine cmd=a --engine cmd=b --each tc=x",
                "bad time control \"x\" (expected [MOVES/]TIME[+INC], TIME in seconds or M:SS)",
            ),
            (
                "--engine cmd=a --engine cmd=b --each tc=1 --games 3",
                "-games must be 1 or 2 (paired colours), found 3",
            ),
            (
                "--engine cmd=a --engine cmd=b --each tc=1 --sprt elo0=5 elo1=0",
                "-sprt needs elo1 > elo0",
            ),
            ("--engine cmd=a --engine cmd=b --each tc=1 --bogus", "unknown option -bogus (see -help)"),
            (
                "-engine cmd=a -engine cmd=b -each tc=1 -tb /syzygy -tbadjudicate WIN",
                "-tbadjudicate: \"WIN\" is not WIN_LOSS, DRAW or BOTH",
            ),
            ("-engine cmd=a -engine cmd=b -each tc=1 -tb", "-tb needs a value"),
            (
                "-engine cmd=a -engine cmd=b -each tc=1 -tb /syzygy -tbpieces 40",
                "-tbpieces must be a whole number from 0 to 32, found \"40\"",
            ),
            (
                "-engine cmd=a -engine cmd=b -each tc=1 -output format=cutechess",
                "-output format=cutechess: arena writes fastchess's output only",
            ),
            ("--engine name=x --engine cmd=b --each tc=1", "-engine needs cmd=PATH"),
            ("-engine cmd=a -engine cmd=a -each tc=1", "two engines are named \"a\": give each a different name="),
            (
                "-engine cmd=a bogus=1 -engine cmd=b -each tc=1",
                "-engine: unknown key \"bogus\" (cmd, name, args, dir, proto, restart, option.NAME, tc, st, nodes, \
                 plies, depth, timemargin)",
            ),
            ("-engine cmd=a -engine cmd=b -each tc=1 name=x", "-each cannot set name= (give it in -engine)"),
            ("-engine cmd=a proto=xboard -engine cmd=b -each tc=1", "-engine: arena speaks UCI only, not proto=xboard"),
            ("-engine cmd=a restart=yes -engine cmd=b -each tc=1", "-engine: restart must be on or off, found \"yes\""),
            ("-engine cmd=a -engine cmd=b -each tc=1 -pgnout file=x nodes=yes", "-pgnout nodes must be true or false, found \"yes\""),
            (
                "-engine cmd=a -engine cmd=b -each tc=1 -pgnout file=x match_line=(a",
                "match_line regex \"(a\": found open group without closing ')'",
            ),
            ("-engine cmd=a -engine cmd=b -each tc=1 -log file=x compress=true", "-log compress=true: arena does not compress logs"),
            ("-engine cmd=a -engine cmd=b -each tc=1 -recover now", "-recover takes no value, found \"now\""),
            ("-engine cmd=a -engine cmd=b -each tc=1 -tournament swiss", "unknown tournament \"swiss\" (roundrobin or gauntlet)"),
            (
                "-engine cmd=a -engine cmd=b -each tc=1 -tournament gauntlet -seeds 2",
                "-seeds 2 leaves no opponents among 2 engines",
            ),
            (
                "-engine cmd=a -engine cmd=b -each tc=1 -use-affinity 1-0",
                "-use-affinity: bad CPU list \"1-0\" (expected a form like 0,2,4-7)",
            ),
            ("-engine cmd=a -engine cmd=b -each tc=1 -config file=x.json", "-config file=x.json resumes the saved tournament as it was started; other options (-engine) cannot be added (start a new one, or use discard=true to replace it)"),
            ("stray", "unexpected argument \"stray\" (options start with -)"),
        ] {
            assert_eq!(
                parse_match(&args(line)).map_err(|e| e.to_string()),
                Err(error.to_string()),
                "{line}"
            );
        }
    }

    #[test]
    fn numbers_out_of_range_are_refused_with_the_range() {
        let base = "--engine cmd=a --engine cmd=b";
        for (rest, error) in [
            ("--each tc=1 --rounds 0", "-rounds must be a whole number from 1 to 1000000000, found \"0\""),
            ("--each tc=1 --rounds -1", "-rounds must be a whole number from 1 to 1000000000, found \"-1\""),
            (
                "--each tc=1 --rounds 18446744073709551615",
                "-rounds must be a whole number from 1 to 1000000000, found \"18446744073709551615\"",
            ),
            ("--each nodes=0", "nodes must be a whole number from 1 to 9223372036854775807, found \"0\""),
            ("--each depth=0", "depth must be a whole number from 1 to 1000, found \"0\""),
            ("--each plies=1001", "plies must be a whole number from 1 to 1000, found \"1001\""),
            ("--each st=0", "st must be 0.001 to 86400 seconds, found \"0\""),
            ("--each st=NaN", "st must be 0.001 to 86400 seconds, found \"NaN\""),
            ("--each st=0.0001", "st must be 0.001 to 86400 seconds, found \"0.0001\""),
            ("--each tc=100000", "time control \"100000\" is longer than a day"),
            (
                "--each tc=1 timemargin=18446744073709551615",
                "timemargin (ms) must be a whole number from 0 to 86400000, found \"18446744073709551615\"",
            ),
            ("--each tc=1 --maxmoves 0", "-maxmoves must be a whole number from 1 to 100000, found \"0\""),
            (
                "--each tc=1 --resign movecount=0",
                "-resign movecount must be a whole number from 1 to 10000, found \"0\"",
            ),
            (
                "--each tc=1 --resign score=-5",
                "-resign score must be a whole number from 1 to 100000, found \"-5\"",
            ),
            (
                "--each tc=1 --draw movecount=0",
                "-draw movecount must be a whole number from 1 to 10000, found \"0\"",
            ),
            ("--each tc=1 --draw score=-1", "-draw score must be a whole number from 0 to 100000, found \"-1\""),
            (
                "--each tc=1 --sprt elo0=0 elo1=NaN",
                "-sprt elo1 must be a number from -1000 to 1000, found \"NaN\"",
            ),
            (
                "--each tc=1 --sprt elo0=-inf elo1=5",
                "-sprt elo0 must be a number from -1000 to 1000, found \"-inf\"",
            ),
            (
                "--each tc=1 --sprt alpha=0.5",
                "-sprt alpha must be a probability above 0 and below 0.5, found \"0.5\"",
            ),
            (
                "--each tc=1 --sprt beta=nan",
                "-sprt beta must be a probability above 0 and below 0.5, found \"nan\"",
            ),
            (
                "--each tc=1 --openings file=x start=0",
                "-openings start (1-based) must be a whole number from 1 to 18446744073709551615, found \"0\"",
            ),
            (
                "--each tc=1 --ratinginterval -3",
                "-ratinginterval must be a whole number from 0 to 1000000000, found \"-3\"",
            ),
            ("--each tc=1 --concurrency 0", "-concurrency must be a whole number from 1 to 1024, found \"0\""),
            ("--each tc=1 -wait -1", "-wait (ms) must be a whole number from 0 to 3600000, found \"-1\""),
            ("--each tc=1 -ping-ms 0", "-ping-ms must be a whole number from 1 to 3600000, found \"0\""),
        ] {
            let line = format!("{base} {rest}");
            assert_eq!(
                parse_match(&args(&line)).map_err(|e| e.to_string()),
                Err(error.to_string()),
                "{line}"
            );
        }
        // The edges of each range are accepted.
        let c = parse_match(&args(&format!(
            "{base} --each depth=1000 st=0.001 timemargin=86400000 --rounds 1000000000 --maxmoves 1 \
             --resign movecount=1 score=1 --draw movenumber=0 movecount=1 score=0 --ratinginterval 0 \
             --sprt elo0=-1000 elo1=1000"
        )))
        .unwrap();
        assert_eq!(
            (c.rounds, c.engines[0].limits.depth, c.engines[0].limits.movetime),
            (1_000_000_000, Some(1000), Some(1))
        );
        assert_eq!(c.adjudication.draw, Some((0, 1, 0)));
    }
}

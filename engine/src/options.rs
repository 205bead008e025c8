//! The engine's options, described as data: each declared once in [`OPTIONS`] with its
//! name, its kind with default and range, and what it sets (`Setting`). Nothing here
//! changes the engine: `crate::Engine::set_option` finds the declaration, reads a value by
//! it ([`OptionSpec::read`]: case-insensitive name, integer in range, `true`/`false` in any
//! case, non-empty text) and applies it to what the declaration names; the UCI front end
//! prints the `option name ...` lines from the same table, so a name, default or range can
//! never disagree between the two. A build with the `tune` feature adds one spin option
//! per search tunable, described by the tunable's own declaration (`params`), after these
//! ([`all_options`]). Refusals are typed ([`OptionError`]) and change nothing: a `Hash`
//! that cannot be allocated keeps the old table, a net file that does not load keeps the
//! old net.

#[cfg(feature = "tune")]
use crate::params::{Tunable, TUNABLES};
use crate::strength::{ELO_DEFAULT, ELO_MAX, ELO_MIN};
use crate::tt::{TtAllocError, MAX_HASH_MIB};
use nnue::NetError;
use std::fmt;

/// The largest `Strength Seed` (the largest spin value GUIs are sure to accept).
pub const MAX_SEED: u64 = i32::MAX as u64;

/// The `EvalFile` value that names the embedded net: its default, and what returns to it.
/// A word, not `<default>`: python-chess reads `default <default>` as `>` and sends that
/// back when it restores the default. `<default>` and `default` are still accepted.
pub const EMBEDDED_NET_NAME: &str = "embedded";

/// The current value of every option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// `Hash`: transposition table size in MiB.
    pub hash_mib: usize,
    /// `Threads`: search threads.
    pub threads: usize,
    /// `MultiPV`: lines searched and reported.
    pub multipv: usize,
    /// `Move Overhead`: milliseconds kept back from every move for communication.
    pub move_overhead_ms: u64,
    /// `EvalFile`: the net's path, or [`EMBEDDED_NET_NAME`] for the embedded net.
    pub eval_file: String,
    /// `UCI_Chess960`: castling moves are written king-takes-rook (for the front end).
    pub chess960: bool,
    /// `Ponder`: the GUI may send `go ponder` (no effect on the search).
    pub ponder: bool,
    /// `UCI_ShowWDL`: reports carry win/draw/loss chances.
    pub show_wdl: bool,
    /// `UCI_LimitStrength`: play at `elo`.
    pub limit_strength: bool,
    /// `UCI_Elo` (used while `limit_strength`).
    pub elo: i32,
    /// `Strength Seed`: 0 for a different choice each time, else reproducible choices.
    pub strength_seed: u64,
    /// `UseSoftNodes`: `go nodes N` is a soft budget ([`crate::Limits::soft_nodes`]) with a
    /// hard limit of [`crate::SOFT_NODES_HARD_FACTOR`] times N, as datagen searches; for
    /// OpenBench-style datagen presets.
    pub use_soft_nodes: bool,
    /// `Minimal`: the front end prints only the last report's `info` line(s) before
    /// `bestmove`, none during the search.
    pub minimal: bool,
    /// `SyzygyPath`: the tablebase directories (`:` between them), or [`NO_SYZYGY_PATH`]
    /// for none.
    pub syzygy_path: String,
    /// `SyzygyProbeDepth`: the least depth at which the search probes positions with as
    /// many pieces as the probe limit (fewer pieces are probed at any depth).
    pub syzygy_probe_depth: i32,
    /// `Syzygy50MoveRule`: cursed wins and blessed losses count as draws.
    pub syzygy_50_move_rule: bool,
    /// `SyzygyProbeLimit`: the most pieces a probed position may have (0: no probes).
    pub syzygy_probe_limit: u32,
}

/// The `SyzygyPath` value for no tables: its default, and what an empty value reads as.
pub const NO_SYZYGY_PATH: &str = "<empty>";

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mib: 16,
            threads: 1,
            multipv: 1,
            move_overhead_ms: 10,
            eval_file: EMBEDDED_NET_NAME.into(),
            chess960: false,
            ponder: false,
            show_wdl: false,
            limit_strength: false,
            elo: ELO_DEFAULT,
            strength_seed: 0,
            use_soft_nodes: false,
            minimal: false,
            syzygy_path: NO_SYZYGY_PATH.into(),
            syzygy_probe_depth: 1,
            syzygy_50_move_rule: true,
            syzygy_probe_limit: 7,
        }
    }
}

/// An option's type, default and range (UCI's `type spin|check|string|button`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// An integer in `min..=max`.
    Spin {
        /// The value at start-up.
        default: i64,
        /// The smallest value.
        min: i64,
        /// The largest value.
        max: i64,
    },
    /// `true` or `false`.
    Check {
        /// The value at start-up.
        default: bool,
    },
    /// Non-empty text; for an option whose default is [`NO_SYZYGY_PATH`] (`<empty>`, as
    /// Stockfish declares `SyzygyPath`), an empty or missing value reads as `<empty>`.
    String {
        /// The value at start-up.
        default: &'static str,
    },
    /// An action without a value.
    Button,
}

impl OptionKind {
    /// What a value must be, in words ("integer from 1 to 256").
    pub fn expected(&self) -> String {
        match self {
            OptionKind::Spin { min, max, .. } => format!("integer from {min} to {max}"),
            OptionKind::Check { .. } => "true or false".into(),
            OptionKind::String { .. } => "text".into(),
            OptionKind::Button => "no value".into(),
        }
    }

    /// Reads `value` for option `name` by this kind.
    fn parse(&self, name: &'static str, value: Option<&str>) -> Result<OptionValue, OptionError> {
        let missing = || OptionError::MissingValue {
            option: name,
            expected: self.expected(),
        };
        let bad = |text: &str| OptionError::BadValue {
            option: name,
            value: truncate(text),
            expected: self.expected(),
        };
        match *self {
            OptionKind::Spin { min, max, .. } => {
                let text = value.ok_or_else(missing)?;
                match text.trim().parse::<i64>() {
                    Ok(v) if (min..=max).contains(&v) => Ok(OptionValue::Spin(v)),
                    _ => Err(bad(text)),
                }
            }
            // UCI: values are not case sensitive (`True`, `FALSE`).
            OptionKind::Check { .. } => match value.map(str::trim) {
                Some(v) if v.eq_ignore_ascii_case("true") => Ok(OptionValue::Check(true)),
                Some(v) if v.eq_ignore_ascii_case("false") => Ok(OptionValue::Check(false)),
                Some(other) => Err(bad(other)),
                None => Err(missing()),
            },
            OptionKind::String { default } => match value.map(str::trim) {
                Some(text) if !text.is_empty() => Ok(OptionValue::String(text.to_string())),
                _ if default == NO_SYZYGY_PATH => Ok(OptionValue::String(NO_SYZYGY_PATH.into())),
                _ => Err(missing()),
            },
            OptionKind::Button => Ok(OptionValue::Button),
        }
    }
}

/// A value read by an option's kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionValue {
    /// For [`OptionKind::Spin`], in range.
    Spin(i64),
    /// For [`OptionKind::Check`].
    Check(bool),
    /// For [`OptionKind::String`], trimmed and not empty.
    String(String),
    /// For [`OptionKind::Button`].
    Button,
}

impl OptionValue {
    /// A spin's value (0 for the other kinds).
    pub(crate) fn int(&self) -> i64 {
        match self {
            OptionValue::Spin(v) => *v,
            _ => 0,
        }
    }

    /// A check's value (`false` for the other kinds).
    pub(crate) fn flag(&self) -> bool {
        matches!(self, OptionValue::Check(true))
    }

    /// A string's value (empty for the other kinds).
    pub(crate) fn text(&self) -> &str {
        match self {
            OptionValue::String(s) => s,
            _ => "",
        }
    }
}

/// Why an option was not set (nothing changed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionError {
    /// No option has this name (the name, cut to 40 characters).
    Unknown(String),
    /// The option needs a value and got none.
    MissingValue {
        /// The option's declared name.
        option: &'static str,
        /// What a value must be.
        expected: String,
    },
    /// The value is not of the option's type, or out of its range.
    BadValue {
        /// The option's declared name.
        option: &'static str,
        /// The value given (cut to 40 characters).
        value: String,
        /// What a value must be.
        expected: String,
    },
    /// A transposition table of the size asked for cannot be made; the old one stays.
    Hash {
        /// Why.
        error: TtAllocError,
        /// The size of the table kept, in MiB.
        kept_mib: usize,
    },
    /// The search threads' tables cannot be had (`Threads`, or a new net's accumulators);
    /// the old threads stay.
    Threads {
        /// The threads asked for.
        threads: usize,
        /// Why (the allocator's refusal).
        error: String,
        /// The threads kept.
        kept: usize,
    },
    /// The net file `path` was refused; the old net stays.
    EvalFile {
        /// The value given.
        path: String,
        /// Why.
        error: NetError,
    },
    /// The tablebase path was refused; the tables loaded before (if any) stay.
    SyzygyPath(tablebase::TablebaseError),
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::Unknown(name) => write!(f, "unknown option {name:?}"),
            OptionError::MissingValue { option, expected } => {
                write!(f, "option {option:?} needs a value ({expected})")
            }
            OptionError::BadValue {
                option,
                value,
                expected,
            } => write!(f, "bad value {value:?} for {option} ({expected})"),
            OptionError::Hash { error, kept_mib } => {
                write!(f, "{error}; keeping the {kept_mib} MiB table")
            }
            OptionError::Threads { threads, error, kept } => write!(
                f,
                "cannot allocate the tables of {threads} search thread{} ({error}); keeping {kept}",
                if *threads == 1 { "" } else { "s" }
            ),
            // A read error names the file already.
            OptionError::EvalFile {
                error: error @ NetError::Io(_),
                ..
            } => write!(f, "EvalFile: {error}"),
            OptionError::EvalFile { path, error } => write!(f, "EvalFile {path}: {error}"),
            OptionError::SyzygyPath(error) => write!(f, "SyzygyPath: {error}; tables unchanged"),
        }
    }
}

impl std::error::Error for OptionError {}

/// The first 40 characters of `text` (for error messages).
pub(crate) fn truncate(text: &str) -> String {
    text.chars().take(40).collect()
}

/// What an option sets; the engine applies a value to it (`crate::Engine::set_option`),
/// one case each, so no option goes without an effect.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Setting {
    /// [`Options::hash_mib`], with a new transposition table.
    Hash,
    /// [`Options::threads`], with new search threads.
    Threads,
    /// [`Options::multipv`].
    MultiPv,
    /// [`Options::move_overhead_ms`].
    MoveOverhead,
    /// [`Options::eval_file`], with the net it names.
    EvalFile,
    /// [`Options::chess960`].
    Chess960,
    /// [`Options::ponder`].
    Ponder,
    /// Clears the transposition table.
    ClearHash,
    /// [`Options::show_wdl`].
    ShowWdl,
    /// [`Options::limit_strength`].
    LimitStrength,
    /// [`Options::elo`].
    Elo,
    /// [`Options::strength_seed`].
    StrengthSeed,
    /// [`Options::use_soft_nodes`].
    UseSoftNodes,
    /// [`Options::minimal`].
    Minimal,
    /// [`Options::syzygy_path`], with the tables it names.
    SyzygyPath,
    /// [`Options::syzygy_probe_depth`].
    SyzygyProbeDepth,
    /// [`Options::syzygy_50_move_rule`].
    Syzygy50MoveRule,
    /// [`Options::syzygy_probe_limit`].
    SyzygyProbeLimit,
    /// A search tunable's value (a tune build's options after [`OPTIONS`]).
    #[cfg(feature = "tune")]
    Tunable(&'static Tunable),
}

/// One option: name, kind (type, default, range) and what it sets.
#[derive(Clone, Copy, Debug)]
pub struct OptionSpec {
    /// The name, as UCI declares it (set case-insensitively).
    pub name: &'static str,
    /// Its type, default and range.
    pub kind: OptionKind,
    /// What a value is applied to.
    pub(crate) setting: Setting,
}

impl OptionSpec {
    /// The declaration named `name` (case-insensitive), among [`OPTIONS`] and, in a tune
    /// build, the tunables.
    pub fn find(name: &str) -> Option<OptionSpec> {
        all_options().find(|o| o.name.eq_ignore_ascii_case(name))
    }

    /// A tunable as a spin option over its range, named as the tunable.
    #[cfg(feature = "tune")]
    fn tunable(t: &'static Tunable) -> OptionSpec {
        OptionSpec {
            name: t.name,
            kind: OptionKind::Spin {
                default: t.default.into(),
                min: t.min.into(),
                max: t.max.into(),
            },
            setting: Setting::Tunable(t),
        }
    }

    /// Reads `value` (as text; `None` for none) by the option's kind. Errors: a missing
    /// value, or one not of the kind or out of its range.
    pub fn read(&self, value: Option<&str>) -> Result<OptionValue, OptionError> {
        self.kind.parse(self.name, value)
    }
}

/// Every option the engine offers, in the order UCI lists them: [`OPTIONS`], then in a
/// build with the `tune` feature one spin option per search tunable (named as in
/// `luft spsa`).
pub fn all_options() -> impl Iterator<Item = OptionSpec> {
    #[cfg(feature = "tune")]
    let tunables = TUNABLES.iter().map(OptionSpec::tunable);
    #[cfg(not(feature = "tune"))]
    let tunables = std::iter::empty();
    OPTIONS.iter().copied().chain(tunables)
}

/// The engine's own options, in the order UCI lists them (a tune build adds the tunables
/// after them: see [`all_options`]).
pub static OPTIONS: [OptionSpec; 18] = [
    OptionSpec {
        name: "Hash",
        kind: OptionKind::Spin {
            default: 16,
            min: 1,
            max: MAX_HASH_MIB as i64,
        },
        setting: Setting::Hash,
    },
    OptionSpec {
        name: "Threads",
        kind: OptionKind::Spin {
            default: 1,
            min: 1,
            max: 256,
        },
        setting: Setting::Threads,
    },
    OptionSpec {
        name: "MultiPV",
        kind: OptionKind::Spin {
            default: 1,
            min: 1,
            max: 256,
        },
        setting: Setting::MultiPv,
    },
    OptionSpec {
        name: "Move Overhead",
        kind: OptionKind::Spin {
            default: 10,
            min: 0,
            max: 5000,
        },
        setting: Setting::MoveOverhead,
    },
    OptionSpec {
        name: "EvalFile",
        kind: OptionKind::String {
            default: EMBEDDED_NET_NAME,
        },
        setting: Setting::EvalFile,
    },
    OptionSpec {
        name: "UCI_Chess960",
        kind: OptionKind::Check { default: false },
        setting: Setting::Chess960,
    },
    OptionSpec {
        name: "Ponder",
        kind: OptionKind::Check { default: false },
        setting: Setting::Ponder,
    },
    OptionSpec {
        name: "Clear Hash",
        kind: OptionKind::Button,
        setting: Setting::ClearHash,
    },
    OptionSpec {
        name: "UCI_ShowWDL",
        kind: OptionKind::Check { default: false },
        setting: Setting::ShowWdl,
    },
    OptionSpec {
        name: "UCI_LimitStrength",
        kind: OptionKind::Check { default: false },
        setting: Setting::LimitStrength,
    },
    OptionSpec {
        name: "UCI_Elo",
        kind: OptionKind::Spin {
            default: ELO_DEFAULT as i64,
            min: ELO_MIN as i64,
            max: ELO_MAX as i64,
        },
        setting: Setting::Elo,
    },
    OptionSpec {
        name: "Strength Seed",
        kind: OptionKind::Spin {
            default: 0,
            min: 0,
            max: MAX_SEED as i64,
        },
        setting: Setting::StrengthSeed,
    },
    OptionSpec {
        name: "UseSoftNodes",
        kind: OptionKind::Check { default: false },
        setting: Setting::UseSoftNodes,
    },
    OptionSpec {
        name: "Minimal",
        kind: OptionKind::Check { default: false },
        setting: Setting::Minimal,
    },
    OptionSpec {
        name: "SyzygyPath",
        kind: OptionKind::String {
            default: NO_SYZYGY_PATH,
        },
        setting: Setting::SyzygyPath,
    },
    OptionSpec {
        name: "SyzygyProbeDepth",
        kind: OptionKind::Spin {
            default: 1,
            min: 1,
            max: 100,
        },
        setting: Setting::SyzygyProbeDepth,
    },
    OptionSpec {
        name: "Syzygy50MoveRule",
        kind: OptionKind::Check { default: true },
        setting: Setting::Syzygy50MoveRule,
    },
    OptionSpec {
        name: "SyzygyProbeLimit",
        kind: OptionKind::Spin {
            default: 7,
            min: 0,
            max: 7,
        },
        setting: Setting::SyzygyProbeLimit,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_agrees_with_the_defaults() {
        let defaults = Options::default();
        let spin = |name: &str| match OptionSpec::find(name).unwrap().kind {
            OptionKind::Spin { default, .. } => default,
            other => panic!("{name}: {other:?}"),
        };
        let check = |name: &str| match OptionSpec::find(name).unwrap().kind {
            OptionKind::Check { default } => default,
            other => panic!("{name}: {other:?}"),
        };
        assert_eq!(spin("hash"), defaults.hash_mib as i64);
        assert_eq!(spin("Threads"), defaults.threads as i64);
        assert_eq!(spin("MultiPV"), defaults.multipv as i64);
        assert_eq!(spin("Move Overhead"), defaults.move_overhead_ms as i64);
        assert_eq!(spin("UCI_Elo"), i64::from(defaults.elo));
        assert_eq!(spin("Strength Seed"), defaults.strength_seed as i64);
        assert_eq!(check("UCI_Chess960"), defaults.chess960);
        assert_eq!(check("Ponder"), defaults.ponder);
        assert_eq!(check("UCI_ShowWDL"), defaults.show_wdl);
        assert_eq!(check("UCI_LimitStrength"), defaults.limit_strength);
        assert_eq!(check("UseSoftNodes"), defaults.use_soft_nodes);
        assert_eq!(check("minimal"), defaults.minimal);
        assert_eq!(spin("SyzygyProbeDepth"), i64::from(defaults.syzygy_probe_depth));
        assert_eq!(spin("SyzygyProbeLimit"), i64::from(defaults.syzygy_probe_limit));
        assert_eq!(check("Syzygy50MoveRule"), defaults.syzygy_50_move_rule);
        assert_eq!(
            OptionSpec::find("syzygypath").unwrap().kind,
            OptionKind::String { default: "<empty>" }
        );
        assert_eq!(defaults.syzygy_path, NO_SYZYGY_PATH);
        assert_eq!(
            OptionSpec::find("EVALFILE").unwrap().kind,
            OptionKind::String { default: "embedded" }
        );
        assert_eq!(defaults.eval_file, EMBEDDED_NET_NAME);
        assert!(OptionSpec::find("Contempt").is_none());
        // Every name once.
        for (i, a) in OPTIONS.iter().enumerate() {
            assert!(OPTIONS[i + 1..]
                .iter()
                .all(|b| !b.name.eq_ignore_ascii_case(a.name)));
        }
    }

    #[test]
    fn values_are_read_by_kind_with_typed_errors() {
        let spin = OptionKind::Spin {
            default: 1,
            min: 1,
            max: 256,
        };
        assert_eq!(spin.parse("Threads", Some("3")), Ok(OptionValue::Spin(3)));
        assert_eq!(
            spin.parse("Threads", Some("0")),
            Err(OptionError::BadValue {
                option: "Threads",
                value: "0".into(),
                expected: "integer from 1 to 256".into()
            })
        );
        assert_eq!(
            spin.parse("Threads", None).unwrap_err().to_string(),
            "option \"Threads\" needs a value (integer from 1 to 256)"
        );
        let check = OptionKind::Check { default: false };
        assert_eq!(check.parse("Ponder", Some("true")), Ok(OptionValue::Check(true)));
        assert_eq!(
            check.parse("Ponder", Some("yes")).unwrap_err().to_string(),
            "bad value \"yes\" for Ponder (true or false)"
        );
        let text = OptionKind::String { default: "" };
        assert!(matches!(
            text.parse("EvalFile", Some("  ")),
            Err(OptionError::MissingValue { .. })
        ));
        // An option declared `<empty>` (SyzygyPath) reads an empty value as `<empty>`.
        let path = OptionKind::String { default: "<empty>" };
        for value in [None, Some(""), Some("  ")] {
            assert_eq!(
                path.parse("SyzygyPath", value),
                Ok(OptionValue::String("<empty>".into()))
            );
        }
        assert_eq!(
            OptionKind::Button.parse("Clear Hash", Some("x")),
            Ok(OptionValue::Button)
        );
        let long = "9".repeat(100);
        match spin.parse("Threads", Some(&long)) {
            Err(OptionError::BadValue { value, .. }) => assert_eq!(value.len(), 40),
            other => panic!("{other:?}"),
        }
    }
}

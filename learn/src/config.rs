//! The run's settings, `DIR/learn.toml`: one documented TOML file (serde + the `toml` crate)
//! that `learn init` writes with every key at its default. `learn run` reads it at every
//! stage boundary: a changed setting applies from the next stage, and the change is logged in
//! the journal. Every key is optional in the file; a missing key takes the default below. The
//! check of the values and paths is `config/check.rs`.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

mod check;
mod recipe;
pub use recipe::Recipe;

/// All settings of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Self-play: how the data is made.
    pub selfplay: Selfplay,
    /// Training: how a candidate is made from the data.
    pub train: Train,
    /// The gate: how a candidate is judged against the best net.
    pub gate: Gate,
    /// Gauntlets: promoted nets against independent engines, rated together.
    pub gauntlet: Gauntlet,
    /// Where the tools are (empty: next to the `learn` binary).
    pub tools: Tools,
}

/// Self-play settings (passed to `datagen`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Selfplay {
    /// datagen threads while nothing else runs (all the run's cores).
    pub threads_idle: usize,
    /// datagen threads while a candidate trains or plays its gate (the cores left over; 0:
    /// self-play waits, one stage at a time, so that every record of a run is repeatable).
    pub threads_busy: usize,
    /// Soft nodes per move (datagen `--nodes`; the hard limit is 8x).
    pub nodes: u64,
    /// Positions in one self-play segment: a segment is one datagen directory, played by one
    /// net; a finished segment is kept and becomes training data.
    pub segment_positions: u64,
    /// Every this many segments, one starts from double-Chess960 positions (0: never).
    pub dfrc_every: u64,
    /// Random opening plies (datagen `--random-plies`).
    pub random_plies: u32,
    /// Seed of the first segment (segment k uses seed + k).
    pub seed: u64,
    /// Keep at most this many positions of the run's own self-play (0: no cap). When a new
    /// segment would pass the cap, the oldest segments are no longer used for training
    /// (their files stay on disk: nothing is deleted).
    pub max_positions: u64,
    /// Syzygy tablebase directories (`:` between them; relative ones from the settings
    /// file's directory) for datagen's `--syzygy`: games end at the first position the
    /// tables cover, with its true result. A directory that is not there is an error of the
    /// settings check (empty: none).
    pub syzygy: String,
}

impl Selfplay {
    /// The `syzygy` directories, in order (none when it is empty).
    pub fn syzygy_dirs(&self) -> Vec<PathBuf> {
        self.syzygy
            .split(':')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .collect()
    }
}

impl Default for Selfplay {
    fn default() -> Self {
        Selfplay {
            threads_idle: 2,
            threads_busy: 1,
            nodes: 5000,
            segment_positions: 2_000_000,
            dfrc_every: 4,
            random_plies: 8,
            seed: 2_200_000,
            max_positions: 0,
            syzygy: String::new(),
        }
    }
}

/// Training settings (passed to `trainer train`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Train {
    /// Train a candidate once this many new self-play positions (finished segments) have
    /// arrived since the last candidate's data.
    pub every_positions: u64,
    /// Data files or directories used in every training besides the run's own segments
    /// (for example `data/selfplay`, the corpus; relative ones from the settings file's
    /// directory). One that is not there is an error of the settings check.
    pub extra_data: Vec<PathBuf>,
    /// Hidden width of the candidates (0: the best net's width). The best net's width or a
    /// wider one fine-tunes the best net (`--init`; new units start small); a narrower one
    /// trains from scratch.
    pub hidden: usize,
    /// Output buckets (0: the best net's).
    pub buckets: usize,
    /// The candidates' architecture in the one-line form (`nnue::Arch`, e.g.
    /// `(768x4 -> 128)x2 -> 1x8`; see docs/trainer.md), passed to `trainer train --arch`;
    /// empty: the best net's, with `hidden` and `buckets` applied. Conflicts with `hidden`
    /// and `buckets`. A descriptor the best net can grow into (as wide or wider, king
    /// buckets added, output buckets from one, either mirroring; hidden layers only into
    /// their own shape: docs/learn.md) fine-tunes it; any other trains from scratch.
    pub arch: String,
    /// Passes over the data: the schedule grows with the data (superbatches = epochs x
    /// positions / superbatch size).
    pub epochs: u32,
    /// Passes over the data when training from scratch.
    pub epochs_scratch: u32,
    /// Learning rate at the start of the cosine schedule.
    pub lr: f64,
    /// Weight of the game result in the target; with `wdl_end`, at the first step.
    pub wdl: f64,
    /// The weight at the last step (`trainer train --wdl-end`: the target moves linearly
    /// from `wdl` to it over the run); absent: `wdl` throughout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wdl_end: Option<f64>,
    /// Batches of `batch_size` positions per superbatch.
    pub batches_per_superbatch: u32,
    /// Positions per batch.
    pub batch_size: u32,
    /// Trainer threads.
    pub threads: usize,
    /// Seed of the first candidate (candidate k uses seed + k).
    pub seed: u64,
    /// The WDL weight of the target at which a sweep's candidates are compared (`trainer
    /// validate --wdl`): one weight for all, since a recipe's loss at its own weight is not
    /// comparable with another's.
    pub screen_wdl: f64,
    /// A recipe sweep: with recipes, each generation trains one candidate per recipe (in
    /// this order, on the same data, the newest segment held out), screens them on the
    /// held-out segment and gates the best; empty: one candidate of these settings.
    pub recipes: Vec<Recipe>,
}

impl Default for Train {
    fn default() -> Self {
        Train {
            every_positions: 2_000_000,
            extra_data: Vec::new(),
            hidden: 0,
            buckets: 0,
            arch: String::new(),
            epochs: 16,
            epochs_scratch: 20,
            lr: 0.001,
            wdl: 0.3,
            wdl_end: None,
            batches_per_superbatch: 64,
            batch_size: 16384,
            threads: 1,
            seed: 1400,
            screen_wdl: 0.3,
            recipes: Vec::new(),
        }
    }
}

/// Gate settings (an `arena` SPRT of the candidate against the best net, same binary).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Gate {
    /// Time control, fastchess's form (`2+0.02`); ignored when `nodes` is set.
    pub tc: String,
    /// Fixed nodes per move instead of a clock (0: use `tc`), used only when the candidate
    /// has the best net's width (the same speed: a load on the machine cannot tilt the
    /// gate); a candidate of another width always plays at `tc`.
    pub nodes: u64,
    /// SPRT bounds, normalized Elo.
    pub elo0: f64,
    /// Upper SPRT bound.
    pub elo1: f64,
    /// Error rates.
    pub alpha: f64,
    /// Error rate of accepting H0 when H1 holds.
    pub beta: f64,
    /// Game cap: a gate that has not decided by then is a rejection. A change applies to
    /// the gate in flight too (its saved rounds are fitted to it; docs/learn.md).
    pub max_games: u64,
    /// Games at once.
    pub concurrency: usize,
    /// Engine hash (MiB).
    pub hash: u32,
    /// EPD openings (empty: the book arena ships, written into the run directory; a
    /// relative path from the settings file's directory).
    pub openings: PathBuf,
    /// arena's `-maxmoves` (0: none).
    pub max_moves: u32,
}

impl Default for Gate {
    fn default() -> Self {
        Gate {
            tc: "2+0.02".into(),
            nodes: 0,
            elo0: 0.0,
            elo1: 15.0,
            alpha: 0.05,
            beta: 0.05,
            max_games: 1500,
            concurrency: 1,
            hash: 16,
            openings: PathBuf::new(),
            max_moves: 0,
        }
    }
}

/// Gauntlet settings: every `every`-th promoted net plays `games` games against each
/// opponent (one `arena -tournament gauntlet` match, colours reversed over the book's
/// openings), rated in one joint fit by arena's rating library (`arena rate`'s fit) with
/// `anchor`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Gauntlet {
    /// Every this many promotions, a gauntlet (0: none).
    pub every: u32,
    /// Time control, fastchess's form (`5+0.05`); ignored when `nodes` is set.
    pub tc: String,
    /// Fixed nodes per move instead of a clock (0: use `tc`), for tests.
    pub nodes: u64,
    /// Games against each opponent (even).
    pub games: u64,
    /// Games at once.
    pub concurrency: usize,
    /// The promoted net's hash (MiB); opponents set theirs in their `engine` settings.
    pub hash: u32,
    /// arena's `-each timemargin=MS`: how far past its clock a move may come before it
    /// loses on time (a loaded machine's scheduling delays).
    pub time_margin: u64,
    /// `NAME=ELO`, the anchor of the fit (`arena rate --anchor`; empty: the fit's mean is 0).
    pub anchor: String,
    /// The opponents.
    pub opponents: Vec<Opponent>,
}

/// One gauntlet opponent: a name and arena's engine settings for it (`cmd=PATH` and any
/// `args=`, `option.NAME=VALUE`, ...: the `-engine` words, one a string).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Opponent {
    /// The player's name in the PGN and the ratings.
    pub name: String,
    /// arena `-engine` settings, `cmd=PATH` among them.
    pub engine: Vec<String>,
}

impl Default for Gauntlet {
    fn default() -> Self {
        Gauntlet {
            every: 0,
            tc: "5+0.05".into(),
            nodes: 0,
            games: 20,
            concurrency: 1,
            hash: 16,
            time_margin: 100,
            anchor: String::new(),
            opponents: Vec::new(),
        }
    }
}

impl Gauntlet {
    /// The independent engines of `scripts/gauntlet.sh` installed here (Debian's
    /// packages, in `/usr/games` or on PATH): Stockfish at UCI_Elo 2200, Glaurung 2.2 and
    /// Toga II, with the script's options (1 thread, 16 MB, no own book), and the anchor
    /// `sf2200=2200` when Stockfish is there; `every` 0, so a run plays none until set.
    pub fn installed() -> Gauntlet {
        let find = |bin: &str| -> Option<String> {
            let games = Path::new("/usr/games").join(bin);
            if games.is_file() {
                return Some(games.display().to_string());
            }
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|dir| dir.join(bin))
                    .find(|p| p.is_file())
                    .map(|p| p.display().to_string())
            })
        };
        let mut g = Gauntlet::default();
        let known: [(&str, &str, &[&str]); 3] = [
            (
                "sf2200",
                "stockfish",
                &[
                    "option.Hash=16",
                    "option.Threads=1",
                    "option.UCI_LimitStrength=true",
                    "option.UCI_Elo=2200",
                ],
            ),
            (
                "glaurung",
                "glaurung",
                &[
                    "option.Hash=16",
                    "option.Threads=1",
                    "option.OwnBook=false",
                    "option.Ponder=false",
                ],
            ),
            (
                "toga",
                "toga2",
                &[
                    "option.Hash=16",
                    "option.Number of Threads=1",
                    "option.OwnBook=false",
                ],
            ),
        ];
        for (name, bin, options) in known {
            if let Some(cmd) = find(bin) {
                let mut engine = vec![format!("cmd={cmd}")];
                engine.extend(options.iter().map(|o| o.to_string()));
                g.opponents.push(Opponent {
                    name: name.into(),
                    engine,
                });
            }
        }
        if g.opponents.iter().any(|o| o.name == "sf2200") {
            g.anchor = "sf2200=2200".into();
        }
        g
    }
}

/// Paths of the tools (empty: the binary of that name next to `learn`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Tools {
    /// The engine.
    pub luft: PathBuf,
    /// Self-play.
    pub datagen: PathBuf,
    /// The trainer.
    pub trainer: PathBuf,
    /// The match runner.
    pub arena: PathBuf,
}

/// The commented header `learn init` writes above the settings.
const HEADER: &str = "\
# learn.toml: the settings of one `learn run` directory (see docs/learn.md).
# Every key is shown at its default. A change applies from the next stage and is logged in
# the journal. [selfplay] goes to datagen, [train] to trainer train, [gate] to arena's SPRT,
# [gauntlet] to an arena gauntlet of every `every`-th promoted net (0: none) against the
# opponents listed (arena -engine settings; `learn init` lists the installed ones).
# [[train.recipes]] (none: one candidate a generation) makes each generation a sweep: one
# candidate per recipe, screened by `trainer validate` on the newest segment, the best gated.
";

/// Most epochs the trainer takes (`trainer train --epochs`).
pub const MAX_EPOCHS: u32 = trainer::MAX_EPOCHS;
/// Largest batch the trainer takes (`trainer train --batch-size`).
pub const MAX_BATCH_SIZE: u32 = trainer::MAX_BATCH_SIZE as u32;
/// Most threads datagen and the trainer take (the smaller of their limits).
pub const MAX_THREADS: usize = if datagen::MAX_THREADS < trainer::MAX_THREADS {
    datagen::MAX_THREADS
} else {
    trainer::MAX_THREADS
};
/// Most random opening plies datagen takes.
pub const MAX_RANDOM_PLIES: u32 = datagen::MAX_RANDOM_PLIES as u32;
/// Most soft nodes a move datagen takes (`datagen --nodes`).
pub const MAX_NODES: u64 = datagen::MAX_NODES;
/// Most games arena plays at once.
pub use matchcore::MAX_CONCURRENCY;
/// Luft's `Hash` option range, MiB.
pub const MAX_HASH_MIB: u32 = 1 << 20;
/// arena's `-maxmoves` range.
pub use matchcore::MAX_MOVES;

/// A path of the settings as a run reads it: an absolute one as it is, a relative one from
/// `base`, the settings file's directory (the run directory).
pub fn resolve(base: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

impl Settings {
    /// Reads `path` and checks it ([`Settings::check`], and [`Settings::check_paths`] and
    /// [`Settings::check_own_data`] from the file's directory, the run's); a missing key takes
    /// its default. Errors: a file that cannot be read, TOML that does not parse, a value of
    /// the wrong type or an unknown key (the toml crate's error, with the line), or a value no
    /// stage could run with (naming the key and the value).
    pub fn load(path: &Path) -> Result<Settings> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        let s: Settings = toml::from_str(&text).with_context(|| format!("{}", path.display()))?;
        let context = || format!("{}", path.display());
        s.check().with_context(context)?;
        let base = path.parent().unwrap_or(Path::new("."));
        s.check_paths(base).with_context(context)?;
        s.check_own_data(base).with_context(context)?;
        Ok(s)
    }

    /// The settings as TOML, with the header comment.
    pub fn to_toml(&self) -> Result<String> {
        Ok(format!("{HEADER}\n{}", toml::to_string(self)?))
    }

    /// One line per key whose value differs between `self` and `new` (`section.key: old ->
    /// new`), for the journal.
    pub fn changes(&self, new: &Settings) -> Vec<String> {
        let (Ok(a), Ok(b)) = (toml::Value::try_from(self), toml::Value::try_from(new)) else {
            return vec!["settings changed".into()];
        };
        let mut out = Vec::new();
        let empty = toml::map::Map::new();
        fn table<'a>(
            v: Option<&'a toml::Value>,
            empty: &'a toml::map::Map<String, toml::Value>,
        ) -> &'a toml::map::Map<String, toml::Value> {
            v.and_then(toml::Value::as_table).unwrap_or(empty)
        }
        if let (Some(a), Some(b)) = (a.as_table(), b.as_table()) {
            // Every section and key of either side: a setting left unset (an optional one,
            // which serialises as nothing) and then given is a change too, and so is the
            // reverse.
            let sections: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for section in sections {
                let (at, bt) = (table(a.get(section), &empty), table(b.get(section), &empty));
                let keys: std::collections::BTreeSet<&String> = at.keys().chain(bt.keys()).collect();
                for key in keys {
                    let (old, new) = (at.get(key), bt.get(key));
                    if old != new {
                        let show =
                            |v: Option<&toml::Value>| v.map_or("(none)".to_string(), ToString::to_string);
                        out.push(format!("{section}.{key}: {} -> {}", show(old), show(new)));
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_round_trip_and_changes_are_named() {
        let s = Settings::default();
        let text = s.to_toml().unwrap();
        let back: Settings = toml::from_str(&text).unwrap();
        assert_eq!(back, s);
        let mut t = s.clone();
        t.gate.elo1 = 10.0;
        t.selfplay.nodes = 6000;
        assert_eq!(
            s.changes(&t),
            ["gate.elo1: 15.0 -> 10.0", "selfplay.nodes: 5000 -> 6000"]
        );
        // An optional setting given where it was unset, and taken away again.
        let mut u = s.clone();
        u.train.wdl_end = Some(0.4);
        assert_eq!(s.changes(&u), ["train.wdl_end: (none) -> 0.4"]);
        assert_eq!(u.changes(&s), ["train.wdl_end: 0.4 -> (none)"]);
        let partial: Settings = toml::from_str("[gate]\ntc = \"1+0.01\"\n").unwrap();
        assert_eq!(partial.gate.tc, "1+0.01");
        assert_eq!(partial.selfplay, Selfplay::default());
        assert!(toml::from_str::<Settings>("[gate]\nbogus = 1\n").is_err());
        let mut bad = Settings::default();
        bad.gate.elo1 = -1.0;
        assert!(bad.check().is_err());
    }

    #[test]
    fn gauntlet_opponents_round_trip_and_bad_ones_are_refused() {
        let mut s = Settings::default();
        s.gauntlet.every = 1;
        s.gauntlet.anchor = "sf2200=2200".into();
        s.gauntlet.opponents = vec![Opponent {
            name: "sf2200".into(),
            engine: vec!["cmd=/usr/games/stockfish".into(), "option.UCI_Elo=2200".into()],
        }];
        s.check().unwrap();
        let back: Settings = toml::from_str(&s.to_toml().unwrap()).unwrap();
        assert_eq!(back, s);
        let mut t = s.clone();
        t.gauntlet.opponents.clear();
        assert!(t.check().unwrap_err().to_string().contains("no opponents"));
        let mut t = s.clone();
        t.gauntlet.games = 3;
        assert!(t.check().is_err());
        let mut t = s.clone();
        t.gauntlet.anchor = "sf2200".into();
        assert!(t.check().unwrap_err().to_string().contains("NAME=ELO"));
        let mut t = s.clone();
        t.gauntlet.opponents[0].engine = vec!["option.UCI_Elo=2200".into()];
        assert!(t.check().unwrap_err().to_string().contains("cmd="));
        // Off by default, so a run without opponents is valid.
        Settings::default().check().unwrap();
    }

    #[test]
    fn recipes_round_trip_and_apply_over_train() {
        let mut s = Settings::default();
        s.train.recipes = vec![
            Recipe {
                name: "long".into(),
                epochs: Some(32),
                wdl: Some(0.2),
                wdl_end: Some(0.4),
                seed: Some(9),
                ..Recipe::default()
            },
            Recipe {
                name: "kb".into(),
                arch: Some("(768x4 -> 128)x2 -> 1x8".into()),
                factorise: true,
                from_scratch: true,
                ..Recipe::default()
            },
        ];
        s.check().unwrap();
        let text = s.to_toml().unwrap();
        assert!(text.contains("[[train.recipes]]"), "{text}");
        let back: Settings = toml::from_str(&text).unwrap();
        assert_eq!(back, s);
        let long = s.train.with_recipe(&s.train.recipes[0]);
        assert_eq!((long.epochs, long.wdl, long.lr), (32, 0.2, s.train.lr));
        assert_eq!((s.train.wdl_end, long.wdl_end), (None, Some(0.4)));
        assert!(long.recipes.is_empty());
        let mut t = s.train.clone();
        t.hidden = 256;
        let kb = t.with_recipe(&t.recipes[1]);
        assert_eq!((kb.hidden, kb.arch.as_str()), (0, "(768x4 -> 128)x2 -> 1x8"));
        assert_eq!(
            s.train.recipes[1].describe(),
            "kb (arch (768x4 -> 128)x2 -> 1x8, from scratch, factorised)"
        );
        let changed = {
            let mut c = s.clone();
            c.train.recipes[0].epochs = Some(16);
            s.changes(&c)
        };
        assert_eq!(changed.len(), 1, "{changed:?}");
        assert!(changed[0].starts_with("train.recipes: "), "{changed:?}");
    }
}

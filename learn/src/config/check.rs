//! The check of the settings ([`Settings::check`], [`Settings::check_paths`]): every value
//! within what the tool it goes to takes, every path there, before any work; an error names
//! the key and the value (`[gate] tc = "abc": ...`).

use super::{
    resolve, Settings, Train, MAX_BATCH_SIZE, MAX_CONCURRENCY, MAX_EPOCHS, MAX_HASH_MIB, MAX_MOVES,
    MAX_NODES, MAX_RANDOM_PLIES, MAX_THREADS,
};
use anyhow::Result;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Refuses a `tc` of `section` that arena's parser refuses or that gives no clock (`inf`).
fn clock(section: &str, tc: &str) -> Result<()> {
    match matchcore::timecontrol::parse(tc) {
        Ok(Some(_)) => Ok(()),
        Ok(None) => Err(refuse(
            section,
            "tc",
            tc,
            "a clock such as 2+0.02 (inf sets no limit)",
        )),
        Err(e) => Err(refuse(section, "tc", tc, e)),
    }
}

/// A value as `learn.toml` writes it (`"abc"`, `nan`, `0`), for errors.
pub(super) fn shown<T: Serialize + ?Sized>(value: &T) -> String {
    toml::Value::try_from(value).map_or_else(|_| "?".to_string(), |v| v.to_string())
}

/// The error for one setting: `[section] key = value: why`.
fn refuse<T: Serialize + ?Sized>(
    section: &str,
    key: &str,
    value: &T,
    why: impl std::fmt::Display,
) -> anyhow::Error {
    anyhow::anyhow!("[{section}] {key} = {}: {why}", shown(value))
}

/// `value` within `lo..=hi`, or the error naming the key.
fn within<T>(section: &str, key: &str, value: T, lo: T, hi: T) -> Result<()>
where
    T: Serialize + PartialOrd + std::fmt::Display + Copy,
{
    if value < lo || value > hi {
        return Err(refuse(section, key, &value, format!("must be from {lo} to {hi}")));
    }
    Ok(())
}

/// The checks of the training settings `t` that a recipe can change, named as in
/// `[section]` (`train`, or `train.recipes.NAME` for `[train]` with a recipe applied).
fn check_train(section: &str, t: &Train) -> Result<()> {
    within(section, "epochs", t.epochs, 1, MAX_EPOCHS)?;
    within(section, "epochs_scratch", t.epochs_scratch, 1, MAX_EPOCHS)?;
    if !(t.lr > 0.0 && t.lr < 1.0) {
        return Err(refuse(section, "lr", &t.lr, "must lie above 0 and below 1"));
    }
    if !(0.0..=1.0).contains(&t.wdl) {
        return Err(refuse(section, "wdl", &t.wdl, "must be from 0 to 1"));
    }
    if let Some(end) = t.wdl_end.filter(|e| !(0.0..=1.0).contains(e)) {
        return Err(refuse(section, "wdl_end", &end, "must be from 0 to 1"));
    }
    if t.hidden != 0 && (!t.hidden.is_multiple_of(16) || t.hidden > nnue::MAX_HIDDEN) {
        return Err(refuse(
            section,
            "hidden",
            &t.hidden,
            format!(
                "must be 0 (the best net's) or a multiple of 16 up to {}",
                nnue::MAX_HIDDEN
            ),
        ));
    }
    if t.buckets > nnue::MAX_OUTPUT_BUCKETS {
        return Err(refuse(
            section,
            "buckets",
            &t.buckets,
            format!("must be 0 (the best net's) or 1 to {}", nnue::MAX_OUTPUT_BUCKETS),
        ));
    }
    if !t.arch.trim().is_empty() {
        if t.hidden != 0 || t.buckets != 0 {
            return Err(refuse(
                section,
                "arch",
                &t.arch,
                "conflicts with hidden and buckets (set those to 0)",
            ));
        }
        let arch: nnue::Arch = t.arch.parse().map_err(|e| refuse(section, "arch", &t.arch, e))?;
        arch.runnable().map_err(|e| refuse(section, "arch", &t.arch, e))?;
    }
    Ok(())
}

/// The recipes of `t` (`[[train.recipes]]`): each a plain name of its own, and `[train]` with
/// it applied within what the trainer takes; a factorised one has king buckets where its
/// shape is given (an `arch`; otherwise the best net's, checked when it trains).
fn check_recipes(t: &Train) -> Result<()> {
    for (i, r) in t.recipes.iter().enumerate() {
        if !output::is_plain_name(&r.name) {
            return Err(refuse(
                "train.recipes",
                "name",
                &r.name,
                "must be a plain name: ASCII letters, digits, '.', '_' and '-', not starting with '.'",
            ));
        }
        if t.recipes[..i].iter().any(|o| o.name == r.name) {
            return Err(refuse(
                "train.recipes",
                "name",
                &r.name,
                "two recipes have this name; each needs one of its own",
            ));
        }
        let section = format!("train.recipes.{}", r.name);
        let applied = t.with_recipe(r);
        check_train(&section, &applied)?;
        if r.factorise && !applied.arch.trim().is_empty() {
            let arch: nnue::Arch = applied
                .arch
                .parse()
                .map_err(|e| refuse(&section, "arch", &applied.arch, e))?;
            if arch.features.king_buckets_count() < 2 {
                return Err(refuse(
                    &section,
                    "factorise",
                    &r.factorise,
                    format!("needs king buckets; the shape {:?} has none", applied.arch),
                ));
            }
        }
    }
    Ok(())
}

impl Settings {
    /// Refuses settings no stage could run with, each within what the tool it goes to
    /// takes (datagen, `trainer train`, arena's SPRT and limits, luft's Hash), before any
    /// work. Errors: the first value out of range, as `[section] key = value: why`.
    pub fn check(&self) -> Result<()> {
        let s = &self.selfplay;
        within("selfplay", "threads_idle", s.threads_idle, 1, MAX_THREADS)?;
        within("selfplay", "threads_busy", s.threads_busy, 0, MAX_THREADS)?;
        within("selfplay", "nodes", s.nodes, 1, MAX_NODES)?;
        within("selfplay", "segment_positions", s.segment_positions, 1, u64::MAX)?;
        within("selfplay", "random_plies", s.random_plies, 0, MAX_RANDOM_PLIES)?;
        let t = &self.train;
        check_train("train", t)?;
        within("train", "every_positions", t.every_positions, 1, u64::MAX)?;
        if !(0.0..=1.0).contains(&t.screen_wdl) {
            return Err(refuse(
                "train",
                "screen_wdl",
                &t.screen_wdl,
                "must be from 0 to 1",
            ));
        }
        check_recipes(t)?;
        within(
            "train",
            "batches_per_superbatch",
            t.batches_per_superbatch,
            1,
            u32::MAX,
        )?;
        within("train", "batch_size", t.batch_size, 1, MAX_BATCH_SIZE)?;
        within("train", "threads", t.threads, 1, MAX_THREADS)?;
        let g = &self.gate;
        // The clock is used whenever the candidate's architecture differs from the best
        // net's, so it must be one even with `nodes` set.
        clock("gate", &g.tc)?;
        for (key, elo) in [("elo0", g.elo0), ("elo1", g.elo1)] {
            if matchcore::sprt::sprt_elo(key, &elo.to_string()).is_err() {
                let max = matchcore::sprt::MAX_SPRT_ELO;
                return Err(refuse(
                    "gate",
                    key,
                    &elo,
                    format!("must be a number from -{max} to {max} (normalized Elo)"),
                ));
            }
        }
        if g.elo1 <= g.elo0 {
            return Err(refuse(
                "gate",
                "elo1",
                &g.elo1,
                format!("must be above elo0 ({}) for an SPRT", shown(&g.elo0)),
            ));
        }
        for (key, p) in [("alpha", g.alpha), ("beta", g.beta)] {
            if matchcore::sprt::sprt_probability(key, &p.to_string()).is_err() {
                return Err(refuse(
                    "gate",
                    key,
                    &p,
                    "must be an error rate above 0 and below 0.5",
                ));
            }
        }
        within("gate", "max_games", g.max_games, 2, 2 * matchcore::MAX_ROUNDS)?;
        within("gate", "concurrency", g.concurrency, 1, MAX_CONCURRENCY)?;
        within("gate", "hash", g.hash, 1, MAX_HASH_MIB)?;
        within("gate", "max_moves", g.max_moves, 0, MAX_MOVES)?;
        let g = &self.gauntlet;
        if g.every > 0 && g.opponents.is_empty() {
            return Err(refuse(
                "gauntlet",
                "every",
                &g.every,
                "no opponents are listed ([[gauntlet.opponents]])",
            ));
        }
        if g.games < 2 || !g.games.is_multiple_of(2) || g.games > 2 * matchcore::MAX_ROUNDS {
            return Err(refuse(
                "gauntlet",
                "games",
                &g.games,
                "must be an even number of games, at least 2",
            ));
        }
        within("gauntlet", "concurrency", g.concurrency, 1, MAX_CONCURRENCY)?;
        within("gauntlet", "hash", g.hash, 1, MAX_HASH_MIB)?;
        within(
            "gauntlet",
            "time_margin",
            g.time_margin,
            0,
            matchcore::timecontrol::MAX_TIME_MARGIN_MS,
        )?;
        if g.nodes == 0 {
            clock("gauntlet", &g.tc)?;
        }
        for o in &g.opponents {
            if o.name.trim().is_empty() || !o.engine.iter().any(|e| e.starts_with("cmd=")) {
                return Err(refuse(
                    "gauntlet",
                    "opponents",
                    o,
                    "every opponent needs a name and a cmd= among its engine settings",
                ));
            }
        }
        if !g.anchor.is_empty()
            && g.anchor
                .split_once('=')
                .is_none_or(|(_, elo)| elo.trim().parse::<f64>().is_err())
        {
            return Err(refuse(
                "gauntlet",
                "anchor",
                &g.anchor,
                "must read NAME=ELO (or be empty)",
            ));
        }
        Ok(())
    }

    /// Refuses `[train] extra_data` that holds the run's own self-play, or lies in it: a
    /// path inside the run's `data/` or `packs/` (`root`, the run directory; whether or not
    /// they exist yet), or a directory holding either (the run directory itself, say); and
    /// extra data that reaches one file twice (given twice, or as a file and in its
    /// directory: `records::record::input_files`). Their games would be trained on twice,
    /// and the trainer, which refuses a file reached twice, would fail at every training.
    /// A path that is not there is left to [`Settings::check_paths`]. Errors: the first such
    /// path, naming its key and value.
    pub fn check_own_data(&self, root: &Path) -> Result<()> {
        let root_real = std::fs::canonicalize(root)
            .or_else(|_| std::path::absolute(root))
            .unwrap_or_else(|_| root.to_path_buf());
        let own: Vec<(PathBuf, Vec<PathBuf>)> = [crate::rundir::RunDir::DATA, crate::rundir::RunDir::PACKS]
            .iter()
            .map(|d| {
                // Where it will be, and where it is when it is a link elsewhere.
                let mut at = vec![root_real.join(d)];
                at.extend(std::fs::canonicalize(root.join(d)).ok());
                (root.join(d), at)
            })
            .collect();
        let refuse_with = |why: String| refuse("train", "extra_data", &self.train.extra_data, why);
        let mut present = Vec::new();
        for p in &self.train.extra_data {
            let path = resolve(root, p);
            let Ok(extra) = std::fs::canonicalize(&path) else {
                continue;
            };
            present.push(path);
            for (dir, at) in &own {
                if at.iter().any(|o| extra.starts_with(o) || o.starts_with(&extra)) {
                    return Err(refuse_with(format!(
                        "{} holds the run's own self-play ({}), which its trainings read \
                         already: give data from outside the run",
                        p.display(),
                        dir.display()
                    )));
                }
            }
        }
        // A file inside the extra data that is one of the run's own (a symbolic link into
        // its data/ or packs/).
        let files = records::record::input_files(&present, true).map_err(|e| refuse_with(e.to_string()))?;
        for (index, file) in files {
            let Ok(real) = std::fs::canonicalize(&file) else {
                continue;
            };
            if let Some((dir, _)) = own.iter().find(|(_, at)| at.iter().any(|o| real.starts_with(o))) {
                return Err(refuse_with(format!(
                    "{} holds {}, which is the run's own self-play ({}), which its trainings \
                     read already: give data from outside the run",
                    present[index].display(),
                    file.display(),
                    dir.display()
                )));
            }
        }
        Ok(())
    }

    /// Refuses paths of the settings that are not there, each read from `base` (the
    /// settings file's directory) when relative: every `[train] extra_data`, `[gate]
    /// openings` when set, and every `[selfplay] syzygy` directory. The `[tools]` are found
    /// when a run starts. Errors: the first one missing, naming its key and value.
    pub fn check_paths(&self, base: &Path) -> Result<()> {
        let relative = |p: &Path| {
            if p.is_relative() {
                format!(" (read from {})", base.display())
            } else {
                String::new()
            }
        };
        for p in &self.train.extra_data {
            if !resolve(base, p).exists() {
                return Err(refuse(
                    "train",
                    "extra_data",
                    &self.train.extra_data,
                    format!("{} is not there{}", p.display(), relative(p)),
                ));
            }
        }
        let o = &self.gate.openings;
        if !o.as_os_str().is_empty() && !resolve(base, o).is_file() {
            return Err(refuse(
                "gate",
                "openings",
                o,
                format!("no such file{}", relative(o)),
            ));
        }
        for d in self.selfplay.syzygy_dirs() {
            if !resolve(base, &d).is_dir() {
                return Err(refuse(
                    "selfplay",
                    "syzygy",
                    &self.selfplay.syzygy,
                    format!("{} is not a directory{}", d.display(), relative(&d)),
                ));
            }
        }
        Ok(())
    }
}

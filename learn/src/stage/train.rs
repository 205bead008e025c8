//! The training stage: once `[train] every_positions` new positions have finished, a
//! candidate `genN-W-cK` is trained (`trainer train`) on the extra data and the run's
//! finished segments (the newest up to `[selfplay] max_positions`), fine-tuned from the best
//! net when it can grow into the candidate's shape, from scratch otherwise, and its net
//! exported into `candidates/`.
//!
//! Records: `train_started` (the candidate, its directory and exactly the data it trains
//! on, file by file), `exported` (its net, fingerprint, last validation loss and time).
//! Resume rule: a candidate without a checkpoint starts with the settings of now (a setting
//! mended after a failure applies); one with a checkpoint resumes by the arguments the
//! trainer's `status.json` gives (`trainer::status`; its shape and schedule are the
//! checkpoint's), with `[train] threads` of now; one whose `final.nnue` is there is exported.

use super::selfplay::segment_data;
use super::{say, Context, Step};
use crate::child::{poll, Running};
use crate::config::{Recipe, Train};
use crate::data::scan_data;
use crate::journal::{now, Candidate, DataSlice, Record, Stage, State, SweepTag};
use crate::rundir::RunDir;
use anyhow::{anyhow, bail, Context as _, Result};
use std::path::{Path, PathBuf};
use trainer::status::RunStatus;

/// The trainer's command line of a candidate started from scratch, as JSON, in its
/// directory (`DIR/candidates/cK/command.json`): what `learn report` gives as its provenance.
pub const COMMAND_FILE: &str = "command.json";

/// A sweep's candidate's recipe as it was applied when its trainer last started from scratch
/// (learn.toml's of then, which a mended recipe changes from the sweep's journaled plan), as
/// JSON beside [`COMMAND_FILE`] (`DIR/candidates/cK/recipe.json`): the recipe `learn report`
/// gives as its provenance.
pub const RECIPE_FILE: &str = "recipe.json";

/// The training stage: its trainer, when one runs.
#[derive(Debug, Default)]
pub struct Training {
    child: Option<Running>,
}

impl Training {
    /// Whether the next candidate is due: none is open, no promoted net's gauntlet waits
    /// (it comes first), and `[train] every_positions` new positions have finished; for a
    /// sweep (`[train] recipes`), also data to train on beside the segment it holds out (an
    /// older finished segment or extra data).
    pub fn due(cx: &Context) -> bool {
        let s = &cx.state;
        let gauntlet_waits =
            s.open_gauntlet().is_some() || s.due_gauntlet(cx.settings.gauntlet.every).is_some();
        let t = &cx.settings.train;
        let finished = s
            .segments
            .iter()
            .filter(|g| g.done.is_some_and(|d| d.1 > 0))
            .count();
        let data_beside_held_out = t.recipes.is_empty() || !t.extra_data.is_empty() || finished >= 2;
        s.open_candidate().is_none()
            && !gauntlet_waits
            && data_beside_held_out
            && new_positions(s) >= t.every_positions
    }

    /// Journals the next candidate (`train_started`) with its data: every extra source and
    /// the run's finished segments, newest first up to the cap. With `[train] recipes`, the
    /// first recipe's candidate of a sweep, the newest finished segment held out for the
    /// screen; while a sweep is under way (its last candidate trained), its next recipe's
    /// candidate, on the same data. Errors: extra data that is gone, data that cannot be
    /// read, no data, a best net that does not load, a recipe of a sweep about to start
    /// whose candidate cannot be made from the best net (a factoriser on a shape without
    /// king buckets): every recipe is checked before the first trains.
    pub fn start(cx: &mut Context) -> Result<()> {
        let cand = cx.state.candidates.last().map_or(1, |c| c.cand + 1);
        let waiting = cx.open_candidate_in(|s| *s == Stage::Trained);
        if let Some(prev) = waiting {
            let tag = prev
                .sweep
                .clone()
                .ok_or_else(|| anyhow!("{} waits for a screen but belongs to no sweep", prev.name))?;
            let next = tag
                .next()
                .cloned()
                .ok_or_else(|| anyhow!("the sweep of c{} has no recipe left to train", tag.first))?;
            let sweep = SweepTag {
                recipe: next.name,
                ..tag
            };
            return journal_start(cx, cand, prev.data, prev.segments, Some(sweep));
        }
        let t = cx.settings.train.clone();
        let held_out: Vec<u64> = if t.recipes.is_empty() {
            Vec::new()
        } else {
            let newest = cx.state.segments.iter().rev();
            newest
                .filter(|g| g.done.is_some_and(|d| d.1 > 0))
                .map(|g| g.index)
                .take(1)
                .collect()
        };
        let mut data = Vec::new();
        for extra in &t.extra_data {
            let path = crate::config::resolve(&cx.run.root, extra);
            if !path.exists() {
                bail!(
                    "[train] extra_data: {} is gone (read from {})",
                    extra.display(),
                    cx.run.root.display()
                );
            }
            let slices = scan_data(&cx.run.root, extra)?;
            if slices.iter().all(|d| d.games == 0) {
                say(&format!(
                    "learn: warning: [train] extra_data {} holds no games",
                    path.display()
                ));
            }
            data.extend(slices);
        }
        let mut segments = Vec::new();
        let mut own = 0u64;
        let cap = cx.settings.selfplay.max_positions;
        let finished = cx.state.segments.iter().rev().filter(|s| s.done.is_some());
        for seg in finished.filter(|s| !held_out.contains(&s.index)) {
            let slices = segment_data(&cx.run, seg)?;
            let positions: u64 = slices.iter().map(|s| s.positions).sum();
            if cap > 0 && own + positions > cap && !segments.is_empty() {
                break;
            }
            own += positions;
            segments.push(seg.index);
            data.extend(slices);
        }
        segments.sort_unstable();
        data.retain(|d| d.games > 0);
        if data.is_empty() {
            bail!("no data to train on");
        }
        // Every recipe is made now, against the best net it will start from: one the best net
        // cannot take is refused before any recipe trains (the plan journaled below keeps it).
        for (k, r) in (cand..).zip(&t.recipes) {
            let dir = Path::new(RunDir::CANDIDATES).join(format!("c{k}"));
            trainer_args(cx, k, &data, &dir, Some(r))?;
        }
        let sweep = t.recipes.first().map(|r| SweepTag {
            first: cand,
            recipe: r.name.clone(),
            recipes: t.recipes.clone(),
            held_out,
        });
        journal_start(cx, cand, data, segments, sweep)
    }
}

/// Journals candidate `cand` (`train_started`) on `data` (of the run's `segments`), of the
/// sweep `sweep` if any: its name `genN-W-cK` (`-RECIPE` added for a sweep's), its directory
/// `candidates/cK`. Errors: a best net that does not load, a shape the trainer cannot make.
fn journal_start(
    cx: &mut Context,
    cand: u32,
    data: Vec<DataSlice>,
    segments: Vec<u64>,
    sweep: Option<SweepTag>,
) -> Result<()> {
    let (best_name, best_net, best_gen) = cx.best();
    let recipe = sweep.as_ref().map(|w| recipe_of(cx, w));
    let best =
        nnue::Network::load(&cx.run.path(&best_net)).map_err(|e| anyhow!("{}: {e}", best_net.display()))?;
    let hidden = candidate_arch(&best, &applied(cx, recipe.as_ref()))?.width;
    let mut name = format!("gen{}-{hidden}-c{cand}", best_gen + 1);
    if let Some(r) = &recipe {
        name = format!("{name}-{}", r.name);
    }
    let dir = Path::new(RunDir::CANDIDATES).join(format!("c{cand}"));
    let (_, fine_tune) = trainer_args(cx, cand, &data, &dir, recipe.as_ref())?;
    let own: u64 = (cx.state.segments.iter())
        .filter(|g| segments.contains(&g.index))
        .filter_map(|g| g.done.map(|d| d.1))
        .sum();
    say(&format!(
        "learn: candidate {name}{}: {} from {best_name} on {} positions ({own} of the run's own, {}{})",
        recipe
            .as_ref()
            .map_or(String::new(), |r| format!(" (recipe {})", r.describe())),
        if fine_tune {
            "fine-tuned"
        } else {
            "trained from scratch"
        },
        data.iter().map(|d| d.positions).sum::<u64>(),
        output::count(segments.len() as u64, "segment"),
        sweep.as_ref().map_or(String::new(), |w| format!(
            "; segments {:?} held out for the screen",
            w.held_out
        ))
    ));
    cx.record(Record::TrainStarted {
        t: now(),
        cand,
        name,
        dir,
        data,
        segments,
        args: Vec::new(),
        sweep,
    })
}

/// The recipe of a sweep's candidate: learn.toml's of now by that name (a recipe mended
/// after a failure applies to a training that starts again from scratch), else the one
/// journaled when its sweep started.
fn recipe_of(cx: &Context, tag: &SweepTag) -> Recipe {
    let now = cx.settings.train.recipes.iter().find(|r| r.name == tag.recipe);
    now.cloned().unwrap_or_else(|| tag.own())
}

/// `[train]` of now with `recipe` applied, if any.
fn applied(cx: &Context, recipe: Option<&Recipe>) -> Train {
    recipe.map_or_else(|| cx.settings.train.clone(), |r| cx.settings.train.with_recipe(r))
}

impl Step for Training {
    /// One step of the open candidate in training (nothing while there is none): exports a
    /// net the trainer finished, starts the trainer (from the start or from its
    /// checkpoint), or looks at the one running. Errors: the journal, a net that does not
    /// load, the trainer failing three times in a row.
    fn step(&mut self, cx: &mut Context) -> Result<()> {
        let Some(cand) = cx.open_candidate_in(|s| *s == Stage::Training) else {
            return Ok(());
        };
        let cand = &cand;
        let dir = cx.run.path(&cand.dir);
        if self.child.is_none() {
            if dir.join("final.nnue").exists() {
                return export(cx, cand);
            }
            let has_checkpoint = dir.join("checkpoint.bin").exists();
            // The settings of now (a journal's frozen command line is never run): a training
            // stopped by a setting is retried with the mended one. A checkpoint keeps its own
            // shape and schedule: the trainer's status gives the arguments that resume it.
            let args = if has_checkpoint {
                resume_args(cx, cand)
            } else {
                let recipe = cand.sweep.as_ref().map(|w| recipe_of(cx, w));
                let (args, _) = trainer_args(cx, cand.cand, &cand.data, &cand.dir, recipe.as_ref())?;
                std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
                output::write(
                    &dir.join(COMMAND_FILE),
                    &[],
                    serde_json::to_string(&args)?.as_bytes(),
                )?;
                if let Some(r) = &recipe {
                    output::write(&dir.join(RECIPE_FILE), &[], serde_json::to_string(r)?.as_bytes())?;
                }
                args
            };
            say(&format!(
                "learn: training {} on {} positions ({})",
                cand.name,
                cand.data.iter().map(|d| d.positions).sum::<u64>(),
                if has_checkpoint {
                    "resumed from its checkpoint"
                } else {
                    "from the start"
                }
            ));
            let log = format!("train-c{}", cand.cand);
            self.child = Some(cx.spawn(&cx.tools.trainer, &args, &log, cx.settings.train.threads)?);
            return Ok(());
        }
        if let Some(status) = poll(&mut self.child)? {
            if status.success() && dir.join("final.nnue").exists() {
                cx.succeeded();
                return export(cx, cand);
            }
            cx.child_failed(
                &format!("trainer for {} exited with {status}", cand.name),
                &format!("train-c{}", cand.cand),
            )?;
        }
        Ok(())
    }

    /// Its trainer, taken to be stopped with the loop's other children.
    fn take_child(&mut self) -> Option<Running> {
        self.child.take()
    }
}

/// Positions of finished segments that no candidate has trained on (or held out) yet.
fn new_positions(s: &State) -> u64 {
    let used = s.candidates.last().and_then(|c| {
        let held_out = c.sweep.iter().flat_map(|w| w.held_out.iter());
        c.segments.iter().chain(held_out).max().copied()
    });
    s.segments
        .iter()
        .filter(|g| used.is_none_or(|u| g.index > u))
        .filter_map(|g| g.done.map(|d| d.1))
        .sum()
}

/// `trainer train`'s command line for candidate `cand` (trained on `data` into `dir`)
/// from the settings of now with `recipe` applied, if any, and the best net, and whether it
/// fine-tunes the best net (`--init`; otherwise it trains from scratch for
/// `epochs_scratch`, as a recipe's `from_scratch` asks). The seed is the recipe's, else
/// `[train] seed` + `cand`. Errors: a best net that does not load, a `[train] arch` that does
/// not parse, a factorised recipe whose shape has no king buckets.
fn trainer_args(
    cx: &Context,
    cand: u32,
    data: &[DataSlice],
    dir: &Path,
    recipe: Option<&Recipe>,
) -> Result<(Vec<String>, bool)> {
    let (_, best_net, _) = cx.best();
    let t = &applied(cx, recipe);
    let best =
        nnue::Network::load(&cx.run.path(&best_net)).map_err(|e| anyhow!("{}: {e}", best_net.display()))?;
    let target = candidate_arch(&best, t)?;
    let fine_tune = can_grow_into(&best.arch(), &target) && !recipe.is_some_and(|r| r.from_scratch);
    let seed = recipe.and_then(|r| r.seed).unwrap_or(t.seed + u64::from(cand));
    let mut args: Vec<String> = vec!["train".into(), "--data".into()];
    args.extend(data.iter().map(|d| d.file.display().to_string()));
    // The whole shape, always: `--hidden` and `--buckets` alone would drop the best net's
    // feature set, mirroring, king buckets and hidden layers.
    args.push("--arch".into());
    args.push(target.to_string());
    for (k, v) in [
        (
            "--epochs",
            if fine_tune { t.epochs } else { t.epochs_scratch }.to_string(),
        ),
        ("--wdl", t.wdl.to_string()),
        ("--lr", t.lr.to_string()),
        ("--threads", t.threads.to_string()),
        ("--seed", seed.to_string()),
        ("--batch-size", t.batch_size.to_string()),
        ("--batches-per-superbatch", t.batches_per_superbatch.to_string()),
        ("--out", dir.display().to_string()),
    ] {
        args.push(k.into());
        args.push(v);
    }
    if let Some(end) = t.wdl_end {
        args.push("--wdl-end".into());
        args.push(end.to_string());
    }
    if fine_tune {
        args.push("--init".into());
        args.push(best_net.display().to_string());
        if best.mirrored() != target.features.is_mirrored() {
            args.push("--allow-mirror-change".into());
        }
    }
    if let Some(r) = recipe.filter(|r| r.factorise) {
        if target.features.king_buckets_count() < 2 {
            bail!(
                "[train.recipes.{}] factorise = true: needs king buckets; the candidate's shape {target} has none",
                r.name
            );
        }
        args.push("--factorise".into());
    }
    Ok((args, fine_tune))
}

/// The trainer's arguments that resume candidate `cand` from its checkpoint: those its
/// `status.json` gives (`trainer::status`), or, for a checkpoint of a trainer that wrote
/// none, the same built from the journal's data; with `[train] threads` of now.
fn resume_args(cx: &Context, cand: &Candidate) -> Vec<String> {
    let mut args = match RunStatus::load(&cx.run.path(&cand.dir)) {
        Ok(status) => status.resume,
        Err(_) => {
            let data: Vec<PathBuf> = cand.data.iter().map(|d| d.file.clone()).collect();
            trainer::status::resume_args(&data, None, &cand.dir)
        }
    };
    args.extend(["--threads".into(), cx.settings.train.threads.to_string()]);
    args
}

/// Copies the trainer's final net to `candidates/NAME.nnue` and journals it (`exported`)
/// with its fingerprint and the last validation loss of the trainer's status.
fn export(cx: &mut Context, cand: &Candidate) -> Result<()> {
    let dir = cx.run.path(&cand.dir);
    let final_net = dir.join("final.nnue");
    let net = nnue::Network::load(&final_net).map_err(|e| anyhow!("{}: {e}", final_net.display()))?;
    std::fs::create_dir_all(cx.run.candidates())?;
    let path = Path::new(RunDir::CANDIDATES).join(format!("{}.nnue", cand.name));
    output::write(&cx.run.path(&path), &[], &net.to_bytes())?;
    let val_loss = RunStatus::load(&dir).ok().and_then(|s| s.last_validation_loss());
    say(&format!(
        "learn: exported {} (validation loss {})",
        path.display(),
        val_loss.map_or("?".into(), |v| format!("{v:.6}"))
    ));
    cx.record(Record::Exported {
        t: now(),
        cand: cand.cand,
        net: path,
        fingerprint: format!("{:016x}", net.fingerprint()),
        val_loss,
        train_secs: now().saturating_sub(cand.train_started),
    })
}

/// The architecture of the next candidate: `[train] arch` when set, otherwise the best
/// net's (its feature set, mirroring, king buckets, hidden layers and quantisation) with
/// `[train] hidden` and `buckets` applied (0 keeps the best net's); the trainer gets it
/// whole (`--arch`).
fn candidate_arch(best: &nnue::Network, t: &crate::config::Train) -> Result<nnue::Arch> {
    if !t.arch.trim().is_empty() {
        return t
            .arch
            .parse::<nnue::Arch>()
            .map_err(|e| anyhow!("[train] arch {:?}: {e}", t.arch));
    }
    let mut arch = best.arch();
    if t.hidden != 0 {
        arch.width = t.hidden;
    }
    if t.buckets != 0 {
        arch.output_buckets = t.buckets;
    }
    Ok(arch)
}

/// Whether `trainer train --init` can start a net of `target` from one of `from`, as the
/// trainer grows one (`trainer::Model::grown_into`): the same activation and quantisation;
/// a net with hidden layers only into its very shape; otherwise as wide or wider (new units
/// start small), the same output buckets or more from one (the one copied into each), the
/// same king buckets or more of them from none (the plain rows copied into every bucket),
/// and either mirroring (a change passes `--allow-mirror-change`: the weights are read with
/// the new mirroring, and the fine-tune recovers in a few superbatches; a plain gen23-128
/// into `(768x4hm -> 128 screlu)x2 -> 1x8` started at validation loss 0.0123 and ended at
/// 0.0099 after 16 epochs, 2026-12-06).
fn can_grow_into(from: &nnue::Arch, target: &nnue::Arch) -> bool {
    let (a, b) = (&from.features, &target.features);
    if !from.layers.is_empty() || !target.layers.is_empty() {
        return from == target;
    }
    from.activation == target.activation
        && from.quantisation == target.quantisation
        && from.width <= target.width
        && (from.output_buckets == target.output_buckets || from.output_buckets == 1)
        && (a.with_mirroring(b.is_mirrored()) == *b || a.king_buckets_count() == 1)
}

#[cfg(all(test, unix))]
#[path = "train_tests.rs"]
mod tests;

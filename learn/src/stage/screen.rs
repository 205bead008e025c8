//! The screen of a recipe sweep (`[train] recipes`): once every recipe of a generation's
//! sweep is trained, `trainer validate` measures every candidate's net on the segment the
//! sweep held out (trained on by none of them) at the one WDL weight `[train] screen_wdl`,
//! writing its JSON to `candidates/screen-cK.json` (K: the sweep's first candidate). The
//! lowest loss goes to the gate (a tie: the earlier recipe); the others are screened out.
//!
//! Records: `screened` (the held-out data, the weight and positions measured, every
//! candidate's recipe, whole trainer command line, seed and loss, and the one picked).
//! Resume rule: the JSON, which the trainer writes whole or not at all, is read, not
//! measured again; without it the measure starts again from the start (it keeps nothing
//! else), with the settings of now.

use super::selfplay::segment_data;
use super::{say, Context, Step};
use crate::child::{poll, Running};
use crate::journal::{loss_text, now, DataSlice, Record, ScreenEntry, Stage, SweepTag};
use crate::rundir::RunDir;
use anyhow::{anyhow, bail, Context as _, Result};
use std::path::{Path, PathBuf};
use trainer::validate::Validation;

/// The screen stage: its `trainer validate`, when one runs.
#[derive(Debug, Default)]
pub struct Screening {
    child: Option<Running>,
}

/// The screen's JSON of the sweep whose first candidate is `first`, relative to the run
/// directory (`candidates/screen-cK.json`).
pub fn screen_file(first: u32) -> PathBuf {
    Path::new(RunDir::CANDIDATES).join(format!("screen-c{first}.json"))
}

impl Step for Screening {
    /// One step of the screen of the open sweep whose last recipe is trained (nothing
    /// otherwise): journals the JSON the trainer wrote, starts `trainer validate`, or looks
    /// at the one running. Errors: the journal, held-out data that cannot be read or holds
    /// nothing, a JSON that does not read or measures other nets, the trainer failing
    /// three times in a row.
    fn step(&mut self, cx: &mut Context) -> Result<()> {
        let Some(tag) = cx
            .open_candidate_in(|s| *s == Stage::Trained)
            .and_then(|c| c.sweep)
            .filter(|w| w.next().is_none())
        else {
            return Ok(());
        };
        let json = cx.run.path(&screen_file(tag.first));
        let log = format!("screen-c{}", tag.first);
        if self.child.is_none() {
            if json.exists() {
                return journal(cx, &tag);
            }
            let args = validate_args(cx, &tag)?;
            say(&format!(
                "learn: screening the sweep of c{} ({} recipes) on the held-out segments {:?}",
                tag.first,
                tag.recipes.len(),
                tag.held_out
            ));
            self.child = Some(cx.spawn(&cx.tools.trainer, &args, &log, cx.settings.train.threads)?);
            return Ok(());
        }
        if let Some(status) = poll(&mut self.child)? {
            if status.success() && json.exists() {
                cx.succeeded();
                return journal(cx, &tag);
            }
            cx.child_failed(
                &format!(
                    "trainer validate for the sweep of c{} exited with {status}",
                    tag.first
                ),
                &log,
            )?;
        }
        Ok(())
    }

    /// Its trainer, taken to be stopped with the loop's other children.
    fn take_child(&mut self) -> Option<Running> {
        self.child.take()
    }
}

/// The data the sweep held out, file by file (the segments' data files, or their packs).
fn held_out(cx: &Context, tag: &SweepTag) -> Result<Vec<DataSlice>> {
    let mut data = Vec::new();
    for seg in cx
        .state
        .segments
        .iter()
        .filter(|s| tag.held_out.contains(&s.index))
    {
        data.extend(segment_data(&cx.run, seg)?);
    }
    data.retain(|d| d.games > 0);
    Ok(data)
}

/// `trainer validate`'s command line for the sweep `tag`: every candidate's net, the
/// held-out data, `[train] screen_wdl` and `threads` of now. Errors: no held-out data, a
/// candidate without a net.
fn validate_args(cx: &Context, tag: &SweepTag) -> Result<Vec<String>> {
    let data = held_out(cx, tag)?;
    if data.is_empty() {
        bail!(
            "the sweep of c{} has no held-out data to screen on (segments {:?})",
            tag.first,
            tag.held_out
        );
    }
    let mut args: Vec<String> = vec!["validate".into(), "--net".into()];
    for c in cx.state.sweep_of(tag.first) {
        let net = c.net.as_ref().ok_or_else(|| anyhow!("{} has no net", c.name))?;
        args.push(net.display().to_string());
    }
    args.push("--data".into());
    args.extend(data.iter().map(|d| d.file.display().to_string()));
    let t = &cx.settings.train;
    args.extend([
        "--wdl".into(),
        t.screen_wdl.to_string(),
        "--threads".into(),
        t.threads.to_string(),
        "--json".into(),
        screen_file(tag.first).display().to_string(),
    ]);
    Ok(args)
}

/// Reads the screen's JSON and journals it (`screened`): every candidate's loss at the
/// measure's weight, its recipe, command line (`candidates/cK/command.json`) and seed, and
/// the lowest loss picked. Errors: a JSON that does not read or lacks a candidate's net.
fn journal(cx: &mut Context, tag: &SweepTag) -> Result<()> {
    let path = screen_file(tag.first);
    let text = std::fs::read_to_string(cx.run.path(&path))
        .with_context(|| format!("cannot read {}", path.display()))?;
    let v: Validation = serde_json::from_str(&text)
        .with_context(|| format!("{}: not trainer validate's JSON", path.display()))?;
    let wdl = v
        .nets
        .first()
        .and_then(|n| n.losses.first())
        .map_or(0.0, |l| (f64::from(l.0) * 1e6).round() / 1e6);
    let mut entries = Vec::new();
    for c in cx.state.sweep_of(tag.first) {
        let measured = v
            .nets
            .iter()
            .find(|n| Some(&n.net) == c.net.as_ref())
            .ok_or_else(|| {
                anyhow!(
                    "{} does not measure {} (remove it to measure again)",
                    path.display(),
                    c.name
                )
            })?;
        let args: Vec<String> = std::fs::read_to_string(cx.run.path(&c.dir).join(super::train::COMMAND_FILE))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        let seed = args
            .iter()
            .position(|a| a == "--seed")
            .and_then(|i| args.get(i + 1))
            .and_then(|s| s.parse().ok());
        entries.push(ScreenEntry {
            cand: c.cand,
            name: c.name.clone(),
            recipe: c.sweep.as_ref().map_or(String::new(), |w| w.recipe.clone()),
            args,
            seed,
            loss: measured.losses.first().map(|l| l.1).filter(|l| l.is_finite()),
        });
    }
    // The lowest loss; one that is not a number never wins; a tie goes to the earlier.
    let picked = entries
        .iter()
        .min_by(|a, b| {
            let key = |e: &ScreenEntry| e.loss.unwrap_or(f64::INFINITY);
            key(a).total_cmp(&key(b))
        })
        .ok_or_else(|| anyhow!("the sweep of c{} has no candidates", tag.first))?;
    let picked = (picked.cand, picked.name.clone());
    for e in &entries {
        say(&format!(
            "learn: screen: {} loss {} at wdl {wdl}{}",
            e.name,
            loss_text(e.loss),
            if e.cand == picked.0 {
                " (picked for the gate)"
            } else {
                ""
            }
        ));
    }
    let data = held_out(cx, tag)?;
    cx.record(Record::Screened {
        t: now(),
        first: tag.first,
        data,
        wdl,
        positions: v.positions as u64,
        entries,
        picked: picked.0,
    })
}

#[cfg(all(test, unix))]
#[path = "sweep_tests.rs"]
mod tests;

//! The self-play stage: `datagen` plays in segments, one datagen directory each
//! (`data/sNNN-NET-OPENINGS`), always with the best net, beside the other stages (with
//! `[selfplay] threads_busy` threads while a candidate or a gauntlet is under way,
//! `threads_idle` otherwise).
//!
//! Records: `segment_started` (the segment's directory, net, start positions, target and
//! seed, written before datagen first plays it) and `segment_done` (its games and positions:
//! training data from then on). Resume rule: the open segment (started, not done) resumes
//! in its directory with the net, start positions, target and seed its record gives;
//! datagen's nodes, random plies, tablebases and threads are the settings of now. A segment
//! whose net is no longer the best ends where it is. A finished segment is packed into
//! `packs/` ([`SelfPlay::pack`]).

use super::{say, Context, Step};
use crate::child::{interrupt, Running};
use crate::data::scan_data;
use crate::journal::{now, DataSlice, Record, Segment};
use crate::rundir::RunDir;
use anyhow::{bail, Context as _, Result};
use movegen::openings::StartPositions;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The self-play stage: its datagen, when one runs, and the segments whose packing failed
/// in this process (not tried again until a restart).
#[derive(Debug, Default)]
pub struct SelfPlay {
    child: Option<Running>,
    pack_failed: Vec<u64>,
}

impl SelfPlay {
    /// Packs every finished segment that has no pack yet into `DIR/packs/NAME.pack`
    /// (`datagen pack`, which writes through a temporary file and a rename, so a pack that
    /// exists is whole; a kill mid-pack leaves none and the next pass packs again), until
    /// `stop` is set. The segment's data files stay: the pack is a copy to carry. A failed
    /// pack is said once and tried again after a restart; it never stops the loop.
    pub fn pack(&mut self, cx: &Context, stop: &AtomicBool) {
        let todo: Vec<Segment> = cx
            .state
            .segments
            .iter()
            .filter(|s| s.done.is_some_and(|d| d.1 > 0) && !self.pack_failed.contains(&s.index))
            .filter(|s| !cx.run.path(&pack_path(s)).exists())
            .cloned()
            .collect();
        for seg in todo {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            let out = pack_path(&seg);
            let result = std::fs::create_dir_all(cx.run.packs())
                .map_err(anyhow::Error::from)
                .and_then(|()| {
                    let status = Command::new(&cx.tools.datagen)
                        .current_dir(&cx.run.root)
                        .arg("pack")
                        .arg(&seg.dir)
                        .arg("--out")
                        .arg(&out)
                        .stdin(Stdio::null())
                        .stdout(Stdio::null())
                        .stderr(Stdio::piped())
                        .output()
                        .with_context(|| format!("cannot start {}", cx.tools.datagen.display()))?;
                    if status.status.success() {
                        Ok(())
                    } else {
                        bail!("{}", String::from_utf8_lossy(&status.stderr).trim())
                    }
                });
            match result {
                Ok(()) => say(&format!(
                    "learn: segment {} packed into {}",
                    seg.index,
                    out.display()
                )),
                Err(e) => {
                    say(&format!(
                        "learn: segment {} not packed (the data files stay): {e:#}",
                        seg.index
                    ));
                    self.pack_failed.push(seg.index);
                }
            }
        }
    }
}

impl Step for SelfPlay {
    /// One step: ends a segment whose net is no longer the best, stops datagen while
    /// self-play waits (`threads_busy = 0` beside a candidate or gauntlet), starts the next
    /// segment or datagen on the open one, restarts it when the core budget changed, and
    /// journals a segment that reached its target. Errors: the journal, a data file that
    /// cannot be read, datagen failing three times in a row.
    fn step(&mut self, cx: &mut Context) -> Result<()> {
        // Busy from a candidate's first record to its decision, whatever its child is doing,
        // so the thread count does not depend on timing.
        let busy = cx.state.open_candidate().is_some() || cx.state.open_gauntlet().is_some();
        let s = cx.settings.selfplay.clone();
        let want = if busy { s.threads_busy } else { s.threads_idle };
        let (best_name, _, _) = cx.best();
        // A segment played by an older net ends when a new one is promoted.
        if let Some(seg) = cx.state.open_segment().cloned() {
            if seg.net != best_name {
                if let Some(r) = self.child.as_mut() {
                    r.stop();
                }
                if self
                    .child
                    .as_mut()
                    .is_some_and(|r| r.child.try_wait().ok().flatten().is_some())
                {
                    self.child = None;
                }
                if self.child.is_none() {
                    return end_segment(cx, &seg);
                }
                return Ok(());
            }
        }
        if want == 0 {
            // Self-play waits while a candidate is busy (`threads_busy = 0`: one stage at a
            // time, a run whose every record is repeatable).
            if let Some(r) = self.child.as_mut() {
                r.stop();
                if r.child.try_wait()?.is_some() {
                    self.child = None;
                }
            }
            return Ok(());
        }
        let Some(seg) = cx.state.open_segment().cloned() else {
            return start_segment(cx);
        };
        match self.child.as_mut() {
            None => {
                let args = datagen_args(cx, &seg, want)?;
                say(&format!(
                    "learn: self-play segment {} ({}, {}, {} to {} positions)",
                    seg.index,
                    seg.openings,
                    output::count(want as u64, "thread"),
                    seg.net,
                    seg.target
                ));
                let log = log_name(seg.index);
                self.child = Some(cx.spawn(&cx.tools.datagen, &args, &log, want)?);
            }
            Some(r) => match r.child.try_wait()? {
                Some(status) => {
                    let stopped_by_us = r.stopping;
                    let quick = r.started.elapsed() < Duration::from_secs(10);
                    self.child = None;
                    let slices = scan_data(&cx.run.root, &seg.dir)?;
                    let positions: u64 = slices.iter().map(|d| d.positions).sum();
                    if positions >= seg.target {
                        end_segment(cx, &seg)?;
                    } else if !stopped_by_us && (!status.success() || quick) {
                        cx.child_failed(
                            &format!("datagen for segment {} exited with {status}", seg.index),
                            &log_name(seg.index),
                        )?;
                    }
                }
                None => {
                    if r.threads != want && !r.stopping && r.started.elapsed() > Duration::from_secs(5) {
                        // The core budget changed: datagen resumes with the new thread count.
                        interrupt(&r.child);
                        r.stopping = true;
                    }
                }
            },
        }
        Ok(())
    }

    /// Its datagen, taken to be stopped with the loop's other children.
    fn take_child(&mut self) -> Option<Running> {
        self.child.take()
    }
}

/// datagen's command line for segment `seg` with `threads` threads: the segment's journaled
/// directory, net, target, seed and start positions, `[selfplay]`'s nodes, random plies and
/// tablebases of now. Errors: start positions the journal names wrongly.
fn datagen_args(cx: &Context, seg: &Segment, threads: usize) -> Result<Vec<String>> {
    let s = &cx.settings.selfplay;
    let net = Path::new(RunDir::NETS).join(format!("{}.nnue", seg.net));
    let mut args = vec![
        "--threads".to_string(),
        threads.to_string(),
        "--nodes".into(),
        s.nodes.to_string(),
        "--positions".into(),
        seg.target.to_string(),
        "--out".into(),
        seg.dir.display().to_string(),
        "--net".into(),
        net.display().to_string(),
        "--seed".into(),
        seg.seed.to_string(),
        "--random-plies".into(),
        s.random_plies.to_string(),
    ];
    args.extend(openings_args(seg.index, &seg.openings)?);
    // Tablebases (the settings check found every directory; datagen runs in the run
    // directory, which relative ones are read from).
    if !s.syzygy_dirs().is_empty() {
        args.extend(["--syzygy".into(), s.syzygy.clone()]);
    }
    Ok(args)
}

/// Journals the next segment, played by the best net with the settings of now.
fn start_segment(cx: &mut Context) -> Result<()> {
    let s = &cx.settings.selfplay;
    let index = cx.state.segments.last().map_or(0, |g| g.index + 1);
    let dfrc = s.dfrc_every > 0 && index % s.dfrc_every == s.dfrc_every - 1;
    let openings = if dfrc {
        StartPositions::DoubleChess960
    } else {
        StartPositions::Classical
    }
    .word();
    let (best, _, _) = cx.best();
    let dir = Path::new(RunDir::DATA).join(format!("s{index:03}-{best}-{openings}"));
    let r = Record::SegmentStarted {
        t: now(),
        index,
        dir,
        net: best,
        openings: openings.into(),
        target: s.segment_positions,
        seed: s.seed + index,
    };
    cx.record(r)
}

/// Journals segment `seg` done with the games and positions its directory holds.
fn end_segment(cx: &mut Context, seg: &Segment) -> Result<()> {
    let slices = scan_data(&cx.run.root, &seg.dir)?;
    let games = slices.iter().map(|d| d.games).sum();
    let positions = slices.iter().map(|d| d.positions).sum();
    say(&format!(
        "learn: segment {} done: {games} games, {positions} positions",
        seg.index
    ));
    cx.record(Record::SegmentDone {
        t: now(),
        index: seg.index,
        games,
        positions,
    })
}

/// Where segment `seg`'s pack goes, relative to the run directory: `packs/` and the
/// segment directory's name.
pub fn pack_path(seg: &Segment) -> PathBuf {
    let name = seg.dir.file_name().map_or_else(
        || format!("s{:03}", seg.index),
        |n| n.to_string_lossy().into_owned(),
    );
    Path::new(RunDir::PACKS).join(format!("{name}.pack"))
}

/// A finished segment's training data: its datagen directory, or its pack when the
/// directory's files were removed (docs/learn.md: a verified pack restores them), or
/// nothing, said as a warning, when neither is there. Errors: a file that cannot be read.
pub fn segment_data(run: &RunDir, seg: &Segment) -> Result<Vec<DataSlice>> {
    let slices = scan_data(&run.root, &seg.dir)?;
    if slices.iter().any(|d| d.games > 0) {
        return Ok(slices);
    }
    let pack = pack_path(seg);
    if run.path(&pack).exists() {
        return scan_data(&run.root, &pack);
    }
    if seg.done.is_some_and(|d| d.0 > 0) {
        say(&format!(
            "learn: warning: segment {} ({} games) has neither its data files ({}) nor its pack ({}): not trained on",
            seg.index,
            seg.done.map_or(0, |d| d.0),
            seg.dir.display(),
            pack.display()
        ));
    }
    Ok(slices)
}

/// Datagen's arguments for the start positions of segment `index`, whose journal names
/// them `openings` by their one word (`movegen::openings::StartPositions::word`): none for
/// the classical start, else `--openings-960 <word>`. The random plies and the playability
/// check are datagen's (the one source and check genfens shares). Errors: a word that
/// names no start positions.
fn openings_args(index: u64, openings: &str) -> Result<Vec<String>> {
    match StartPositions::from_word(openings) {
        Some(StartPositions::Classical) => Ok(Vec::new()),
        Some(start) => Ok(vec!["--openings-960".into(), start.word().into()]),
        None => {
            bail!("segment {index}: unknown openings {openings:?} in the journal (classical, frc or dfrc)")
        }
    }
}

#[cfg(all(test, unix))]
#[path = "selfplay_tests.rs"]
mod tests;

/// The name of segment `index`'s datagen log (`logs/NAME.log`).
fn log_name(index: u64) -> String {
    format!("selfplay-s{index}")
}

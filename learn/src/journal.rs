//! The run's journal, `DIR/journal`: append-only, one record a line, each line a JSON record,
//! a tab and the FNV-1a 64 checksum of the JSON in hex. A record is appended (and synced)
//! before the state it names is acted on, so after `kill -9` at any moment the journal holds
//! every decision made and at most a torn last line (one without its newline), which the
//! reader drops and [`Journal::open`] cuts off. A complete line whose checksum does not match
//! is damage, not a cut-short write, and an error naming the line wherever it is, the last
//! line too: the run refuses to guess, and nothing of the file is cut or rewritten.
//!
//! [`State::replay`] (`journal/state.rs`) folds the records into the run's state: the best
//! net, the self-play segments, the candidate in progress and every candidate's outcome. `learn run`, `learn
//! status` and `learn report` all read the run through it.
//!
//! **Paths.** Every path a record gives to a file of the run is relative to the run
//! directory (`nets/gen14-128.nnue`, `data/s003-gen14-128-classical`), so a copied directory
//! is a run of its own and a moved one resumes; a path outside it (extra data) is as the
//! settings give it. Journals written before 2026-12-06 hold absolute paths: [`read`] and
//! [`Journal::open`] give their records with every path into the run's own tree made
//! relative ([`relocate`]), wherever the run was then and wherever it is now.

use anyhow::{bail, Context, Result};
use output::checksum::fnv1a;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

mod state;
mod sweep;
pub use state::{loss_text, Candidate, Gauntlet, Screen, Segment, Stage, State};
pub use sweep::{ScreenEntry, SweepTag};

/// One file of training data and how much of it a training used.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DataSlice {
    /// The file: relative to the run directory for the run's own segments (and for extra
    /// data given by a relative path, read from the run directory), else absolute.
    pub file: PathBuf,
    /// Its games, from the first (the whole file as it was when the training started: a
    /// finished segment no longer grows).
    pub games: u64,
    /// Its positions.
    pub positions: u64,
    /// Its length in bytes then.
    pub bytes: u64,
}

/// The gate's outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GateResult {
    /// `H1`, `H0` or `undecided` (the game cap came first).
    pub verdict: matchcore::sprt::Verdict,
    /// Games played.
    pub games: u64,
    /// Pentanomial counts (LL, LD, DD+WL, WD, WW) from the candidate's side.
    pub penta: [u64; 5],
    /// Logistic Elo of the candidate against the best: `-inf` when it lost every game,
    /// `+inf` when it won every one (written `"-inf"`/`"inf"` in the journal), 0 before any.
    #[serde(with = "infinite_as_text")]
    pub elo: f64,
    /// Half-width of the 95% interval (None while it cannot be told: an infinite Elo, or
    /// counts with no spread, such as every pair alike).
    pub elo_error: Option<f64>,
    /// The final log-likelihood ratio.
    pub llr: f64,
}

/// A journal record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Record {
    /// The run's start: the first best net.
    Init {
        /// Unix time, seconds.
        t: u64,
        /// The net file, copied into the run: `nets/NAME.nnue` (relative to the run
        /// directory, as every path of the run's own files in a record).
        net: PathBuf,
        /// Its name (`gen13-128`) and generation number.
        name: String,
        /// Generation number.
        gen: u32,
    },
    /// The settings changed (or were first read), with one line per change.
    Settings {
        /// Unix time.
        t: u64,
        /// `section.key: old -> new`.
        changes: Vec<String>,
    },
    /// A self-play segment started (or the first time it was started).
    SegmentStarted {
        /// Unix time.
        t: u64,
        /// Segment number from 0.
        index: u64,
        /// Its datagen directory (`data/sNNN-NET-OPENINGS`).
        dir: PathBuf,
        /// The net that plays it (its name).
        net: String,
        /// `classical` or `dfrc`.
        openings: String,
        /// Positions datagen stops at.
        target: u64,
        /// datagen seed.
        seed: u64,
    },
    /// A segment ended: it plays no more games and is training data from now on.
    SegmentDone {
        /// Unix time.
        t: u64,
        /// Segment number.
        index: u64,
        /// Games and positions it holds.
        games: u64,
        /// Positions.
        positions: u64,
    },
    /// A candidate's training started, on exactly this data.
    TrainStarted {
        /// Unix time.
        t: u64,
        /// Candidate number (its generation).
        cand: u32,
        /// Its name (`gen14-128`).
        name: String,
        /// The trainer's output directory (`candidates/cK`).
        dir: PathBuf,
        /// The data, file by file.
        data: Vec<DataSlice>,
        /// Segments the data includes (numbers).
        segments: Vec<u64>,
        /// The trainer's command line as journals before 2026-12-06 froze it (read for the
        /// report, never run: a training started from scratch takes the settings of then,
        /// so a setting mended after a failure applies). Empty, and not written, since.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        args: Vec<String>,
        /// Its place in a recipe sweep (`[train] recipes`); none for a generation of one
        /// candidate.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sweep: Option<SweepTag>,
    },
    /// Training finished; the net is exported.
    Exported {
        /// Unix time.
        t: u64,
        /// Candidate number.
        cand: u32,
        /// The candidate net (`candidates/NAME.nnue`).
        net: PathBuf,
        /// Its fingerprint.
        fingerprint: String,
        /// The last validation loss the trainer recorded.
        val_loss: Option<f64>,
        /// Seconds the training took (over all its resumes).
        train_secs: u64,
    },
    /// A sweep's candidates were measured on the held-out data (`trainer validate`) and one
    /// picked for the gate, the lowest loss; the others are screened out.
    Screened {
        /// Unix time.
        t: u64,
        /// The sweep (its first candidate's number).
        first: u32,
        /// The held-out data, file by file.
        data: Vec<DataSlice>,
        /// The WDL weight of the measure.
        wdl: f64,
        /// Positions measured (after the training filter).
        positions: u64,
        /// Every candidate of the sweep, in training order.
        entries: Vec<ScreenEntry>,
        /// The candidate that goes to the gate.
        picked: u32,
    },
    /// The gate started.
    GateStarted {
        /// Unix time.
        t: u64,
        /// Candidate number.
        cand: u32,
        /// arena's command line as journals before 2026-12-06 froze it (never run: a gate
        /// not yet under way takes the settings of when it starts; one under way resumes
        /// from arena's saved state). Empty, and not written, since.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        args: Vec<String>,
    },
    /// The gate decided.
    GateDone {
        /// Unix time.
        t: u64,
        /// Candidate number.
        cand: u32,
        /// The outcome.
        result: GateResult,
        /// Seconds the gate took.
        gate_secs: u64,
    },
    /// The candidate is the new best net.
    Promoted {
        /// Unix time.
        t: u64,
        /// Candidate number.
        cand: u32,
        /// Its file (`nets/NAME.nnue`).
        net: PathBuf,
    },
    /// The candidate is not.
    Rejected {
        /// Unix time.
        t: u64,
        /// Candidate number.
        cand: u32,
        /// Why.
        why: String,
    },
    /// A promoted net's gauntlet started.
    GauntletStarted {
        /// Unix time.
        t: u64,
        /// The net's name (`gen15-128`).
        net: String,
        /// arena's command line as journals before 2026-12-06 froze it (never run, as for
        /// the gate). Empty, and not written, since.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        args: Vec<String>,
        /// Games it plays in all.
        games: u64,
    },
    /// The gauntlet was played out and rated.
    GauntletDone {
        /// Unix time.
        t: u64,
        /// The net's name.
        net: String,
        /// Games played.
        games: u64,
        /// The net's rating in the joint fit (`arena::rating`, against the anchor), and the
        /// half-width of its 95% interval.
        elo: Option<f64>,
        /// Half-width of the interval.
        elo_error: Option<f64>,
        /// The fit's table (`arena::rating::render` under a line that says what was rated;
        /// older journals hold `arena rate`'s printed output).
        ratings: String,
    },
    /// The run stopped (a signal, `--for`, or an error), for the record.
    Stopped {
        /// Unix time.
        t: u64,
        /// Why.
        why: String,
    },
}

/// A gate's Elo in the journal: a JSON number when finite, the text `"inf"` or `"-inf"`
/// for a score of 100% or 0% (JSON has no infinities; a number would lose the sign).
mod infinite_as_text {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(elo: &f64, s: S) -> Result<S::Ok, S::Error> {
        match *elo {
            x if x.is_finite() => s.serialize_f64(x),
            x if x > 0.0 => s.serialize_str("inf"),
            x if x < 0.0 => s.serialize_str("-inf"),
            _ => s.serialize_f64(0.0),
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Elo {
        Number(f64),
        Text(String),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        match Elo::deserialize(d)? {
            Elo::Number(x) => Ok(x),
            Elo::Text(t) if t == "inf" => Ok(f64::INFINITY),
            Elo::Text(t) if t == "-inf" => Ok(f64::NEG_INFINITY),
            Elo::Text(t) => Err(serde::de::Error::custom(format!(
                "a gate's Elo is a number, \"inf\" or \"-inf\", not {t:?}"
            ))),
        }
    }
}

/// `+12.3 +- 4.5` (or `+12.3 +- inf` while the interval cannot be told; `-inf +- inf` for a
/// candidate that lost every game).
pub fn elo_text(g: &GateResult) -> String {
    match g.elo_error {
        Some(e) => format!("{:+.1} +- {e:.1}", g.elo),
        None => format!("{:+.1} +- inf", g.elo),
    }
}

/// Unix time now, in seconds.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A journal time (Unix seconds) as `YYYY-MM-DD HH:MM UTC`, for reports (the date by
/// [`output::civil_from_days`]).
pub fn utc(t: u64) -> String {
    let days = (t / 86_400) as i64;
    let secs = t % 86_400;
    let (year, month, day) = output::civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        secs / 3600,
        secs / 60 % 60
    )
}

/// Where a run was, by the absolute paths of its own files in `records` (journals before
/// 2026-12-06): the directory above `nets/`, `data/` or `candidates/` of each start net,
/// promoted net, segment, candidate directory and candidate net. Empty for a journal with
/// relative paths.
pub fn old_roots(records: &[Record]) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = Vec::new();
    let mut add = |path: &Path, under: &str| {
        if let Some(root) = own_root(path, under) {
            if !roots.contains(&root) {
                roots.push(root);
            }
        }
    };
    for r in records {
        match r {
            Record::Init { net, .. } | Record::Promoted { net, .. } => add(net, "nets"),
            Record::SegmentStarted { dir, .. } => add(dir, "data"),
            Record::TrainStarted { dir, .. } => add(dir, "candidates"),
            Record::Exported { net, .. } => add(net, "candidates"),
            _ => {}
        }
    }
    roots
}

/// The run directory of `path`, an absolute path of the form `ROOT/under/NAME`.
fn own_root(path: &Path, under: &str) -> Option<PathBuf> {
    if !path.is_absolute() {
        return None;
    }
    let parent = path.parent()?;
    (parent.file_name()? == under).then(|| parent.parent().map(Path::to_path_buf))?
}

/// `path` relative to the run directory when it is an absolute path into the tree of one of
/// `roots` (where the run was); otherwise as it is.
pub fn reroot(path: &Path, roots: &[PathBuf]) -> PathBuf {
    if path.is_absolute() {
        for root in roots {
            if let Ok(rest) = path.strip_prefix(root) {
                if !rest.as_os_str().is_empty() {
                    return rest.to_path_buf();
                }
            }
        }
    }
    path.to_path_buf()
}

/// A command-line word with [`reroot`] applied to it, or to its value when it is
/// `KEY=VALUE` (`option.EvalFile=PATH`, `file=PATH`).
pub fn reroot_arg(arg: &str, roots: &[PathBuf]) -> String {
    let moved = reroot(Path::new(arg), roots);
    if moved != Path::new(arg) {
        return moved.display().to_string();
    }
    if let Some((key, value)) = arg.split_once('=') {
        let moved = reroot(Path::new(value), roots);
        if moved != Path::new(value) {
            return format!("{key}={}", moved.display());
        }
    }
    arg.to_string()
}

/// Makes every path of `records` into the tree of one of `roots` (see [`old_roots`])
/// relative to the run directory: the nets, segments and candidates, the training data,
/// and the command lines journals before 2026-12-06 froze.
pub fn relocate(records: &mut [Record], roots: &[PathBuf]) {
    if roots.is_empty() {
        return;
    }
    let args = |args: &mut Vec<String>| {
        for a in args.iter_mut() {
            *a = reroot_arg(a, roots);
        }
    };
    for r in records {
        match r {
            Record::Init { net, .. } | Record::Promoted { net, .. } | Record::Exported { net, .. } => {
                *net = reroot(net, roots);
            }
            Record::SegmentStarted { dir, .. } => *dir = reroot(dir, roots),
            Record::TrainStarted {
                dir, data, args: a, ..
            } => {
                *dir = reroot(dir, roots);
                for d in data.iter_mut() {
                    d.file = reroot(&d.file, roots);
                }
                args(a);
            }
            Record::GateStarted { args: a, .. } | Record::GauntletStarted { args: a, .. } => args(a),
            _ => {}
        }
    }
}

/// The records of a journal file, with the run's own paths relative to the run directory
/// ([`relocate`]), and the length of its intact part (all of it but a torn last line, one
/// without its newline, which is dropped). A missing file holds no records. Errors: a file
/// that cannot be read, a complete line whose checksum does not match or that is not a
/// record (naming the line).
pub fn read(path: &Path) -> Result<(Vec<Record>, u64)> {
    let (mut records, intact) = read_as_written(path)?;
    let roots = old_roots(&records);
    relocate(&mut records, &roots);
    Ok((records, intact))
}

/// The records of a journal file as written, and the length of its intact part.
fn read_as_written(path: &Path) -> Result<(Vec<Record>, u64)> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut records = Vec::new();
    let mut at = 0usize;
    let mut line_no = 0;
    while at < bytes.len() {
        line_no += 1;
        let Some(end) = bytes[at..].iter().position(|&b| b == b'\n') else {
            // A torn last line: the append it belongs to never completed.
            break;
        };
        let line = &bytes[at..at + end];
        let parsed = std::str::from_utf8(line).ok().and_then(|l| {
            let (json, sum) = l.rsplit_once('\t')?;
            let sum = u64::from_str_radix(sum, 16).ok()?;
            (sum == fnv1a(json.as_bytes())).then_some(json)
        });
        let Some(json) = parsed else {
            // A complete line (its newline written) was appended whole: a bad checksum is
            // damage, never a cut-short write, wherever the line is.
            bail!(
                "{} line {line_no} is damaged (its checksum does not match); nothing from it on can be \
                 trusted, and the journal is left as it is",
                path.display()
            );
        };
        let record: Record = serde_json::from_str(json)
            .with_context(|| format!("{} line {line_no}: not a journal record", path.display()))?;
        records.push(record);
        at += end + 1;
    }
    Ok((records, at as u64))
}

/// The journal, open for appending.
#[derive(Debug)]
pub struct Journal {
    file: std::fs::File,
    old_roots: Vec<PathBuf>,
}

impl Journal {
    /// Opens `path` (created if missing), cutting off a torn last line (one without its
    /// newline); its records as [`read`] gives them. Errors: [`read`]'s (a damaged line, the
    /// last one too, leaves the file untouched), a file that cannot be opened or cut.
    pub fn open(path: &Path) -> Result<(Journal, Vec<Record>)> {
        let (mut records, intact) = read_as_written(path)?;
        let old_roots = old_roots(&records);
        relocate(&mut records, &old_roots);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        if file.metadata()?.len() > intact {
            file.set_len(intact)
                .with_context(|| format!("cannot cut the torn end off {}", path.display()))?;
        }
        Ok((Journal { file, old_roots }, records))
    }

    /// Where the run was, by the absolute paths of a journal written before 2026-12-06
    /// ([`old_roots`]): arena's saved states of such a run name its files under these.
    pub fn old_roots(&self) -> &[PathBuf] {
        &self.old_roots
    }

    /// Appends a record and syncs it to disk.
    pub fn append(&mut self, record: &Record) -> Result<()> {
        let json = serde_json::to_string(record)?;
        let line = format!("{json}\t{:016x}\n", fnv1a(json.as_bytes()));
        self.file
            .write_all(line.as_bytes())
            .context("cannot append to the journal")?;
        self.file.sync_data().context("cannot sync the journal")?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gate_verdict_reads_and_writes_back_as_journals_hold_it() {
        use matchcore::sprt::Verdict;
        for (word, verdict) in [
            ("H1", Verdict::H1),
            ("H0", Verdict::H0),
            ("undecided", Verdict::Undecided),
        ] {
            let line = format!(
                "{{\"kind\":\"gate_done\",\"t\":5,\"cand\":2,\"result\":{{\"verdict\":\"{word}\",\"games\":28,\
                 \"penta\":[0,2,10,2,0],\"elo\":0.0,\"elo_error\":12.5,\"llr\":-0.5}},\"gate_secs\":60}}"
            );
            let record: Record = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line}: {e}"));
            let Record::GateDone { result, .. } = &record else {
                panic!("{line}: read as {record:?}");
            };
            assert_eq!(result.verdict, verdict);
            assert_eq!(
                serde_json::to_string(&record).ok().as_deref(),
                Some(line.as_str())
            );
        }
        // A score of 0% or 100%: an infinite Elo, written as text and read back with its
        // sign (JSON has no infinities).
        for (elo, text) in [(f64::NEG_INFINITY, "\"-inf\""), (f64::INFINITY, "\"inf\"")] {
            let result = GateResult {
                verdict: Verdict::Undecided,
                games: 4,
                penta: [2, 0, 0, 0, 0],
                elo,
                elo_error: None,
                llr: -0.3,
            };
            let line = serde_json::to_string(&result).unwrap();
            assert!(line.contains(&format!("\"elo\":{text},")), "{line}");
            assert_eq!(serde_json::from_str::<GateResult>(&line).unwrap(), result);
        }
        let bad = "{\"verdict\":\"H0\",\"games\":2,\"penta\":[0,0,1,0,0],\"elo\":\"big\",\"elo_error\":null,\"llr\":0.1}";
        assert!(serde_json::from_str::<GateResult>(bad).is_err());
        let playing = "{\"verdict\":\"playing\",\"games\":2,\"penta\":[0,0,1,0,0],\"elo\":0.0,\"elo_error\":null,\"llr\":0.1}";
        assert!(serde_json::from_str::<GateResult>(playing).is_err());
    }

    #[test]
    fn journal_times_read_as_utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(utc(1_796_143_491), "2026-12-01 16:44 UTC");
        assert_eq!(utc(4_107_542_399), "2100-02-28 23:59 UTC");
    }

    /// The two records the journal tests write: `Stopped` at times 1 and 2, saying "a"
    /// and "b".
    fn two_stops() -> [Record; 2] {
        [
            Record::Stopped {
                t: 1,
                why: "a".into(),
            },
            Record::Stopped {
                t: 2,
                why: "b".into(),
            },
        ]
    }

    #[test]
    fn a_torn_last_line_is_dropped_and_cut_off_and_damage_before_it_is_an_error() {
        let dir = testing::temp("journal");
        let path = dir.join("journal");
        let (mut j, records) = Journal::open(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(records.is_empty());
        let [a, b] = two_stops();
        j.append(&a).unwrap_or_default();
        j.append(&b).unwrap_or_default();
        drop(j);
        let whole = std::fs::read(&path).unwrap_or_default();
        // Torn: half of a third line.
        let mut torn = whole.clone();
        torn.extend_from_slice(b"{\"kind\":\"stopped\",\"t\":3");
        std::fs::write(&path, &torn).unwrap_or_default();
        let (j, records) = Journal::open(&path).unwrap_or_else(|e| panic!("{e}"));
        drop(j);
        assert_eq!(records, [a.clone(), b.clone()]);
        assert_eq!(
            std::fs::read(&path).unwrap_or_default(),
            whole,
            "the torn line is cut off"
        );
        // A flipped byte in the first line: an error naming the line.
        let mut bad = whole.clone();
        bad[10] ^= 1;
        std::fs::write(&path, &bad).unwrap_or_default();
        let e = read(&path).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains("line 1 is damaged"), "{e}");
    }

    #[test]
    fn a_damaged_complete_last_line_is_an_error_and_the_journal_is_left_as_it_is() {
        let dir = testing::temp("journal-last");
        let path = dir.join("journal");
        let [a, b] = two_stops();
        let (mut j, _) = Journal::open(&path).unwrap_or_else(|e| panic!("{e}"));
        j.append(&a).unwrap_or_default();
        drop(j);
        let one = std::fs::read(&path).unwrap_or_default();
        let (mut j, _) = Journal::open(&path).unwrap_or_else(|e| panic!("{e}"));
        j.append(&b).unwrap_or_default();
        drop(j);
        let two = std::fs::read(&path).unwrap_or_default();
        // The only line, and the last of two: a flipped byte in either is an error naming
        // the line, by read and by open, and the file stays byte for byte as it was.
        for (whole, line) in [(one, 1), (two, 2)] {
            let mut bad = whole.clone();
            let n = bad.len();
            bad[n - 10] ^= 1;
            std::fs::write(&path, &bad).unwrap_or_default();
            let e = read(&path).map(|_| ()).unwrap_err().to_string();
            assert!(e.contains(&format!("line {line} is damaged")), "{e}");
            let e = Journal::open(&path).map(|_| ()).unwrap_err().to_string();
            assert!(e.contains(&format!("line {line} is damaged")), "{e}");
            assert_eq!(std::fs::read(&path).unwrap_or_default(), bad, "nothing is cut");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! Golden digests: what every committed data file, pack and net decodes to, pinned so that a
//! restructuring of the readers (moving the data formats between crates, converting old
//! containers, sharing one buffered reader) can be seen to change nothing.
//!
//! - **Data files and packs** (`data/selfplay/*.pack`, the container fixtures of datagen's
//!   tests, `testdata/selfplay`): the digest is FNV-1a 64 over a canonical text of the
//!   decoded games, in file order: per game its start position (FEN), the start evaluation,
//!   the result, and every move (UCI) with its score; lone positions (text and bulletformat
//!   files) as FEN, score and result. The container (version, chunk sizes, sequence
//!   numbers, settings headers) is left out on purpose: a file converted to a newer
//!   container holds the same games and keeps its digest. Beside it, the counts of games,
//!   scored positions and positions the training filter keeps
//!   (`keep_for_training`, ply counted from the record's start as the trainer counts it),
//!   and the damage found (none in a committed file).
//! - **Nets** (`nets/**/*.nnue`): FNV-1a 64 over the evaluations (i32, little-endian) of the
//!   bench positions (`engine/bench.fens`, the positions `luft bench` searches), each from
//!   the `nnue` crate's scalar reference, checked equal to the engine's own inference
//!   (`engine::Evaluator`, the fastest code path of this CPU).
//!
//! The expected values are `tests/data/golden-digests.tsv`, computed with the readers of
//! 2026-12-06 (the same decoding as commit 8257eee). The nets and the small data files are
//! checked by `golden_small`; every pack of the corpus (35.6M positions, 12.5 s on two threads
//! of a 2-vCPU AMD EPYC, release build) by `golden_corpus`. To write the table
//! anew (only for a new file: a changed digest is a fault to find, not a value to update):
//! `LUFT_GOLDEN_WRITE=1 cargo test --release -p tests --test golden`.

#![allow(clippy::unwrap_used)]

use movegen::Board;
use output::checksum::{fnv1a_extend, FNV_OFFSET};
use records::record::keep_for_training;
use records::source::{DataSource, SourceItem};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The workspace root (this package's parent directory).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The table of expected digests, relative to the workspace root.
const TABLE: &str = "tests/data/golden-digests.tsv";

/// One row of the table: a file and what it decodes to.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Golden {
    /// `data` (a data file or pack) or `net`.
    kind: String,
    /// Path relative to the workspace root, `/` between its parts.
    path: String,
    /// Games (data) or bench positions evaluated (net).
    games: u64,
    /// Scored positions (data); 0 for a net.
    positions: u64,
    /// Positions the training filter keeps (data); 0 for a net.
    kept: u64,
    /// FNV-1a 64 of the canonical text (data) or the evaluations (net), 16 hex digits.
    digest: String,
}

impl Golden {
    fn line(&self) -> String {
        format!(
            "{}\t{}\t{}\t{}\t{}\t{}",
            self.kind, self.path, self.games, self.positions, self.kept, self.digest
        )
    }
}

/// A running FNV-1a 64 over text.
struct Digest(u64);

impl Digest {
    fn add(&mut self, text: &str) {
        self.0 = fnv1a_extend(self.0, text.as_bytes());
        self.0 = fnv1a_extend(self.0, b"\n");
    }
}

/// The golden row of a data file or pack at `rel` (relative to the root).
fn data_golden(rel: &str) -> Golden {
    let mut source = DataSource::open(&root().join(rel)).unwrap();
    let mut digest = Digest(FNV_OFFSET);
    let (mut games, mut positions, mut kept, mut damage) = (0u64, 0u64, 0u64, 0u64);
    let mut line = String::new();
    while let Some(item) = source.next_item().unwrap() {
        match item {
            SourceItem::Chunk { chunk, .. } => {
                for game in &chunk.games {
                    games += 1;
                    line.clear();
                    write!(
                        line,
                        "{} {} {}",
                        game.start.to_fen(),
                        game.start_eval,
                        game.result as u8
                    )
                    .unwrap();
                    digest.add(&line);
                    for (ply, (board, mv, score)) in game.positions().enumerate() {
                        positions += 1;
                        kept += u64::from(keep_for_training(&board, mv, score, ply));
                        line.clear();
                        write!(line, "{mv} {score}").unwrap();
                        digest.add(&line);
                    }
                }
            }
            SourceItem::Positions { positions: batch, .. } => {
                for p in batch {
                    positions += 1;
                    digest.add(&format!("{p:?}"));
                }
            }
            SourceItem::Damage(_) | SourceItem::Duplicate(_) | SourceItem::Problem(_) => damage += 1,
        }
    }
    assert_eq!(damage, 0, "{rel}: a committed data file reads with damage");
    Golden {
        kind: "data".into(),
        path: rel.into(),
        games,
        positions,
        kept,
        digest: format!("{:016x}", digest.0),
    }
}

/// The golden row of the net at `rel`.
fn net_golden(rel: &str) -> Golden {
    let net = Arc::new(nnue::Network::load(&root().join(rel)).unwrap());
    let mut evaluator = engine::Evaluator::new(Arc::clone(&net));
    let mut digest = FNV_OFFSET;
    let mut count = 0;
    for fen in engine::bench::BENCH_FENS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
    {
        let board = Board::from_fen(fen).unwrap();
        let reference = net.evaluate(&board);
        assert_eq!(
            evaluator.evaluate(&board),
            reference,
            "{rel}: the engine's inference differs from the reference on {fen}"
        );
        digest = fnv1a_extend(digest, &reference.to_le_bytes());
        count += 1;
    }
    Golden {
        kind: "net".into(),
        path: rel.into(),
        games: count,
        positions: 0,
        kept: 0,
        digest: format!("{digest:016x}"),
    }
}

/// Tracked files under `dir` (relative to the root) whose names end in `ext`, sorted.
fn files(dir: &str, ext: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root().join(dir)];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().ends_with(ext) {
                let rel = path.strip_prefix(root()).unwrap();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

/// The small files: every net and the data files outside the corpus.
fn small_files() -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = files("nets", ".nnue").into_iter().map(|p| (p, true)).collect();
    for data in [
        "datagen/tests/data/format1-gen3.bin",
        "datagen/tests/data/format2-gen4.bin",
        "testdata/selfplay/gen3-b-v1.bin",
    ] {
        out.push((data.to_string(), false));
    }
    out
}

/// The expected table, by path.
fn expected() -> BTreeMap<String, Golden> {
    let text = std::fs::read_to_string(root().join(TABLE)).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 6, "{TABLE}: a row has six fields: {l:?}");
            let row = Golden {
                kind: f[0].into(),
                path: f[1].into(),
                games: f[2].parse().unwrap(),
                positions: f[3].parse().unwrap(),
                kept: f[4].parse().unwrap(),
                digest: f[5].into(),
            };
            (row.path.clone(), row)
        })
        .collect()
}

/// Computes the rows of `files` (in parallel on two threads) and compares them with the
/// table; with `LUFT_GOLDEN_WRITE=1` merges them into the table instead.
fn check(files: Vec<(String, bool)>) {
    let rows: Vec<Golden> = std::thread::scope(|s| {
        let (a, b): (Vec<_>, Vec<_>) = files.iter().enumerate().partition(|(i, _)| i % 2 == 0);
        let run = |part: Vec<(usize, &(String, bool))>| {
            part.into_iter()
                .map(|(i, (p, net))| (i, if *net { net_golden(p) } else { data_golden(p) }))
                .collect::<Vec<_>>()
        };
        let h = s.spawn(move || run(b));
        let mut all = run(a);
        all.extend(h.join().unwrap());
        all.sort_by_key(|(i, _)| *i);
        all.into_iter().map(|(_, r)| r).collect()
    });
    let mut table = expected();
    if std::env::var_os("LUFT_GOLDEN_WRITE").is_some() {
        for row in rows {
            table.insert(row.path.clone(), row);
        }
        let mut text = String::from(
            "# Golden digests (tests/tests/golden.rs): kind, path, games (nets: bench positions), \
             positions, kept by the training filter, FNV-1a 64 digest.\n",
        );
        for row in table.values() {
            text.push_str(&row.line());
            text.push('\n');
        }
        std::fs::write(root().join(TABLE), text).unwrap();
        return;
    }
    let mut wrong = Vec::new();
    for row in rows {
        match table.get(&row.path) {
            Some(want) if *want == row => {}
            Some(want) => wrong.push(format!(
                "{}\n  want {}\n  got  {}",
                row.path,
                want.line(),
                row.line()
            )),
            None => wrong.push(format!(
                "{} has no golden row (add it: see the module notes)",
                row.path
            )),
        }
    }
    assert!(wrong.is_empty(), "golden digests differ:\n{}", wrong.join("\n"));
}

/// Every net and the small data files decode to their golden digests.
#[test]
fn golden_small() {
    check(small_files());
}

/// Every pack of the corpus decodes to its golden digest, and every pack has a row.
#[test]
fn golden_corpus() {
    check(
        files("data/selfplay", ".pack")
            .into_iter()
            .map(|p| (p, false))
            .collect(),
    );
}

/// The digest can fail: one changed character changes it, and other files give other
/// digests.
#[test]
fn golden_can_fail() {
    let row = data_golden("testdata/selfplay/gen3-b-v1.bin");
    let want = expected().remove("testdata/selfplay/gen3-b-v1.bin").unwrap();
    assert_eq!(row, want);
    let mut d = Digest(FNV_OFFSET);
    d.add("startpos 0 1");
    let mut e = Digest(FNV_OFFSET);
    e.add("startpos 0 2");
    assert_ne!(d.0, e.0);
    assert_ne!(
        net_golden("nets/gen1-32.nnue").digest,
        net_golden("nets/gen2-32.nnue").digest
    );
    assert_ne!(
        row.digest,
        data_golden("datagen/tests/data/format1-gen3.bin").digest
    );
}

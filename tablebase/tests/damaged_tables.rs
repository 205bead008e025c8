//! Damaged Syzygy tables never crash the prober. The committed KQvK and KPvK tables
//! (`data/syzygy`, copies of the published 3-4 piece set, 17,600 bytes) are copied into a
//! temporary directory, one byte of one file is changed (XOR with 0xff, and with a single
//! bit), and the set is opened and probed in-process for WDL, DTZ and root moves on every
//! KQvK and KPvK position of `data/syzygy-reference.txt`. Nothing may panic or crash, a
//! refused table is refused with a reason, and every answer is either the undamaged one or
//! "unknown" (`None`).
//!
//! The quick test damages the first 64 bytes of each file and every 97th byte after them;
//! the ignored test damages every byte of all four files (about 35,000 damaged sets:
//! `cargo test -p tablebase --test damaged_tables -- --ignored`, 2-3 minutes on one core of
//! the 2026 development machine).

#![allow(clippy::unwrap_used)] // tests may unwrap: a panic is a failure

use movegen::Board;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use tablebase::{RootProbe, Tablebases, Wdl};

/// The committed tables, the one copy every crate's tests use.
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");
const FILES: [&str; 4] = ["KQvK.rtbw", "KQvK.rtbz", "KPvK.rtbw", "KPvK.rtbz"];
const REFERENCE: &str = include_str!("data/syzygy-reference.txt");

/// The process holds one set of tables at a time: the tests take turns.
static ONE_SET: Mutex<()> = Mutex::new(());

fn one_set() -> MutexGuard<'static, ()> {
    ONE_SET.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The reference positions of KQvK and KPvK (either colour with the piece), with
/// python-chess's WDL and DTZ.
fn positions() -> Vec<(Board, i32, i32)> {
    REFERENCE
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(';').collect();
            let board = Board::from_fen(fields[0]).unwrap();
            let pieces = board.occupied().len();
            let kind = board.pieces(movegen::PieceType::Queen).len() + board.pieces(movegen::PieceType::Pawn).len();
            (pieces == 3 && kind == 1).then(|| (board, fields[1].parse().unwrap(), fields[2].parse().unwrap()))
        })
        .collect()
}

/// What the tables answer for one position.
#[derive(Clone, Debug, PartialEq)]
struct Answer {
    wdl: Option<Wdl>,
    dtz: Option<i32>,
    root: Option<RootProbe>,
}

/// A temporary directory holding the four tables, one of them possibly damaged.
struct Scratch {
    dir: PathBuf,
    originals: Vec<Vec<u8>>,
}

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("luft-damaged-tb-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let originals: Vec<Vec<u8>> = FILES
            .iter()
            .map(|f| std::fs::read(Path::new(FIXTURES).join(f)).unwrap())
            .collect();
        for (file, bytes) in FILES.iter().zip(&originals) {
            std::fs::write(dir.join(file), bytes).unwrap();
        }
        Scratch { dir, originals }
    }

    /// Writes file `file` with byte `offset` XORed with `mask` (0: undamaged).
    fn damage(&self, file: usize, offset: usize, mask: u8) {
        let mut bytes = self.originals[file].clone();
        bytes[offset] ^= mask;
        std::fs::write(self.dir.join(FILES[file]), bytes).unwrap();
    }

    fn path(&self) -> String {
        self.dir.to_string_lossy().into_owned()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Opens the tables of `dir` and probes every position; `None` when the set is refused.
fn probe_all(dir: &str, boards: &[Board]) -> Option<Vec<Answer>> {
    let tables = Tablebases::open(dir).ok()?;
    Some(
        boards
            .iter()
            .map(|board| Answer {
                wdl: tables.probe_wdl(board),
                dtz: tables.probe_dtz(board),
                root: tables.probe_root(board),
            })
            .collect(),
    )
}

/// How the answers of the damaged sets compared with the undamaged ones.
#[derive(Default, Debug)]
struct Tally {
    sets: usize,
    refused_sets: usize,
    correct: usize,
    unknown: usize,
    /// Damaged sets that panicked, and answers that were neither correct nor unknown.
    failures: Vec<String>,
}

/// Damages each file at `offsets(file length)` with each of two masks and probes.
fn sweep(tag: &str, offsets: impl Fn(usize) -> Vec<usize>) -> Tally {
    let _one = one_set();
    let scratch = Scratch::new(tag);
    let cases = positions();
    let boards: Vec<Board> = cases.iter().map(|c| c.0).collect();
    let undamaged = probe_all(&scratch.path(), &boards).expect("the undamaged tables load");
    // The undamaged fixtures agree with python-chess (DTZ where the probe can answer: KPvK
    // positions whose best line promotes need the KQvK..KNvK tables, only KQvK is here).
    for ((board, wdl, dtz), answer) in cases.iter().zip(&undamaged) {
        assert_eq!(answer.wdl.map(Wdl::value), Some(*wdl), "{board}");
        assert!(answer.dtz.is_none_or(|d| d == *dtz), "{board}: {answer:?} against {dtz}");
    }
    assert!(undamaged.iter().filter(|a| a.dtz.is_some() && a.root.is_some()).count() > cases.len() / 2);

    let mut tally = Tally::default();
    for file in 0..FILES.len() {
        let len = scratch.originals[file].len();
        for offset in offsets(len) {
            for mask in [0xff, 1 << (offset % 8)] {
                scratch.damage(file, offset, mask);
                tally.sets += 1;
                let what = format!("{} byte {offset} ^ {mask:#04x}", FILES[file]);
                match std::panic::catch_unwind(|| probe_all(&scratch.path(), &boards)) {
                    Err(_) => tally.failures.push(format!("{what}: panicked")),
                    Ok(None) => tally.refused_sets += 1,
                    Ok(Some(answers)) => {
                        for ((answer, good), board) in answers.iter().zip(&undamaged).zip(&boards) {
                            for (same, known) in [
                                (answer.wdl == good.wdl, answer.wdl.is_some()),
                                (answer.dtz == good.dtz, answer.dtz.is_some()),
                                (answer.root == good.root, answer.root.is_some()),
                            ] {
                                if same {
                                    tally.correct += 1;
                                } else if !known {
                                    tally.unknown += 1;
                                } else {
                                    tally.failures.push(format!("{what}: {board}: {answer:?}, undamaged {good:?}"));
                                }
                            }
                        }
                    }
                }
            }
        }
        scratch.damage(file, 0, 0);
    }
    eprintln!(
        "{} damaged sets ({} refused), answers: {} correct, {} unknown, {} failures",
        tally.sets,
        tally.refused_sets,
        tally.correct,
        tally.unknown,
        tally.failures.len()
    );
    tally
}

fn assert_clean(tally: &Tally) {
    assert!(
        tally.failures.is_empty(),
        "{} failures, the first:\n{}",
        tally.failures.len(),
        tally.failures.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn a_damaged_byte_never_crashes_a_probe() {
    let tally = sweep("sample", |len| (0..len.min(64)).chain((64..len).step_by(97)).collect());
    assert!(tally.sets > 400, "{tally:?}");
    assert_clean(&tally);
}

/// Every byte of the four files, each with two masks (35,200 damaged sets).
#[test]
#[ignore = "every byte of the four tables: minutes; run with --ignored"]
fn every_damaged_byte_never_crashes_a_probe() {
    let tally = sweep("every", |len| (0..len).collect());
    assert_eq!(tally.sets, 2 * 17_600);
    assert_clean(&tally);
}

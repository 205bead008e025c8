//! Damaged Syzygy tables never crash the prober. The committed KQvK and KPvK tables
//! (`data/syzygy`, copies of the published 3-4 piece set, 17,600 bytes) are copied into a
//! temporary directory, one byte of one file is changed (XOR with 0xff, and with a single
//! bit), and the set is opened and probed in-process for WDL, DTZ and root moves on 40
//! KQvK and KPvK positions of `data/syzygy-reference.txt` (every 6th). Nothing may panic;
//! a table refused at load is the damaged file (the others stay loaded); every answer is
//! the undamaged one, "unknown" (`None`), or at least well formed (a DTZ whose sign is the
//! WDL's, a root probe that ranks exactly the legal moves). Syzygy files carry no checksum
//! the prober checks, so a changed byte that still reads as a valid table can change an
//! answer: the tests count those and print the counts.
//!
//! The quick test damages the first 64 bytes of each file (both masks) and every 97th byte
//! after them (XOR 0xff), 693 damaged sets in about 7 seconds. The ignored test damages every
//! byte of all four files with both masks, 35,200 sets:
//! `cargo test -p tablebase --test damaged_tables -- --ignored`, 4 minutes of one core (8
//! minutes on the loaded 2-core development machine, 2026-12-06). That run: 4,922 sets with
//! the damaged file refused at load, 5,593 with an unknown answer, 10,939 with a wrong one
//! (mostly damage inside the compressed data); of 4,224,000 answers 93.2% correct, 5.8%
//! unknown, 1.0% wrong, none malformed, no panic.

#![allow(clippy::unwrap_used)] // tests may unwrap: a panic is a failure

use movegen::Board;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use tablebase::{RootProbe, TablebaseError, Tablebases, Wdl};

/// The committed tables, the one copy every crate's tests use.
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");
const FILES: [&str; 4] = ["KQvK.rtbw", "KQvK.rtbz", "KPvK.rtbw", "KPvK.rtbz"];
const REFERENCE: &str = include_str!("data/syzygy-reference.txt");

/// The process holds one set of tables at a time: the tests take turns.
static ONE_SET: Mutex<()> = Mutex::new(());

fn one_set() -> MutexGuard<'static, ()> {
    ONE_SET.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Every 6th reference position of KQvK and KPvK (either colour with the piece), with
/// python-chess's WDL and DTZ.
fn positions() -> Vec<(Board, i32, i32)> {
    REFERENCE
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(';').collect();
            let board = Board::from_fen(fields[0]).unwrap();
            let queen_or_pawn =
                board.pieces(movegen::PieceType::Queen).len() + board.pieces(movegen::PieceType::Pawn).len();
            (board.occupied().len() == 3 && queen_or_pawn == 1)
                .then(|| (board, fields[1].parse().unwrap(), fields[2].parse().unwrap()))
        })
        .step_by(6)
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
        let dir = testing::temp(&format!("damaged-tb-{tag}"));
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

/// Opens the tables of `dir` and probes every position: the files refused at load and
/// the answers, or the error of a path whose tables were all refused.
fn probe_all(dir: &str, boards: &[Board]) -> Result<(Vec<PathBuf>, Vec<Answer>), TablebaseError> {
    let tables = Tablebases::open(dir)?;
    let refused = tables.refused().iter().map(|r| r.path.clone()).collect();
    let answers = boards
        .iter()
        .map(|board| Answer {
            wdl: tables.probe_wdl(board),
            dtz: tables.probe_dtz(board),
            root: tables.probe_root(board),
        })
        .collect();
    Ok((refused, answers))
}

/// Why an answer that is neither the undamaged one nor unknown is not even well formed.
fn malformed(board: &Board, answer: &Answer) -> Option<String> {
    if let (Some(wdl), Some(dtz)) = (answer.wdl, answer.dtz) {
        if dtz.signum() != wdl.value().signum() && board.has_legal_move() {
            return Some(format!("DTZ {dtz} against WDL {wdl:?}"));
        }
    }
    if let Some(root) = &answer.root {
        let mut ranked: Vec<_> = root.moves.iter().map(|m| m.mv).collect();
        let mut legal: Vec<_> = board.legal_moves().into_iter().copied().collect();
        ranked.sort_by_key(|m| format!("{m:?}"));
        legal.sort_by_key(|m| format!("{m:?}"));
        if ranked != legal {
            return Some("a root probe that does not rank exactly the legal moves".into());
        }
    }
    None
}

/// How the damaged sets fared.
#[derive(Default, Debug)]
struct Tally {
    sets: usize,
    /// Sets with a file refused at load, and sets whose every WDL table was refused.
    with_refusal: usize,
    all_refused: usize,
    /// Sets with an unknown answer, and sets with a wrong (well-formed) answer.
    with_unknown: usize,
    with_wrong: usize,
    answers: [usize; 3], // correct, unknown, wrong
    /// Panics, malformed answers, refusals of an undamaged file, broken promises.
    failures: Vec<String>,
}

/// Damages each file at each `(offset, mask)` of `damages(file length)` and probes.
fn sweep(tag: &str, damages: impl Fn(usize) -> Vec<(usize, u8)>) -> Tally {
    let _one = one_set();
    let scratch = Scratch::new(tag);
    let cases = positions();
    let boards: Vec<Board> = cases.iter().map(|c| c.0).collect();
    let (refused, undamaged) = probe_all(&scratch.path(), &boards).expect("the undamaged tables load");
    assert!(refused.is_empty(), "{refused:?}");
    // The undamaged fixtures agree with python-chess (DTZ where the probe can answer: KPvK
    // positions whose best line promotes need the KQvK..KNvK tables, only KQvK is here).
    for ((board, wdl, dtz), answer) in cases.iter().zip(&undamaged) {
        assert_eq!(answer.wdl.map(Wdl::value), Some(*wdl), "{board}");
        assert!(
            answer.dtz.is_none_or(|d| d == *dtz),
            "{board}: {answer:?} against {dtz}"
        );
    }
    assert!(cases.len() >= 40 && undamaged.iter().filter(|a| a.root.is_some()).count() > cases.len() / 2);

    let mut tally = Tally::default();
    for (file, name) in FILES.iter().enumerate() {
        let len = scratch.originals[file].len();
        for (offset, mask) in damages(len) {
            scratch.damage(file, offset, mask);
            tally.sets += 1;
            let what = format!("{name} byte {offset} ^ {mask:#04x}");
            let (refused, answers) = match std::panic::catch_unwind(|| probe_all(&scratch.path(), &boards)) {
                Err(_) => {
                    tally.failures.push(format!("{what}: panicked"));
                    continue;
                }
                Ok(Err(TablebaseError::Refused(files))) => {
                    // Only the two WDL files are refused here: the damaged one and KPvK's
                    // or KQvK's own, never both.
                    tally
                        .failures
                        .push(format!("{what}: every WDL table refused: {files:?}"));
                    tally.all_refused += 1;
                    continue;
                }
                Ok(Err(e)) => {
                    tally.failures.push(format!("{what}: {e}"));
                    continue;
                }
                Ok(Ok(found)) => found,
            };
            if !refused.is_empty() {
                tally.with_refusal += 1;
            }
            if refused.iter().any(|p| !p.ends_with(name)) {
                tally
                    .failures
                    .push(format!("{what}: an undamaged file refused: {refused:?}"));
            }
            // The magic number is checked; the last 16 bytes are not read.
            if offset < 4 && refused.is_empty() {
                tally
                    .failures
                    .push(format!("{what}: a wrong magic number not refused"));
            }
            let trailer = offset >= len - 16;
            let (mut unknown, mut wrong) = (false, false);
            for ((answer, good), board) in answers.iter().zip(&undamaged).zip(&boards) {
                for (same, known) in [
                    (answer.wdl == good.wdl, answer.wdl.is_some()),
                    (answer.dtz == good.dtz, answer.dtz.is_some()),
                    (answer.root == good.root, answer.root.is_some()),
                ] {
                    let outcome = usize::from(!same) + usize::from(!same && known);
                    tally.answers[outcome] += 1;
                    unknown |= outcome == 1;
                    wrong |= outcome == 2;
                }
                if let Some(why) = malformed(board, answer) {
                    tally.failures.push(format!("{what}: {board}: {why}: {answer:?}"));
                }
                if trailer && answer != good {
                    tally
                        .failures
                        .push(format!("{what}: {board}: the unread trailer changed {answer:?}"));
                }
            }
            tally.with_unknown += usize::from(unknown);
            tally.with_wrong += usize::from(wrong);
        }
        scratch.damage(file, 0, 0);
    }
    eprintln!(
        "{} damaged sets: {} with a file refused at load, {} with an unknown answer, {} with a wrong \
         answer; answers {} correct, {} unknown, {} wrong",
        tally.sets,
        tally.with_refusal,
        tally.with_unknown,
        tally.with_wrong,
        tally.answers[0],
        tally.answers[1],
        tally.answers[2]
    );
    tally
}

fn assert_clean(tally: &Tally) {
    assert!(
        tally.failures.is_empty(),
        "{} failures, the first:\n{}",
        tally.failures.len(),
        tally
            .failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn a_damaged_byte_never_crashes_a_probe() {
    let tally = sweep("sample", |len| {
        let header = (0..len.min(64)).flat_map(|offset| [(offset, 0xff), (offset, 1 << (offset % 8))]);
        header
            .chain((64..len).step_by(97).map(|offset| (offset, 0xff)))
            .collect()
    });
    assert!(tally.sets > 650, "{tally:?}");
    assert_clean(&tally);
    // Damage the checks at load catch is refused there.
    assert!(tally.with_refusal > tally.sets / 4, "{tally:?}");
}

/// Every byte of the four files, each with two masks (35,200 damaged sets, 4 minutes of
/// one core).
#[test]
#[ignore = "every byte of the four tables: minutes; run with --ignored"]
fn every_damaged_byte_never_crashes_a_probe() {
    let tally = sweep("every", |len| {
        (0..len)
            .flat_map(|offset| [(offset, 0xff), (offset, 1 << (offset % 8))])
            .collect()
    });
    assert_eq!(tally.sets, 2 * 17_600);
    assert_clean(&tally);
}

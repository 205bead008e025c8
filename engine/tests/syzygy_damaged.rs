//! A damaged Syzygy table never crashes the engine: with `SyzygyPath` naming a copy of the
//! committed KQvK and KPvK tables (`tablebase/tests/data/syzygy`) in which one byte of a
//! file is changed, `position fen 8/8/8/8/8/3k4/8/3K3Q w - - 0 1` and `go depth 6` answer a
//! legal `bestmove`, driven in-process through `UciEngine` as a GUI drives it (in a process
//! of its own: the tables are one set per process). A table refused at load is named in an
//! `info string warning`, and the other tables still load; a table in which a probe meets
//! damage the load could not see is named in a warning before `bestmove`.

#![allow(clippy::unwrap_used)] // tests may unwrap: a panic is a failure

use engine::uci::UciEngine;
use movegen::Board;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tablebase/tests/data/syzygy");
const FILES: [&str; 4] = ["KQvK.rtbw", "KQvK.rtbz", "KPvK.rtbw", "KPvK.rtbz"];
const FEN: &str = "8/8/8/8/8/3k4/8/3K3Q w - - 0 1";

#[test]
fn a_damaged_table_still_gives_a_legal_bestmove() {
    let dir = testing::temp("damaged-tb");
    let originals: Vec<Vec<u8>> = FILES
        .iter()
        .map(|f| std::fs::read(Path::new(FIXTURES).join(f)).unwrap())
        .collect();
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = lines.clone();
    let mut uci = UciEngine::new(Arc::new(move |l: &str| sink.lock().unwrap().push(l.to_string())));
    let path = dir.to_string_lossy().into_owned();
    let board = Board::from_fen(FEN).unwrap();

    // A wrong magic number; offset 39 of KQvK.rtbz (in its Huffman symbol table: with 0xff
    // symbol 1 names symbol 3,973 of 209, and pyrrhic-rs 0.2.0 wrote 3,764 bytes past the
    // end of a heap buffer) with several masks; bytes of value headers, code tables, data.
    let damages: [(usize, usize, u8); 14] = [
        (1, 0, 0xff),
        (1, 39, 0xff),
        (1, 39, 0x01),
        (1, 39, 0x10),
        (1, 39, 0x80),
        (1, 20, 0xff),
        (1, 30, 0x04),
        (1, 60, 0xff),
        (1, 4000, 0xff),
        (0, 20, 0xff),
        (0, 200, 0x08),
        (0, 112, 0xff),
        (2, 30, 0xff),
        (3, 25, 0xff),
    ];
    for (file, offset, mask) in damages {
        for (i, name) in FILES.iter().enumerate() {
            let mut bytes = originals[i].clone();
            if i == file {
                bytes[offset] ^= mask;
            }
            std::fs::write(dir.join(name), bytes).unwrap();
        }
        let what = format!("{} byte {offset} ^ {mask:#04x}", FILES[file]);
        // Off first, so that the damaged files are loaded afresh.
        uci.handle_line("setoption name SyzygyPath value <empty>");
        lines.lock().unwrap().clear();
        uci.handle_line(&format!("setoption name SyzygyPath value {path}"));
        let said = lines.lock().unwrap().clone();
        assert!(
            said[0].starts_with(&format!("info string SyzygyPath {path}: ")),
            "{what}: {said:?}"
        );
        if offset == 0 {
            // A wrong magic number: that table is refused, the three others load.
            assert!(
                said[0].ends_with(": 2 WDL and 1 DTZ tables, up to 3 pieces"),
                "{what}: {said:?}"
            );
            assert_eq!(
                said[1],
                format!(
                    "info string warning: SyzygyPath: {} refused: magic number 0xa50c6628, not \
                     0xa50c66d7; its ending is probed without it",
                    dir.join("KQvK.rtbz").display()
                )
            );
        }
        uci.handle_line(&format!("position fen {FEN}"));
        lines.lock().unwrap().clear();
        uci.handle_line("go depth 6");
        let deadline = Instant::now() + Duration::from_secs(60);
        let best = loop {
            if let Some(line) = lines.lock().unwrap().iter().find(|l| l.starts_with("bestmove")) {
                break line.clone();
            }
            assert!(Instant::now() < deadline, "{what}: no bestmove");
            std::thread::sleep(Duration::from_millis(5));
        };
        let mv = best.split_whitespace().nth(1).unwrap();
        assert!(
            board.parse_uci(mv).is_ok(),
            "{what}: {best} is not legal in {FEN}"
        );
        if (file, offset) == (0, 112) {
            // Byte 112 of KQvK.rtbw is in its data: the table passes the checks at load, and
            // a probe of this search meets the damage.
            let warning = format!(
                "info string warning: Syzygy table {} is damaged: its probes answer unknown, the search \
                 goes on without them",
                dir.join("KQvK.rtbw").display()
            );
            assert!(lines.lock().unwrap().contains(&warning), "{what}: no warning");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

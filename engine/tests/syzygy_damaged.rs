//! A damaged Syzygy table never crashes the engine: with `SyzygyPath` naming a copy of the
//! committed KQvK and KPvK tables (`tablebase/tests/data/syzygy`) in which one byte of a
//! file is changed, `position fen 8/8/8/8/8/3k4/8/3K3Q w - - 0 1` and `go depth 6` answer a
//! legal `bestmove`, driven in-process through `UciEngine` as a GUI drives it (in a process
//! of its own: the tables are one set per process).

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
    let dir = std::env::temp_dir().join(format!("luft-engine-damaged-tb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let originals: Vec<Vec<u8>> = FILES
        .iter()
        .map(|f| std::fs::read(Path::new(FIXTURES).join(f)).unwrap())
        .collect();
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = lines.clone();
    let mut uci = UciEngine::new(Arc::new(move |l: &str| sink.lock().unwrap().push(l.to_string())));
    let path = dir.to_string_lossy().into_owned();
    let board = Board::from_fen(FEN).unwrap();

    // The byte of the report (offset 39 of KQvK.rtbz) with several masks, and bytes of the
    // other files' headers, Huffman tables and data.
    let damages: [(usize, usize, u8); 12] = [
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
        uci.handle_line(&format!("setoption name SyzygyPath value {path}"));
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
        assert!(board.parse_uci(mv).is_ok(), "{what}: {best} is not legal in {FEN}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

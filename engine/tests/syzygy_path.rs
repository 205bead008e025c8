//! `SyzygyPath` as a GUI sets it, in a process of its own (the tables are one set per
//! process): a bad path is refused with `info string error` and changes nothing, a
//! directory with spaces in its name loads, several directories load together, `<empty>`
//! and an empty value turn the tables off. The tables come from
//! `tablebase::tables_for_tests`, the committed 3-4 piece set.

#![allow(clippy::unwrap_used)] // tests may unwrap: a panic is a failure

use engine::uci::UciEngine;
use std::sync::{Arc, Mutex};

#[test]
fn syzygy_path_loads_refuses_and_turns_off() {
    let shared = tablebase::tables_for_tests();
    let shared = shared.split(':').next().unwrap().to_string();
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = lines.clone();
    let mut uci = UciEngine::new(Arc::new(move |l: &str| sink.lock().unwrap().push(l.to_string())));
    let say = |uci: &mut UciEngine, line: &str| {
        lines.lock().unwrap().clear();
        uci.handle_line(line);
        if line.starts_with("go") {
            // Wait for the answer.
            while !lines.lock().unwrap().iter().any(|l| l.starts_with("bestmove")) {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
        let said = lines.lock().unwrap().clone();
        (said, uci.options().syzygy_path.clone())
    };

    // A directory with spaces in its name, holding the KRvK tables only.
    let spaced = testing::temp("syzygy-path").join("luft syzygy");
    std::fs::create_dir_all(&spaced).unwrap();
    for file in ["KRvK.rtbw", "KRvK.rtbz"] {
        std::fs::copy(format!("{shared}/{file}"), spaced.join(file)).unwrap();
    }
    let spaced = spaced.to_string_lossy().into_owned();
    let (said, path) = say(&mut uci, &format!("setoption name SyzygyPath value {spaced}"));
    assert_eq!(path, spaced);
    assert_eq!(
        said,
        [format!(
            "info string SyzygyPath {spaced}: 1 WDL and 1 DTZ tables, up to 3 pieces"
        )]
    );

    // A bad path: reported, nothing changes.
    let (said, path) = say(&mut uci, "setoption name SyzygyPath value /nonexistent/syzygy");
    assert_eq!(
        said,
        ["info string error: SyzygyPath: /nonexistent/syzygy is not a directory; tables unchanged"]
    );
    assert_eq!(path, spaced);

    // Another set replaces the first; several directories load together.
    let (said, path) = say(
        &mut uci,
        &format!("setoption name SyzygyPath value {shared}:{spaced}"),
    );
    assert_eq!(path, format!("{shared}:{spaced}"));
    assert!(
        said[0].ends_with(": 35 WDL and 35 DTZ tables, up to 4 pieces"),
        "{said:?}"
    );
    let (said, _) = say(&mut uci, "setoption name SyzygyPath value /tmp:/nonexistent");
    assert!(
        said[0].starts_with("info string error: SyzygyPath: /nonexistent is not"),
        "{said:?}"
    );

    // The search reports tbhits while tables are loaded.
    say(&mut uci, "position fen 8/8/8/4k3/8/8/8/4K2R w - - 0 1");
    let (said, _) = say(&mut uci, "go depth 3");
    assert!(said.iter().any(|l| l.contains(" tbhits ")), "{said:?}");

    // Off: `<empty>`, and an empty value.
    let (said, path) = say(&mut uci, "setoption name SyzygyPath value <empty>");
    assert_eq!(
        (said, path.as_str()),
        (
            vec!["info string SyzygyPath <empty>: no tablebases".to_string()],
            "<empty>"
        )
    );
    say(&mut uci, &format!("setoption name SyzygyPath value {shared}"));
    let (_, path) = say(&mut uci, "setoption name SyzygyPath value");
    assert_eq!(path, "<empty>");
    std::fs::remove_dir_all(&spaced).unwrap();
}

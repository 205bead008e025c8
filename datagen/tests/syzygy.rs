//! `datagen --syzygy DIR`: games end as soon as they reach a position the tables cover, with
//! the tables' result, and the file header (version 4) records the tables loaded (their WDL
//! table count and piece count), which `datagen stats` names. The tables come
//! from `tablebase::tables_for_tests`, the committed 3-4 piece set.

#![allow(clippy::unwrap_used)] // tests may unwrap: a panic is a failure

mod common;

use common::{datagen, temp_dir, text};
use movegen::{Board, Color, Game};
use records::record::{scan, syzygy_description, Header, Wdl};
use tablebase::Tablebases;

#[test]
fn games_end_with_the_tables_result_and_the_header_records_them() {
    let path = tablebase::tables_for_tests();
    let dir = temp_dir("tb");
    // Five- and six-piece endings that trade down into the tables.
    let book = dir.join("book.epd");
    std::fs::write(
        &book,
        "8/8/4k3/8/2r5/8/3RP3/4K3 w - -\n8/5k2/5p2/8/8/2P5/2K5/R6r w - -\n8/8/3k4/8/2n5/8/3NP3/4K3 b - -\n",
    )
    .unwrap();
    let out = dir.join("games");
    let status = datagen()
        .args([
            "--threads",
            "1",
            "--games",
            "6",
            "--nodes",
            "300",
            "--random-plies",
            "2",
            "--seed",
            "5",
        ])
        .arg("--book")
        .arg(&book)
        .arg("--out")
        .arg(&out)
        .args(["--syzygy", &path])
        .output()
        .unwrap();
    assert!(status.status.success(), "{}", text(&status.stderr));

    let tables = Tablebases::open(&path).unwrap();
    let covered = |b: &Board| b.halfmove_clock() == 0 && tables.covers(b);
    let mut by_tables = 0;
    let mut files = 0;
    for entry in std::fs::read_dir(&out).unwrap() {
        let file = entry.unwrap().path();
        if file.extension().and_then(|e| e.to_str()) != Some("bin") {
            continue;
        }
        files += 1;
        let s = scan(&std::fs::read(&file).unwrap());
        let Ok(Header::V4(h)) = &s.header else {
            panic!("{}: {:?}", file.display(), s.header)
        };
        // What was loaded, not where (`header.rs` checks that no folder is named).
        assert_eq!(
            (h.syzygy.clone(), h.syzygy_pieces),
            (syzygy_description(tables.wdl_count()), 4)
        );
        for g in &s.games {
            let mut game = Game::new(g.start);
            for (i, &(mv, _)) in g.moves.iter().enumerate() {
                game.play(mv).unwrap();
                let last = i + 1 == g.moves.len();
                if !last {
                    // No position before the end was one the tables cover.
                    assert!(!covered(game.board()), "{}", game.board().to_fen());
                }
            }
            let end = game.board();
            if game.outcome_with_claims().is_none() && covered(end) {
                by_tables += 1;
                let wdl = tables.probe_wdl(end).unwrap().outcome(true);
                let expected = match (wdl, end.side_to_move()) {
                    (tablebase::Wdl::Win, Color::White) | (tablebase::Wdl::Loss, Color::Black) => {
                        Wdl::WhiteWins
                    }
                    (tablebase::Wdl::Win, Color::Black) | (tablebase::Wdl::Loss, Color::White) => {
                        Wdl::BlackWins
                    }
                    _ => Wdl::Draw,
                };
                assert_eq!(g.result, expected, "{}", end.to_fen());
            }
        }
    }
    assert_eq!(files, 1);
    eprintln!("{by_tables} of 6 games ended by the tables");
    assert!(by_tables >= 3, "only {by_tables} of 6 games ended by the tables");
    // `datagen stats` names the tables among the settings.
    let stats = datagen().arg("stats").arg(&out).output().unwrap();
    let said = text(&stats.stdout);
    assert!(
        stats.status.success()
            && said.contains(&format!(
                "games end at the first position of at most 4 pieces with the Syzygy tables' result ({} WDL tables)",
                tables.wdl_count()
            )),
        "{said}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

//! `datagen import-pgn` end to end, on PGNs as arena writes them (`tests/data/pgn`), as
//! OpenBench's client uploads them (compact and verbose) and as fastchess writes them: the
//! data files verify, `stats` counts them, their games hold the PGN's moves from the first
//! scored move after the book with each score turned to White's centipawns, every writer's
//! PGN of the same games gives the same records, and scoreless plies never reach the
//! training filter's output (`convert`).

#![allow(clippy::unwrap_used)]

mod common;

use common::{run, temp_dir, text};
use records::record::{GameRecord, Wdl, NO_SCORE};
use records::source::{DataSource, SourceItem};
use std::path::{Path, PathBuf};

const MATE: i16 = 31_000;

fn pgn(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/pgn")
        .join(name)
}

/// The games of a data file, and its chunks' node counts.
fn games(path: &Path) -> (Vec<GameRecord>, Vec<Option<u64>>) {
    let mut source = DataSource::open(path).unwrap();
    assert!(source.header_error().is_none(), "{}", path.display());
    let (mut games, mut nodes) = (Vec::new(), Vec::new());
    while let Some(item) = source.next_item().unwrap() {
        match item {
            SourceItem::Chunk { chunk, .. } => {
                nodes.push(chunk.nodes);
                games.extend(chunk.games);
            }
            other => panic!("{}: {other:?}", path.display()),
        }
    }
    (games, nodes)
}

#[test]
fn pgns_of_arena_openbench_and_fastchess_become_data_files() {
    let dir = temp_dir("all");
    let out = dir.join("imported");
    let files = [
        "arena.pgn",
        "arena-frc.pgn",
        "openbench-compact.pgn",
        "openbench-verbose.pgn",
        "fastchess.pgn",
    ];
    let mut args: Vec<std::ffi::OsString> = vec!["import-pgn".into()];
    args.extend(files.iter().map(|f| pgn(f).into_os_string()));
    args.extend(["--out".into(), out.clone().into_os_string()]);
    let o = run(&args);
    let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.contains("fastchess.pgn: 3 games,")
            && stdout.contains("skipped 1 unfinished, 1 without scores, 1 unreadable"),
        "{stdout}"
    );
    assert!(
        stderr.contains("fastchess.pgn: game 4 (line 37): illegal move \"Ke3\""),
        "{stderr}"
    );
    assert!(stdout.contains("imported 17 games"), "{stdout}");

    // The files verify, and stats counts every game (Chess960 ones as such).
    let o = run(&["verify".as_ref(), out.as_os_str()]);
    assert!(o.status.success(), "{}{}", text(&o.stdout), text(&o.stderr));
    let o = run(&["stats".as_ref(), out.as_os_str()]);
    let stats = text(&o.stdout);
    assert!(o.status.success(), "{stats}{}", text(&o.stderr));
    assert!(stats.contains("games: 17\n"), "{stats}");
    assert!(
        stats.contains(
            "imported from arena-frc.pgn (the scores of its move comments), chess960 start positions"
        ),
        "{stats}"
    );

    // Every writer's PGN of the same games gives the same records.
    let (arena, arena_nodes) = games(&out.join("import-arena.bin"));
    let (compact, compact_nodes) = games(&out.join("import-openbench-compact.bin"));
    let (verbose, verbose_nodes) = games(&out.join("import-openbench-verbose.bin"));
    assert_eq!(arena.len(), 4);
    assert_eq!(compact, arena);
    assert_eq!(verbose, arena);
    assert_eq!(verbose_nodes, arena_nodes);
    assert!(
        arena_nodes.iter().all(|n| n.is_some_and(|n| n > 0)),
        "{arena_nodes:?}"
    );
    assert!(
        compact_nodes.iter().all(|n| n.is_none()),
        "no n= in compact comments"
    );

    // arena's first game: the book's four plies are the start, then White's d3 at +0.47.
    let first = &arena[0];
    assert_eq!(
        first.start.to_fen(),
        "rnbqkbnr/pp2pppp/3p4/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3"
    );
    assert_eq!((first.moves[0].1, first.moves[1].1), (47, 69), "White's view");
    assert_eq!(first.start_eval, 47);
    assert_eq!(first.result, Wdl::WhiteWins);
    assert_eq!(first.moves.len(), 58 - 4);

    // The hand-written ones: mates both ways, a Black-to-move start, a scoreless move.
    let (fc, _) = games(&out.join("import-fastchess.bin"));
    assert_eq!(fc.len(), 3);
    let scores = |g: &GameRecord| g.moves.iter().map(|m| m.1).collect::<Vec<_>>();
    assert_eq!(scores(&fc[0]), [30, 25, 40, MATE - 2, MATE - 1]);
    assert_eq!(scores(&fc[1]), [20, NO_SCORE, 15, 30, 28]);
    assert_eq!(
        (fc[0].result, fc[1].result, fc[2].result),
        (Wdl::WhiteWins, Wdl::BlackWins, Wdl::Draw)
    );
    assert_eq!(
        fc[2].start.to_fen(),
        "nrbbqknr/pppppppp/8/8/8/8/PPPPPPPP/NRBBQKNR w KQkq - 0 1",
        "Chess960 (X-FEN)"
    );
    // Both sides castled, king takes rook.
    let mut board = fc[2].start;
    let mut castlings = 0;
    for &(mv, _) in &fc[2].moves {
        castlings += usize::from(board.is_castling(mv));
        board.play(mv);
    }
    assert_eq!((fc[2].moves.len(), castlings), (6, 2));
    assert_eq!(board.king(movegen::Color::White).to_string(), "g1");
    let (frc, _) = games(&out.join("import-arena-frc.bin"));
    assert_eq!(frc.len(), 2);

    // The training filter's positions never hold a scoreless ply (convert keeps those only).
    let positions = dir.join("positions.txt");
    let o = run(&[
        "convert".as_ref(),
        "--to".as_ref(),
        "text".as_ref(),
        "--out".as_ref(),
        positions.as_os_str(),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let lines = std::fs::read_to_string(&positions).unwrap();
    assert!(lines.lines().count() > 50, "{lines}");
    assert!(!lines.contains(&format!("| {NO_SCORE} |")), "{lines}");
    // Text files of positions are no games: stats says so.
    let o = run(&["stats".as_ref(), positions.as_os_str()]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("holds text positions without their games"),
        "{}",
        text(&o.stderr)
    );

    // A new import of a PGN replaces its file; the same name twice in one run is refused.
    let o = run(&[
        "import-pgn".as_ref(),
        pgn("arena.pgn").as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(games(&out.join("import-arena.bin")).0, arena);
    let o = run(&[
        "import-pgn".as_ref(),
        pgn("arena.pgn").as_os_str(),
        pgn("arena.pgn").as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("two PGNs would be imported into"),
        "{}",
        text(&o.stderr)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_inputs_are_refused_with_a_reason() {
    let dir = temp_dir("bad");
    let out = dir.join("out");
    let o = run(&["import-pgn".as_ref(), "--out".as_ref(), out.as_os_str()]);
    assert!(!o.status.success());
    let missing = dir.join("missing.pgn");
    let o = run(&[
        "import-pgn".as_ref(),
        missing.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("cannot read"), "{}", text(&o.stderr));
    // A failed import into a directory it had to make leaves no directory (and no lock).
    assert!(!out.exists(), "a failed import left {}", out.display());
    let packed = dir.join("games.pgn.bz2");
    std::fs::write(&packed, [0x42, 0x5a, 0x68, 0x39, 0xff, 0xfe]).unwrap();
    let o = run(&[
        "import-pgn".as_ref(),
        packed.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("is not UTF-8 text (a compressed PGN?"),
        "{}",
        text(&o.stderr)
    );
    let plain = dir.join("plain.pgn");
    std::fs::write(
        &plain,
        "[Event \"x\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 1-0\n",
    )
    .unwrap();
    let o = run(&[
        "import-pgn".as_ref(),
        plain.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(1), "no game with scores: nothing imported");
    assert!(
        text(&o.stderr).contains("no game with scores"),
        "{}",
        text(&o.stderr)
    );
    assert!(!out.join("import-plain.bin").exists());
    assert!(!out.exists(), "an import of nothing left {}", out.display());
    // Its summary names no directory it did not make.
    assert_eq!(text(&o.stdout).trim_end(), "imported no games");
    // Into a directory that was there, the directory stays as it was found.
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "kept").unwrap();
    let o = run(&[
        "import-pgn".as_ref(),
        plain.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(out.join("notes.txt")).unwrap(), "kept");
    let o = run(&["import-pgn".as_ref(), plain.as_os_str()]);
    assert!(
        text(&o.stderr).contains("give --out DIR or --gen NAME"),
        "{}",
        text(&o.stderr)
    );
    std::fs::remove_dir_all(&dir).ok();
}

//! What a data file's header keeps of the files a run read: the net and the book by file
//! name and fingerprint, the Syzygy tables by what was loaded, never a folder of any of
//! them. So the same games played from two folders are the same bytes, a run resumed from
//! another folder with the same net, book and tables is the same run, and another net or
//! book (even under the same file name) is refused, naming the setting that differs. The
//! net is the committed `nets/gen1-32.nnue` (another run's `nets/gen10-128.nnue`), the
//! tables `tablebase::tables_for_tests`, the committed 3-4 piece set.

#![allow(clippy::unwrap_used)] // tests may unwrap: a panic is a failure

mod common;

use common::{datagen, temp_dir, text};
use records::record::{scan, syzygy_description, Header};
use std::path::{Path, PathBuf};
use std::process::Output;

/// Five- and six-piece endings that trade down into the tables: short games.
const BOOK: &str =
    "8/8/4k3/8/2r5/8/3RP3/4K3 w - -\n8/5k2/5p2/8/8/2P5/2K5/R6r w - -\n8/8/3k4/8/2n5/8/3NP3/4K3 b - -\n";

/// A committed net by its file name in `nets/`.
fn committed_net(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../nets").join(name)
}

/// The folders below a run's root where its inputs lie: the net in `some/dir/`, the book in
/// `books/`, the tables linked as `tb-folder`.
const FOLDERS: [&str; 4] = ["some", "dir", "books", "tb-folder"];

/// Lays a run's inputs out under `root`: `some/dir/x.nnue` (a copy of the committed net
/// `net`), `books/book.epd` (`book`) and `tb-folder`, a link to the committed tables, or
/// with `without` a folder of links to each of their files but those whose names start
/// with it.
fn lay_out(root: &Path, net: &str, book: &str, without: Option<&str>) {
    std::fs::create_dir_all(root.join("some/dir")).unwrap();
    std::fs::copy(committed_net(net), root.join("some/dir/x.nnue")).unwrap();
    std::fs::create_dir_all(root.join("books")).unwrap();
    std::fs::write(root.join("books/book.epd"), book).unwrap();
    let tables = PathBuf::from(tablebase::tables_for_tests());
    match without {
        None => std::os::unix::fs::symlink(&tables, root.join("tb-folder")).unwrap(),
        Some(left_out) => {
            std::fs::create_dir_all(root.join("tb-folder")).unwrap();
            for entry in std::fs::read_dir(&tables).unwrap() {
                let name = entry.unwrap().file_name();
                if !name.to_string_lossy().starts_with(left_out) {
                    std::os::unix::fs::symlink(tables.join(&name), root.join("tb-folder").join(&name))
                        .unwrap();
                }
            }
        }
    }
}

/// datagen on the inputs under `root` for `games` games (4 in a fresh folder), into
/// `root/out`: with paths relative to `root` run from there (`relative`), else with absolute
/// ones from the test's folder.
fn play(root: &Path, games: u64, relative: bool) -> Output {
    let at = |p: &str| {
        if relative {
            p.to_string()
        } else {
            root.join(p).display().to_string()
        }
    };
    let mut c = datagen();
    if relative {
        c.current_dir(root);
    }
    c.args([
        "--threads",
        "1",
        "--nodes",
        "200",
        "--random-plies",
        "2",
        "--seed",
        "5",
    ])
    .args(["--games", &games.to_string()])
    .args(["--net", &at("some/dir/x.nnue")])
    .args(["--book", &at("books/book.epd")])
    .args(["--syzygy", &at("tb-folder")])
    .args(["--out", &at("out")])
    .output()
    .unwrap()
}

#[test]
fn headers_name_no_folder_and_the_same_games_are_the_same_bytes_anywhere() {
    let base = temp_dir("folders");
    let (a, b) = (base.join("a"), base.join("elsewhere-b"));
    lay_out(&a, "gen1-32.nnue", BOOK, None);
    lay_out(&b, "gen1-32.nnue", BOOK, None);
    // One run with paths relative to its folder, the other with absolute ones.
    let out = play(&a, 4, true);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = play(&b, 4, false);
    assert!(out.status.success(), "{}", text(&out.stderr));

    let file = std::fs::read(a.join("out/games-0.bin")).unwrap();
    let s = scan(&file);
    assert!(s.is_clean() && s.games.len() == 4, "{:?}", s.report());
    let Ok(Header::V4(h)) = &s.header else {
        panic!("{:?}", s.header)
    };
    let tables = tablebase::Tablebases::open(&tablebase::tables_for_tests()).unwrap();
    assert_eq!(h.net_source, "x.nnue");
    assert_eq!(h.book, "book.epd");
    assert_eq!(
        (h.book_positions, h.book_fingerprint),
        (3, output::checksum::fnv1a(BOOK.as_bytes()))
    );
    assert_eq!(h.syzygy, syzygy_description(tables.wdl_count()));
    assert_eq!(h.syzygy, "35 WDL tables");
    assert_eq!(h.syzygy_pieces, 4);
    // No folder of the net, the book or the tables, by name or path, anywhere in the header.
    let header = String::from_utf8_lossy(&file[..s.header_len as usize]).into_owned();
    for folder in FOLDERS
        .iter()
        .map(|f| f.to_string())
        .chain([a.display().to_string(), tablebase::tables_for_tests()])
    {
        assert!(!header.contains(&folder), "{folder:?} in the header: {header:?}");
    }

    // The same games from another folder, read through other paths: the same bytes.
    let other = std::fs::read(b.join("out/games-0.bin")).unwrap();
    assert!(file == other, "the files of the same games differ");
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn a_run_resumes_from_another_folder_and_refuses_another_net_or_book() {
    let base = temp_dir("resume-elsewhere");
    let first = base.join("first");
    lay_out(&first, "gen1-32.nnue", BOOK, None);
    let out = play(&first, 2, true);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let written = std::fs::read(first.join("out/games-0.bin")).unwrap();

    // The same net, book and tables in another folder, the data file moved there: resumed.
    let moved = base.join("moved-here");
    lay_out(&moved, "gen1-32.nnue", BOOK, None);
    std::fs::create_dir_all(moved.join("out")).unwrap();
    std::fs::write(moved.join("out/games-0.bin"), &written).unwrap();
    let out = play(&moved, 4, false);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("resuming: 2 games"),
        "{}",
        text(&out.stderr)
    );
    let s = scan(&std::fs::read(moved.join("out/games-0.bin")).unwrap());
    assert!(s.is_clean() && s.games.len() == 4, "{:?}", s.report());

    // Another net under the same file name, another book, or tables of the same pieces
    // less one ending (34 WDL tables): other settings, said which.
    for (name, net, book, without, differs) in [
        (
            "other-net",
            "gen10-128.nnue",
            BOOK.to_string(),
            None,
            "net_fingerprint",
        ),
        (
            "other-book",
            "gen1-32.nnue",
            BOOK.replace("b - -", "w - -"),
            None,
            "book_fingerprint",
        ),
        (
            "other-tables",
            "gen1-32.nnue",
            BOOK.to_string(),
            Some("KRPvK."),
            "syzygy",
        ),
    ] {
        let root = base.join(name);
        lay_out(&root, net, &book, without);
        std::fs::create_dir_all(root.join("out")).unwrap();
        std::fs::write(root.join("out/games-0.bin"), &written).unwrap();
        let out = play(&root, 4, true);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.contains("was written with other settings") && err.contains(&format!("differ in {differs}")),
            "{name}: {err}"
        );
        assert_eq!(
            std::fs::read(root.join("out/games-0.bin")).unwrap(),
            written,
            "{name}"
        );
    }
    std::fs::remove_dir_all(&base).unwrap();
}

//! `datagen pack` and `datagen unpack` end to end, on slices of Luft's own self-play (the
//! data files of two generation-13 packs of the corpus, `data/selfplay`, unpacked into a
//! scratch directory): the round trip gives back the
//! same files byte for byte, `stats`, `verify` and `convert` agree on the data files, the
//! pack and the unpacked files, a pack takes at most 3 bytes a position, a flipped byte in
//! a pack costs at most one game, a damaged input is reported and the rest packed (exit 1
//! when games were lost, as unpack), a block cut out of a pack is named by every reader,
//! and an output that is one of the inputs is refused.

#![allow(clippy::unwrap_used)]

mod common;

use common::{games_of, run, temp_dir, text};
use records::pack::{PackItem, PackReader};
use records::record::{scan, DataReader, Item};
use std::path::Path;
use std::sync::Mutex;

/// Runs datagen and checks it succeeded; returns stdout.
fn ok(args: &[&Path]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// The header and the first `games` chunks of the data file packed in a pack of the corpus
/// (`data/selfplay/NAME`, in the repository), cut at a chunk's end: the pack is unpacked
/// (byte for byte the file it was made from) into a scratch directory once per test binary.
fn corpus_slice(name: &str, games: usize) -> Vec<u8> {
    static UNPACKED: Mutex<Vec<(String, Vec<u8>)>> = Mutex::new(Vec::new());
    let mut cache = UNPACKED.lock().unwrap();
    if !cache.iter().any(|(n, _)| n == name) {
        let pack = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../data/selfplay")
            .join(name);
        assert!(pack.is_file(), "{} is missing", pack.display());
        let out = temp_dir(&format!("unpacked-{name}"));
        std::fs::remove_dir_all(&out).unwrap();
        ok(&[Path::new("unpack"), &pack, Path::new("--out"), &out]);
        let files = records::record::data_files(&out).unwrap();
        assert_eq!(files.len(), 1, "{files:?}");
        cache.push((name.to_string(), std::fs::read(&files[0]).unwrap()));
    }
    let bytes = &cache.iter().find(|(n, _)| n == name).unwrap().1;
    let mut reader = DataReader::new(&bytes[..]).unwrap();
    let mut end = reader.header_len();
    for _ in 0..games {
        match reader.next_item().unwrap() {
            Some(Item::Chunk(c)) => end = c.offset + c.len,
            other => panic!("{other:?}"),
        }
    }
    bytes[..end as usize].to_vec()
}

/// `datagen convert --to text --all --out OUT INPUT`: every position of INPUT's games, read
/// back by line count.
fn convert_text(out: &Path, input: &Path) -> std::process::Output {
    run(&[
        Path::new("convert"),
        Path::new("--to"),
        Path::new("text"),
        Path::new("--all"),
        Path::new("--out"),
        out,
        input,
    ])
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// `datagen stats` output without the generation lines' paths (which name where the files
/// are, and so differ between the data files, the pack and the unpacked files).
fn stats_numbers(out: &str) -> String {
    out.lines()
        .map(|l| match l.split_once("  (") {
            Some((_, rest)) if !l.starts_with(' ') => format!("<generation>  ({rest}"),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Pack, verify, stats, unpack, convert: the same games everywhere; the unpacked files are
/// the inputs byte for byte; at most 3 bytes a position.
#[test]
fn pack_then_unpack_gives_back_the_same_files() {
    let (a, b) = (
        corpus_slice("gen13-classical-001.pack", 1500),
        corpus_slice("gen13-dfrc-001.pack", 500),
    );
    let dir = temp_dir("round-trip");
    let input = dir.join("store");
    let (file_a, file_b) = (
        input.join("gen13/gen13-a.bin"),
        input.join("dfrc/gen13-dfrc-a.bin"),
    );
    write(&file_a, &a);
    write(&file_b, &b);
    let pack = dir.join("store.pack");
    let said = ok(&[Path::new("pack"), &input, Path::new("--out"), &pack]);
    assert!(!dir.join("store.pack.partial").exists());
    // The figure it prints, and the same from the file.
    let per: f64 = said
        .split(" bytes per position")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{said}"));
    let positions: usize = [&a, &b]
        .iter()
        .flat_map(|f| scan(f).games)
        .map(|g| g.moves.len())
        .sum();
    let size = std::fs::metadata(&pack).unwrap().len() as f64;
    assert!((size / positions as f64 - per).abs() < 0.001, "{said}");
    assert!(per <= 3.0, "{per} bytes a position: {said}");
    assert!(
        said.contains("packed 2000 games") && said.contains("2 sources"),
        "{said}"
    );

    let verified = ok(&[Path::new("verify"), &pack]);
    assert!(
        verified.starts_with("ok ") && verified.contains("2000 games") && verified.contains("format 3"),
        "{verified}"
    );

    let out = dir.join("unpacked");
    let said = ok(&[Path::new("unpack"), &pack, Path::new("--out"), &out]);
    assert!(
        said.contains("unpacked 2000 games") && said.contains("2 files"),
        "{said}"
    );
    assert!(!dir.join("unpacked.partial").exists());
    assert_eq!(std::fs::read(out.join("store/gen13/gen13-a.bin")).unwrap(), a);
    assert_eq!(std::fs::read(out.join("store/dfrc/gen13-dfrc-a.bin")).unwrap(), b);

    // stats: the same numbers from the data files, the pack and the unpacked files.
    let before = ok(&[Path::new("stats"), &input]);
    let from_pack = ok(&[Path::new("stats"), &pack]);
    let after = ok(&[Path::new("stats"), &out]);
    assert_eq!(stats_numbers(&before), stats_numbers(&after));
    assert_eq!(stats_numbers(&before), stats_numbers(&from_pack));
    assert!(before.contains("games: 2000"), "{before}");
    assert!(
        from_pack.contains("store.pack:store/gen13  (1 file)"),
        "{from_pack}"
    );

    // convert: the same positions, in the same order.
    let convert = |from: &Path, to: &str| {
        let file = dir.join(to);
        ok(&[
            Path::new("convert"),
            Path::new("--to"),
            Path::new("text"),
            Path::new("--out"),
            &file,
            from,
        ]);
        std::fs::read(file).unwrap()
    };
    let (t1, t2) = (convert(&input, "before.txt"), convert(&out, "after.txt"));
    assert!(t1.len() > 100_000);
    assert_eq!(t1, t2);
    assert_eq!(t1, convert(&pack, "pack.txt"));

    // A pack is an input too: repacking the pack gives the same pack.
    let again = dir.join("again.pack");
    ok(&[Path::new("pack"), &pack, Path::new("--out"), &again]);
    assert_eq!(std::fs::read(&again).unwrap(), std::fs::read(&pack).unwrap());
    std::fs::remove_dir_all(&dir).ok();
}

/// One flipped byte in a pack, wherever it falls, costs at most one game: `verify` says BAD
/// (exit 1), `stats`, `unpack` and `pack` read every other game (`unpack` and `pack` exit 1
/// when they lost one), nothing panics.
#[test]
fn a_flipped_byte_in_a_pack_costs_at_most_one_game() {
    let slice = corpus_slice("gen13-classical-001.pack", 40);
    let dir = temp_dir("flip");
    let input = dir.join("gen/games-0.bin");
    write(&input, &slice);
    let pack = dir.join("gen.pack");
    ok(&[Path::new("pack"), &input, Path::new("--out"), &pack]);
    let bytes = std::fs::read(&pack).unwrap();
    // Where things are: the tables from byte 12, the block header, each game's frame.
    let mut reader = PackReader::new(&bytes[..]).unwrap();
    let mut frames = Vec::new();
    while let Some(item) = reader.next_item().unwrap() {
        if let PackItem::Chunk { chunk, .. } = item {
            frames.push((chunk.offset as usize, (chunk.offset + chunk.len) as usize));
        }
    }
    assert_eq!(frames.len(), 40);
    let block = bytes.windows(4).position(|w| w == b"LPBK").unwrap();
    let (first, middle, last) = (frames[0], frames[20], frames[39]);
    let offsets = [
        3,
        14,
        block - 5,
        block + 6,
        block + 13,
        first.0,
        (middle.0 + middle.1) / 2,
        middle.1 - 1,
        last.1 - 1,
    ];
    for at in offsets {
        let mut bad = bytes.clone();
        bad[at] ^= 0x20;
        let damaged = dir.join(format!("flip-{at}.pack"));
        std::fs::write(&damaged, &bad).unwrap();
        let verified = run(&[Path::new("verify"), &damaged]);
        assert_eq!(
            verified.status.code(),
            Some(1),
            "flip at {at}: {}",
            text(&verified.stdout)
        );
        assert!(text(&verified.stdout).starts_with("BAD"), "flip at {at}");
        let in_a_game = frames.iter().any(|&(s, e)| (s..e).contains(&at));
        let want = if in_a_game { 39 } else { 40 };
        let stats = ok(&[Path::new("stats"), &damaged]);
        assert!(
            stats.contains(&format!("games: {want}\n")),
            "flip at {at}: {stats}"
        );
        let out = dir.join(format!("out-{at}"));
        // A lost game makes unpack exit 1 (after writing the rest).
        let unpacked = run(&[Path::new("unpack"), &damaged, Path::new("--out"), &out]);
        assert_eq!(
            unpacked.status.code(),
            Some(if in_a_game { 1 } else { 0 }),
            "flip at {at}: {}",
            text(&unpacked.stderr)
        );
        assert_eq!(games_of(&out.join("gen/games-0.bin")), want, "flip at {at}");
        // Packing the damaged pack loses the same games and exits as unpack does.
        let repacked = dir.join(format!("repacked-{at}.pack"));
        let packed = run(&[Path::new("pack"), &damaged, Path::new("--out"), &repacked]);
        assert_eq!(
            packed.status.code(),
            unpacked.status.code(),
            "flip at {at}: {}",
            text(&packed.stderr)
        );
        if in_a_game {
            assert!(
                text(&packed.stderr).contains(&format!("1 game of {} lost to damage", damaged.display())),
                "flip at {at}: {}",
                text(&packed.stderr)
            );
        }
        let restats = ok(&[Path::new("stats"), &repacked]);
        assert!(
            restats.contains(&format!("games: {want}\n")),
            "flip at {at}: {restats}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Unpacking a damaged pack writes every game that reads but exits 1 when a game was lost,
/// saying how many (a script's `unpack && rm PACK` must not delete the only copy of what
/// could not be read); damage that costs no game (a table copy, a block header) is a
/// warning and exit 0. On a 12-game run of this build's own self-play.
#[test]
fn unpacking_a_damaged_pack_exits_non_zero_when_games_are_lost() {
    let dir = common::copy_of_base("unpack-loss");
    let pack = dir.join("base.pack");
    ok(&[
        Path::new("pack"),
        &dir.join("games-0.bin"),
        Path::new("--out"),
        &pack,
    ]);
    let bytes = std::fs::read(&pack).unwrap();
    let mut reader = PackReader::new(&bytes[..]).unwrap();
    let mut frames = Vec::new();
    while let Some(item) = reader.next_item().unwrap() {
        if let PackItem::Chunk { chunk, .. } = item {
            for _ in &chunk.games {
                frames.push((chunk.offset as usize, (chunk.offset + chunk.len) as usize));
            }
        }
    }
    let block = bytes.windows(4).position(|w| w == b"LPBK").unwrap();
    assert!(frames.len() == 12 && block > 20, "{} games", frames.len());
    let flipped = |at: usize| {
        let mut bad = bytes.clone();
        bad[at] ^= 0x20;
        bad
    };
    let (first, sixth, last) = (frames[0], frames[5], frames[11]);
    let cases: [(&str, Vec<u8>, usize); 6] = [
        ("a flip in the first game", flipped((first.0 + first.1) / 2), 1),
        ("a flip in the sixth game", flipped((sixth.0 + sixth.1) / 2), 1),
        ("a cut in the last game", bytes[..last.1 - 7].to_vec(), 1),
        ("a flip in a table copy", flipped(14), 0),
        ("a flip in the block's checksum", flipped(block + 13), 0),
        ("a flip in the block's magic", flipped(block + 1), 0),
    ];
    for (what, bad, lost) in cases {
        let damaged = dir.join("damaged.pack");
        std::fs::write(&damaged, &bad).unwrap();
        let out_dir = dir.join("out");
        std::fs::remove_dir_all(&out_dir).ok();
        let out = run(&[Path::new("unpack"), &damaged, Path::new("--out"), &out_dir]);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(
            out.status.code(),
            Some(if lost > 0 { 1 } else { 0 }),
            "{what}: {stdout}{stderr}"
        );
        let unpacked = out_dir.join(dir.file_name().unwrap()).join("games-0.bin");
        assert_eq!(games_of(&unpacked), 12 - lost, "{what}");
        // `convert` of the same pack exits as `unpack` does: 1 only when games are lost.
        let text_out = dir.join("damaged.txt");
        let converted = convert_text(&text_out, &damaged);
        assert_eq!(
            converted.status.code(),
            Some(if lost > 0 { 1 } else { 0 }),
            "{what}: {}",
            text(&converted.stderr)
        );
        assert_eq!(
            text(&converted.stderr).contains("are lost to damage"),
            lost > 0,
            "{what}: {}",
            text(&converted.stderr)
        );
        std::fs::remove_file(&text_out).unwrap();
        if lost > 0 {
            assert!(
                stderr.contains(&format!("{lost} game of {} lost", damaged.display())),
                "{what}: {stderr}"
            );
        } else {
            assert!(!stderr.contains(" lost"), "{what}: {stderr}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A damaged input is reported with its offset and its intact games are packed or converted
/// (exit 1: a game was lost); outputs that
/// are inputs, a data file to unpack and a full output directory are refused, and nothing is
/// left behind.
#[test]
fn damaged_inputs_are_reported_and_bad_outputs_refused() {
    let slice = corpus_slice("gen13-dfrc-001.pack", 10);
    let dir = temp_dir("refuse");
    let input = dir.join("gen/games-0.bin");
    let mut damaged = slice.clone();
    let third = scan(&slice).chunks[2];
    damaged[third.offset as usize + 60] ^= 1;
    write(&input, &damaged);
    let pack = dir.join("gen.pack");
    // A game lost: the pack of the rest is written, and pack exits 1 saying so.
    let out = run(&[Path::new("pack"), &input, Path::new("--out"), &pack]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(&format!(
            "datagen: error: at least 1 game of {} lost to damage; the games that read are packed into {}",
            input.display(),
            pack.display()
        )),
        "{}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stderr).contains(&format!("bad chunk at byte {}", third.offset)),
        "{}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains("packed 9 games"),
        "{}",
        text(&out.stdout)
    );
    assert!(
        text(&out.stdout).contains("1 problem in the inputs"),
        "{}",
        text(&out.stdout)
    );
    // `convert` of the same input: the positions that read are written, and it exits 1
    // naming the loss (a `convert && rm` must stop), as `pack` does.
    let converted = dir.join("gen.txt");
    let out = convert_text(&converted, &input);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(&format!(
            "datagen: error: games of {} are lost to damage; the games that read are converted into {}",
            input.display(),
            converted.display()
        )),
        "{}",
        text(&out.stderr)
    );
    let lines = std::fs::read_to_string(&converted).unwrap().lines().count();
    let whole = dir.join("whole.bin");
    write(&whole, &slice);
    let all = dir.join("whole.txt");
    let out = convert_text(&all, &whole);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let whole_lines = std::fs::read_to_string(&all).unwrap().lines().count();
    assert!(lines > 0 && lines < whole_lines, "{lines} of {whole_lines}");
    std::fs::remove_file(&whole).unwrap();
    std::fs::remove_file(&all).unwrap();
    std::fs::remove_file(&converted).unwrap();

    let refused = |args: &[&Path], why: &str| {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out.stderr).contains(why), "{args:?}: {}", text(&out.stderr));
    };
    refused(
        &[Path::new("pack"), &input, Path::new("--out"), &input],
        "is one of the inputs",
    );
    refused(
        &[Path::new("pack"), &dir.join("gen"), Path::new("--out"), &input],
        "is one of the inputs",
    );
    refused(
        &[Path::new("pack"), &input, Path::new("--out"), &dir],
        "is a directory",
    );
    refused(
        &[Path::new("pack"), &input, &input, Path::new("--out"), &pack],
        "given twice",
    );
    refused(
        &[Path::new("unpack"), &input, Path::new("--out"), &dir.join("x")],
        "is a data file, not a pack",
    );
    refused(
        &[Path::new("unpack"), &pack, Path::new("--out"), &dir],
        "is not empty",
    );
    refused(
        &[Path::new("unpack"), &pack, Path::new("--out"), &pack],
        "is not a directory",
    );
    assert_eq!(std::fs::read(&input).unwrap(), damaged, "the input is untouched");
    // Unpacking into an empty directory is fine.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    ok(&[Path::new("unpack"), &pack, Path::new("--out"), &empty]);
    assert_eq!(games_of(&empty.join("gen/games-0.bin")), 9);
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".partial"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Where each block of a whole pack starts, and the games it holds (by the layout in
/// `records::pack`: the prefix, two table copies, then the blocks, then in version 2 the
/// end record).
fn blocks_of(bytes: &[u8]) -> Vec<(usize, u32)> {
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let mut at = 12;
    for _ in 0..2 {
        assert_eq!(&bytes[at..at + 4], b"LPST");
        at += 8 + u32_at(at + 4) as usize + 8;
    }
    let mut blocks = Vec::new();
    while at < bytes.len() && &bytes[at..at + 4] != b"LPND" {
        assert_eq!(&bytes[at..at + 4], b"LPBK", "at byte {at}");
        blocks.push((at, u32_at(at + 8)));
        at += records::pack::BLOCK_HEADER + u32_at(at + 4) as usize;
    }
    blocks
}

/// A version 1 pack (no end record) with a whole block cut out (no damage to read, only a
/// gap in its source's sequence numbers): `unpack`, `pack` and `convert` name the missing
/// numbers in a warning and keep the rest as it stands (exit 0: nothing they read was
/// lost), and `verify` of what they wrote names the same gap (exit 1), as it does for the
/// pack.
#[test]
fn a_block_cut_out_of_a_pack_is_named_by_every_reader() {
    let dir = temp_dir("block-cut-out");
    let whole =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/selfplay/gen25-dfrc-005.pack"))
            .unwrap();
    let blocks = blocks_of(&whole);
    assert!(blocks.len() >= 3, "{blocks:?}");
    let ((start, _), (end, _)) = (blocks[1], blocks[2]);
    let total: u32 = blocks.iter().map(|b| b.1).sum();
    let first = blocks[0].1;
    let cut_out = blocks[1].1;
    let pack = dir.join("cut.pack");
    std::fs::write(&pack, [&whole[..start], &whole[end..]].concat()).unwrap();
    let gap = format!(
        "sequence numbers {first} to {} missing: {cut_out} games written are gone",
        first + cut_out - 1
    );
    let verify = |path: &Path| {
        let out = run(&[Path::new("verify"), path]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
        assert!(text(&out.stdout).contains(&gap), "{}", text(&out.stdout));
    };
    verify(&pack);
    let kept = (total - cut_out) as usize;
    // unpack: the files hold every game that is there, with the gap.
    let unpacked = dir.join("unpacked");
    let out = run(&[Path::new("unpack"), &pack, Path::new("--out"), &unpacked]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(&format!("warning: {}: ", pack.display()))
            && text(&out.stderr).contains(&gap),
        "{}",
        text(&out.stderr)
    );
    let files = records::record::data_files(&unpacked).unwrap();
    assert_eq!(files.len(), 1);
    assert_eq!(games_of(&files[0]), kept);
    verify(&files[0]);
    // pack, of the pack and of the unpacked file.
    for (input, name) in [(&pack, "repacked.pack"), (&files[0], "packed.pack")] {
        let out_pack = dir.join(name);
        let out = run(&[Path::new("pack"), input, Path::new("--out"), &out_pack]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains(&gap), "{}", text(&out.stderr));
        assert!(!text(&out.stdout).contains("problem"), "{}", text(&out.stdout));
        verify(&out_pack);
    }
    // convert says it too, and converts the games that are there.
    let out = convert_text(&dir.join("cut.txt"), &pack);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains(&gap), "{}", text(&out.stderr));
    std::fs::remove_dir_all(&dir).ok();
}

/// Ctrl-C during `unpack` (a FIFO as the pack: its first blocks sent, then held open)
/// removes the partial directory and exits 130 saying so; the same command then unpacks
/// (it refused while `DIR.partial` stood).
#[test]
fn an_interrupted_unpack_leaves_no_partial_directory() {
    let dir = temp_dir("unpack-interrupted");
    let whole =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/selfplay/gen25-dfrc-005.pack"))
            .unwrap();
    let blocks = blocks_of(&whole);
    let fifo = dir.join("fifo.pack");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let out_dir = dir.join("out");
    let partial = dir.join("out.partial");
    let child = common::datagen()
        .args([Path::new("unpack"), &fifo, Path::new("--out"), &out_dir])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The writer sends the prefix, the tables and two blocks, then holds the FIFO open.
    let (sent, held) = std::sync::mpsc::channel();
    let (path, first) = (fifo.clone(), whole[..blocks[2].0].to_vec());
    std::thread::spawn(move || {
        let mut writer = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        std::io::Write::write_all(&mut writer, &first).unwrap();
        sent.send(writer).unwrap();
    });
    let writer = held.recv_timeout(std::time::Duration::from_secs(60)).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !partial.join("s027-gen25-128-dfrc/games-0.bin").exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "no partial directory after 60 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    testing::interrupt(&child);
    let done = child.wait_with_output().unwrap();
    drop(writer);
    let stderr = text(&done.stderr);
    assert_eq!(done.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "datagen unpack: interrupted before its output was complete; removed its partial output {}",
            partial.display()
        )),
        "{stderr}"
    );
    assert!(!partial.exists() && !out_dir.exists());
    // The same command, given the whole pack, unpacks.
    let pack = dir.join("whole.pack");
    std::fs::write(&pack, &whole).unwrap();
    ok(&[Path::new("unpack"), &pack, Path::new("--out"), &out_dir]);
    std::fs::remove_dir_all(&dir).ok();
}

/// A version 2 pack knows what it holds (its end record): a block cut out is a loss of
/// exactly its games, and a cut between two blocks or before the end record is a cut;
/// `unpack` and `pack` exit 1 saying so, and `verify` names it.
#[test]
fn a_version_2_pack_cut_between_blocks_or_missing_one_is_a_loss() {
    let dir = temp_dir("v2-cuts");
    let v1 = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/selfplay/gen25-dfrc-005.pack");
    let v2 = dir.join("v2.pack");
    ok(&[Path::new("pack"), &v1, Path::new("--out"), &v2]);
    let whole = std::fs::read(&v2).unwrap();
    assert_eq!(&whole[8..12], &2u32.to_le_bytes());
    assert_eq!(&whole[whole.len() - 28..][..4], b"LPND");
    let blocks = blocks_of(&whole);
    let total: u32 = blocks.iter().map(|b| b.1).sum();
    let cut_out = blocks[1].1;
    let cases: [(&str, Vec<u8>, String, u64); 3] = [
        (
            "a block cut out",
            [&whole[..blocks[1].0], &whole[blocks[2].0..]].concat(),
            format!("{cut_out} games of"),
            u64::from(total - cut_out),
        ),
        (
            "cut between two blocks",
            whole[..blocks[3].0].to_vec(),
            "was cut short".to_string(),
            blocks[..3].iter().map(|b| u64::from(b.1)).sum(),
        ),
        (
            "cut before the end record",
            whole[..whole.len() - 28].to_vec(),
            "was cut short".to_string(),
            u64::from(total),
        ),
    ];
    for (what, bytes, says, kept) in cases {
        let pack = dir.join("damaged.pack");
        std::fs::write(&pack, &bytes).unwrap();
        let out = run(&[Path::new("verify"), &pack]);
        assert_eq!(out.status.code(), Some(1), "{what}: {}", text(&out.stdout));
        let out_dir = dir.join("out");
        std::fs::remove_dir_all(&out_dir).ok();
        let out = run(&[Path::new("unpack"), &pack, Path::new("--out"), &out_dir]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{what}: {err}");
        assert!(err.contains(&says), "{what}: {err}");
        let files = records::record::data_files(&out_dir).unwrap();
        assert_eq!(games_of(&files[0]) as u64, kept, "{what}");
        let repacked = dir.join("repacked.pack");
        let out = run(&[Path::new("pack"), &pack, Path::new("--out"), &repacked]);
        assert_eq!(out.status.code(), Some(1), "{what}: {}", text(&out.stderr));
    }
    std::fs::remove_dir_all(&dir).ok();
}

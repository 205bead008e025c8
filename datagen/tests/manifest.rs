//! The corpus manifest end to end: the repository's corpus (`data/selfplay/`) agrees with
//! its `manifest.toml`; `datagen manifest` lists a folder's packs (refusing a pack with the
//! same bytes as another, and a date not on the calendar), `datagen verify --manifest` finds
//! a pack missing, unlisted, changed or listed twice, and every reader of a folder
//! (`datagen stats`, the trainer, `learn`) takes the packs the manifest lists.

#![allow(clippy::unwrap_used)]

mod common;

use common::{base_run, run, temp_dir, text};
use records::manifest::{check, Disagreement, Manifest};
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/selfplay")
}

/// Every pack of the corpus is listed with its size and checksum, and none is unlisted.
#[test]
fn the_corpus_agrees_with_its_manifest() {
    let dir = corpus();
    let manifest = Manifest::read(&dir)
        .unwrap()
        .expect("data/selfplay/manifest.toml is missing");
    assert!(manifest.packs.len() >= 50, "{} packs", manifest.packs.len());
    let found = check(&dir, false).unwrap();
    assert!(
        found.is_empty(),
        "{}",
        found
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    );
    for p in &manifest.packs {
        assert!(
            p.file.starts_with("gen") && p.file.ends_with(".pack"),
            "{}: named by generation, openings and counter",
            p.file
        );
        assert!(!p.settings.is_empty(), "{}: no settings", p.file);
    }
    let (games, positions) = manifest.totals();
    assert!(
        games > 280_000 && positions > 34_000_000,
        "{games} games, {positions} positions"
    );
}

/// The same, each pack read whole: its games and positions are the manifest's (about 20 s
/// in release on one core; `cargo test --release -p datagen --test manifest -- --ignored`).
#[test]
#[ignore = "reads the whole corpus (85 MB)"]
fn the_corpus_reads_to_its_manifest() {
    let found = check(&corpus(), true).unwrap();
    assert!(
        found.is_empty(),
        "{}",
        found
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    );
}

fn pack_of_base(out: &Path) {
    let o = run(&[
        "pack".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
        base_run().join("games-0.bin").as_os_str(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

/// Packs `games` games of a run seeded `seed` (not the base run's 9) into `out`: other games
/// than [`pack_of_base`]'s, and than those of another seed.
fn pack_of_other_games(out: &Path, games: u64, seed: u64) {
    let stem = out.file_stem().unwrap().to_string_lossy().into_owned();
    let gen = temp_dir(&format!("other-{games}-{stem}"));
    let mut args = common::gen_args(&gen, 1, games);
    let at = args.iter().position(|a| a == "--seed").unwrap() + 1;
    args[at] = seed.to_string();
    let o = run(&args);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = run(&[
        "pack".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
        gen.join("games-0.bin").as_os_str(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

/// Packs the first `games` games of the base run into `out`: a pack of other bytes than
/// [`pack_of_base`]'s holding copies of its games.
fn pack_of_first_games(out: &Path, games: usize) {
    let bytes = std::fs::read(base_run().join("games-0.bin")).unwrap();
    let cut = records::record::scan(&bytes).chunks[games].offset as usize;
    let stem = out.file_stem().unwrap().to_string_lossy().into_owned();
    let file = temp_dir(&format!("first-{games}-{stem}")).join("games-0.bin");
    std::fs::write(&file, &bytes[..cut]).unwrap();
    let o = run(&[
        "pack".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
        file.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

#[test]
fn verify_finds_packs_missing_unlisted_or_changed() {
    let dir = temp_dir("manifest");
    pack_of_base(&dir.join("gen1-classical-001.pack"));
    pack_of_other_games(&dir.join("gen1-classical-002.pack"), 6, 10);
    let d = dir.display().to_string();
    let o = run(&["manifest", &d, "--date", "2026-12-06"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let m = Manifest::read(&dir).unwrap().unwrap();
    assert_eq!(m.packs.len(), 2);
    assert_eq!(m.packs[0].games, 12);
    assert_eq!(m.packs[0].date, "2026-12-06");
    assert_eq!(m.packs[0].settings[0].soft_nodes, 200);
    let o = run(&["verify", "--manifest", &d]);
    assert!(o.status.success(), "{}{}", text(&o.stdout), text(&o.stderr));

    // A folder is read as the packs its manifest lists: stats counts both.
    let o = run(&["stats", &d]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("18"), "{}", text(&o.stdout));

    // Running it again adds nothing and keeps what is listed.
    let o = run(&["manifest", &d, "--date", "2026-12-07"]);
    assert!(o.status.success());
    assert_eq!(Manifest::read(&dir).unwrap().unwrap(), m);

    // One byte changed: the checksum differs, and verify says so and exits 1.
    let p = dir.join("gen1-classical-001.pack");
    let mut bytes = std::fs::read(&p).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x40;
    std::fs::write(&p, &bytes).unwrap();
    let found = check(&dir, false).unwrap();
    assert!(
        matches!(&found[..], [Disagreement::Differs(f, "fnv1a64", ..)] if f == "gen1-classical-001.pack"),
        "{found:?}"
    );
    let o = run(&["verify", "--manifest", &d]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stdout));
    assert!(text(&o.stdout).contains("fnv1a64"), "{}", text(&o.stdout));
    // Read whole, the listed pack is named damaged (not "not listed": it is).
    let deep = check(&dir, true).unwrap();
    assert!(
        deep.iter().any(|d| matches!(d, Disagreement::Unreadable(f, why)
            if f == "gen1-classical-001.pack" && why.contains(": damaged: ") && !why.contains("listed"))),
        "{deep:?}"
    );

    // A pack gone and one not listed.
    std::fs::remove_file(dir.join("gen1-classical-002.pack")).unwrap();
    pack_of_base(&dir.join("gen1-classical-003.pack"));
    let found = check(&dir, false).unwrap();
    assert!(
        found.contains(&Disagreement::Missing("gen1-classical-002.pack".into())),
        "{found:?}"
    );
    assert!(
        found.contains(&Disagreement::Unlisted("gen1-classical-003.pack".into())),
        "{found:?}"
    );
    // A reader of the folder refuses it rather than train on part of it.
    let o = run(&["stats", &d]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("gen1-classical-002.pack"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn a_manifest_naming_a_path_outside_its_folder_is_refused() {
    let dir = temp_dir("manifest-escape");
    std::fs::write(
        dir.join("manifest.toml"),
        "[[pack]]\nfile = \"../x.pack\"\nbytes = 1\nfnv1a64 = \"0000000000000000\"\ngames = 1\npositions = 1\ndate = \"2026-12-06\"\n",
    )
    .unwrap();
    let o = run(&["stats", &dir.display().to_string()]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("not a plain file name"),
        "{}",
        text(&o.stderr)
    );
    let o = run(&["manifest", &dir.display().to_string(), "--date", "12/06/2026"]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("YYYY-MM-DD"), "{}", text(&o.stderr));
}

/// `--date` takes real calendar dates only: months 1 to 12, the days of the month, February
/// 29 in leap years; nothing is written for another.
#[test]
fn a_date_that_is_not_on_the_calendar_is_refused() {
    let dir = temp_dir("manifest-date");
    pack_of_base(&dir.join("gen1-classical-001.pack"));
    let d = dir.display().to_string();
    for (date, why) in [
        ("2026-13-45", "month 13 is not a month (1 to 12)"),
        ("2026-00-10", "month 0 is not a month (1 to 12)"),
        ("2026-04-31", "day 31 is not a day of 2026-04 (1 to 30)"),
        ("2026-02-29", "day 29 is not a day of 2026-02 (1 to 28)"),
        ("1900-02-29", "day 29 is not a day of 1900-02 (1 to 28)"),
        ("2026-12-00", "day 0 is not a day of 2026-12 (1 to 31)"),
    ] {
        let o = run(&["manifest", &d, "--date", date]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{date}: {err}");
        assert_eq!(err.trim_end(), format!("datagen: error: --date {date}: {why}"));
        assert!(
            Manifest::read(&dir).unwrap().is_none(),
            "{date}: a manifest was written"
        );
    }
    for date in ["2028-02-29", "2000-02-29", "2026-12-31"] {
        let o = run(&["manifest", &d, "--date", date]);
        assert!(o.status.success(), "{date}: {}", text(&o.stderr));
        // Listed at the first date taken; the others add nothing.
        let m = Manifest::read(&dir).unwrap().unwrap();
        assert_eq!(m.packs[0].date, "2028-02-29");
    }
}

#[test]
fn add_copies_a_pack_in_under_its_corpus_name() {
    let dir = temp_dir("manifest-add");
    let corpus = dir.join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    let pack = dir.join("s000-run-segment.pack");
    pack_of_base(&pack);
    let c = corpus.display().to_string();
    let p = pack.display().to_string();
    // The embedded net has no name of its own: refused, nothing copied.
    let o = run(&["manifest", &c, "--add", &p]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("genN"), "{}", text(&o.stderr));
    assert_eq!(std::fs::read_dir(&corpus).unwrap().count(), 0);
    // Named by the nets folder: genN of the embedded net, classical, 001 then 002.
    let nets = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../nets")
        .display()
        .to_string();
    let other = dir.join("s001-run-segment.pack");
    pack_of_other_games(&other, 6, 10);
    for (n, p) in [("001", &p), ("002", &other.display().to_string())] {
        let o = run(&[
            "manifest",
            &c,
            "--nets",
            &nets,
            "--date",
            "2026-12-06",
            "--add",
            p,
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let m = Manifest::read(&corpus).unwrap().unwrap();
        let last = &m.packs.last().unwrap().file;
        assert!(
            last.starts_with("gen") && last.ends_with(&format!("-classical-{n}.pack")),
            "{last}"
        );
        assert!(m.packs.last().unwrap().settings[0].net.ends_with("(embedded)"));
    }
    assert!(pack.is_file(), "the original stays");
    let o = run(&["verify", "--manifest", &c]);
    assert!(o.status.success(), "{}", text(&o.stdout));
}

/// A pack with the same bytes as one in the corpus is the same games: `--add` refuses it (and
/// one with the bytes of an `--add` before it) and so does listing a copy found in the
/// folder, naming both files, and `verify --manifest`
/// reports two listed alike.
#[test]
fn a_pack_with_the_same_bytes_as_another_is_refused_and_reported() {
    let dir = temp_dir("manifest-duplicate");
    let corpus = dir.join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    let first = corpus.join("gen1-classical-001.pack");
    pack_of_base(&first);
    let c = corpus.display().to_string();
    let o = run(&["manifest", &c, "--date", "2026-12-06"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let listed = Manifest::read(&corpus).unwrap().unwrap();
    assert_eq!(listed.packs.len(), 1);

    // --add of a pack with the same bytes elsewhere: refused, naming both, nothing copied.
    let same = dir.join("s000-run-segment.pack");
    std::fs::copy(&first, &same).unwrap();
    let o = run(&[
        "manifest".as_ref(),
        c.as_ref(),
        "--add".as_ref(),
        same.as_os_str(),
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "{}: the same bytes as {}",
            same.display(),
            first.display()
        )),
        "{err}"
    );
    assert_eq!(
        std::fs::read_dir(&corpus).unwrap().count(),
        2,
        "only the pack and its manifest"
    );
    assert_eq!(Manifest::read(&corpus).unwrap().unwrap(), listed);

    // Two --add of the same bytes: the second names the first as given (not the corpus file
    // it would have become, which does not exist), nothing copied.
    let (one, two) = (dir.join("s001-a.pack"), dir.join("s001-b.pack"));
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    pack_of_base(&one);
    std::fs::copy(&one, &two).unwrap();
    let nets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../nets");
    let o = run(&[
        "manifest".as_ref(),
        other.as_os_str(),
        "--nets".as_ref(),
        nets.as_os_str(),
        "--add".as_ref(),
        one.as_os_str(),
        two.as_os_str(),
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "{}: the same bytes as {}, given before it",
            two.display(),
            one.display()
        )),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(&other).unwrap().count(), 0);

    // A copy in the folder under another name: refused the same way, nothing listed.
    let copy = corpus.join("gen1-classical-002.pack");
    std::fs::copy(&first, &copy).unwrap();
    let o = run(&["manifest", &c, "--date", "2026-12-07"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "{}: the same bytes as {}",
            copy.display(),
            first.display()
        )),
        "{err}"
    );
    assert_eq!(Manifest::read(&corpus).unwrap().unwrap(), listed);

    // Listed twice by hand: verify --manifest reports it and exits 1.
    let mut twice = listed.clone();
    let mut entry = listed.packs[0].clone();
    entry.file = "gen1-classical-002.pack".into();
    twice.packs.push(entry);
    twice.write(&corpus).unwrap();
    assert_eq!(
        check(&corpus, false).unwrap(),
        vec![Disagreement::Duplicate(
            "gen1-classical-002.pack".into(),
            "gen1-classical-001.pack".into()
        )]
    );
    let o = run(&["verify", "--manifest", &c]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("BAD  gen1-classical-002.pack: the same bytes as gen1-classical-001.pack"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// No two packs of the corpus share more than a few game records (`game_key`): a copy of a
/// pack's games would share all of them; self-play repeats a record only by chance.
#[test]
#[ignore = "reads the whole corpus (85 MB)"]
fn no_two_packs_of_the_corpus_share_more_than_a_few_games() {
    let manifest = Manifest::read(&corpus()).unwrap().unwrap();
    let mut seen: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
    let mut shared: std::collections::BTreeMap<(usize, usize), u64> = Default::default();
    for (i, file) in manifest.files(&corpus()).iter().enumerate() {
        for key in records::manifest::game_keys(file).unwrap() {
            if let Some(first) = seen.insert(key, i) {
                *shared.entry((first, i)).or_default() += 1;
            }
        }
    }
    let names: Vec<String> = shared
        .iter()
        .map(|((a, b), n)| format!("{} and {}: {n}", manifest.packs[*a].file, manifest.packs[*b].file))
        .collect();
    let (games, _) = manifest.totals();
    let repeated: u64 = shared.values().sum();
    assert_eq!(seen.len() as u64 + repeated, games);
    assert!(
        shared
            .values()
            .all(|&n| n < records::manifest::SHARED_GAMES_LIMIT),
        "games in two places:\n{}",
        names.join("\n")
    );
}

/// A pack that shares game records with the corpus (made again from the same data files, a
/// subset here) is refused, naming the pack it copies, before anything is copied or listed;
/// a chance repeat passes (`records::manifest::shared_games_limit`: fewer than 10 shared, or
/// than half a small pack's games). Two packs being listed at once are held to the same rule.
#[test]
fn a_pack_sharing_games_with_the_corpus_is_refused() {
    let dir = temp_dir("manifest-shared");
    let corpus = dir.join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    pack_of_base(&corpus.join("gen1-classical-001.pack"));
    let c = corpus.display().to_string();
    let o = run(&["manifest", &c, "--date", "2026-12-06"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let listed = std::fs::read(corpus.join("manifest.toml")).unwrap();
    let subset = dir.join("s000-subset.pack");
    pack_of_first_games(&subset, 6);
    let nets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../nets");
    let add = |pack: &Path| {
        run(&[
            "manifest".as_ref(),
            corpus.as_os_str(),
            "--nets".as_ref(),
            nets.as_os_str(),
            "--add".as_ref(),
            pack.as_os_str(),
        ])
    };
    let o = add(&subset);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains(&format!(
            "datagen: error: {}: 6 of its games are in {} already (the same records",
            subset.display(),
            corpus.join("gen1-classical-001.pack").display()
        )),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(std::fs::read(corpus.join("manifest.toml")).unwrap(), listed);
    assert_eq!(std::fs::read_dir(&corpus).unwrap().count(), 2, "nothing copied");
    // Two new packs that copy one another: the second is refused, naming the first.
    let copy = dir.join("s001-copy.pack");
    pack_of_first_games(&copy, 5);
    let o = run(&[
        "manifest".as_ref(),
        corpus.as_os_str(),
        "--nets".as_ref(),
        nets.as_os_str(),
        "--add".as_ref(),
        copy.as_os_str(),
        subset.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains(&format!(
            "{}: 11 of its games are in the corpus or the packs added before it already (6 in {}, \
             the most in one)",
            subset.display(),
            corpus.join("gen1-classical-001.pack").display()
        )),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(std::fs::read(corpus.join("manifest.toml")).unwrap(), listed);
    let other = dir.join("s002-other.pack");
    pack_of_other_games(&other, 4, 10);
    // Copies spread over two listed packs count together: 2 of each in a pack of 6 games
    // (its limit 3) is refused, though neither pack alone reaches it.
    let other_listed = corpus.join("gen1-classical-002.pack");
    pack_of_other_games(&other_listed, 6, 11);
    let o = run(&["manifest", &c, "--date", "2026-12-06"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let listed = std::fs::read(corpus.join("manifest.toml")).unwrap();
    let first_two = |from: &Path, name: &str| {
        let bytes = std::fs::read(from).unwrap();
        let cut = records::record::scan(&bytes).chunks[2].offset as usize;
        let file = dir.join(name);
        std::fs::write(&file, &bytes[..cut]).unwrap();
        file
    };
    let a = first_two(&base_run().join("games-0.bin"), "a.bin");
    let unpacked = dir.join("unpacked");
    assert!(run(&[
        "unpack".as_ref(),
        other_listed.as_os_str(),
        "--out".as_ref(),
        unpacked.as_os_str()
    ])
    .status
    .success());
    let from_other = records::record::data_files(&unpacked).unwrap().remove(0);
    let b = first_two(&from_other, "b.bin");
    let fresh = dir.join("fresh.pack");
    pack_of_other_games(&fresh, 2, 12);
    let spread = dir.join("s003-spread.pack");
    let o = run(&[
        "pack".as_ref(),
        "--out".as_ref(),
        spread.as_os_str(),
        a.as_os_str(),
        b.as_os_str(),
        fresh.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = add(&spread);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains(&format!(
            "{}: 4 of its games are in the corpus or the packs added before it already (2 in ",
            spread.display()
        )),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(std::fs::read(corpus.join("manifest.toml")).unwrap(), listed);
    // A listed pack missing from the folder: nothing can be checked against it, so nothing
    // is added.
    let away = dir.join("away.pack");
    std::fs::rename(&other_listed, &away).unwrap();
    let o = add(&subset);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("listed in the corpus manifest, not found"),
        "{}",
        text(&o.stderr)
    );
    std::fs::rename(&away, &other_listed).unwrap();
    // A pack that lost its prefix reads whole, but verify calls it damaged: not listed.
    let bytes = std::fs::read(&other).unwrap();
    let headless = dir.join("s004-headless.pack");
    std::fs::write(&headless, &bytes[12..]).unwrap();
    let o = add(&headless);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("damaged, so not listed: byte 0: missing LUFTPACK magic"),
        "{}",
        text(&o.stderr)
    );
    // Other games are taken.
    let o = add(&other);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(Manifest::read(&corpus).unwrap().unwrap().packs.len(), 3);
    std::fs::remove_dir_all(&dir).ok();
}

//! The list of partial outputs an interrupt removes (`output::remove_partials`), in a test
//! binary of its own: after `remove_partials` the list stays held until the process exits,
//! so no other test may write an output in this process.

#![allow(clippy::unwrap_used)]

/// An unfinished `OutFile`'s partial file is on the list `remove_partials` empties (and
/// a registered directory with it); a finished one is renamed into place and off the
/// list, a dropped one removed and off the list. One test, in a binary of its own, as the list is the
/// process's.
#[test]
fn partial_outputs_are_listed_until_renamed_or_removed() {
    use std::io::Write;
    let dir = testing::temp("output-partials");
    let (a, b, c) = (dir.join("a.txt"), dir.join("b.txt"), dir.join("c.txt"));
    std::fs::write(&b, "old b").unwrap();
    let mut fa = output::OutFile::create(&a, &[]).unwrap();
    fa.write_all(b"new a").unwrap();
    fa.finish().unwrap();
    let fc = output::OutFile::create(&c, &[]).unwrap();
    drop(fc);
    assert!(!dir.join("c.txt.partial").exists());
    let mut fb = output::OutFile::create(&b, &[]).unwrap();
    fb.write_all(b"half of the new b").unwrap();
    let partial_dir = dir.join("out.partial");
    std::fs::create_dir_all(partial_dir.join("sub")).unwrap();
    std::fs::write(partial_dir.join("sub/games-0.bin"), "x").unwrap();
    output::register_partial(&partial_dir);
    let mut removed = output::remove_partials();
    removed.sort();
    assert_eq!(removed, vec![dir.join("b.txt.partial"), partial_dir.clone()]);
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "new a");
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "old b");
    assert!(!dir.join("b.txt.partial").exists() && !partial_dir.exists());
    assert!(!c.exists());
    // (The list stays held after `remove_partials`, as the process is about to exit:
    // `fb` is not dropped, and nothing after this registers.)
    std::mem::forget(fb);
    std::fs::remove_dir_all(&dir).ok();
}

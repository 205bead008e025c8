//! The tune build (`cargo test -p engine --features tune`): every tunable is a UCI spin
//! option with its declared range, `setoption` changes the next search (the LMR table
//! included) and setting the default back restores it exactly. Tunables belong to the
//! process, so this is its own test binary with a single test: nothing else searches while
//! it changes them.
#![cfg(feature = "tune")]

use engine::{all_options, Engine, Limits, OptionError, OptionKind, OptionSpec, TUNABLES};

fn nodes(engine: &mut Engine, depth: i32) -> u64 {
    engine.new_game();
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    engine.go(limits, &mut ()).expect("a depth-limited search").nodes
}

#[test]
fn every_tunable_is_an_option_that_changes_the_next_search() {
    const { assert!(engine::TUNE_BUILD) };
    // One spin option per tunable, after the engine's own, with the declared range.
    assert_eq!(all_options().count(), engine::OPTIONS.len() + TUNABLES.len());
    for t in TUNABLES {
        let spec = OptionSpec::find(&t.name.to_uppercase()).expect("declared");
        assert_eq!(
            spec.kind,
            OptionKind::Spin {
                default: t.default.into(),
                min: t.min.into(),
                max: t.max.into()
            },
            "{}",
            t.name
        );
    }
    assert_eq!(engine::spsa_lines().len(), TUNABLES.len());

    let mut engine = Engine::new();
    let before = nodes(&mut engine, 9);
    // The LMR table is rebuilt from its parameters before the next search.
    for (name, value) in [("lmr_base", "150"), ("lmr_divisor", "150")] {
        engine.set_option(name, Some(value)).unwrap();
        let changed = nodes(&mut engine, 9);
        assert_ne!(changed, before, "{name} = {value}");
        let default = TUNABLES.iter().find(|t| t.name == name).unwrap().default;
        assert_eq!(
            TUNABLES.iter().find(|t| t.name == name).unwrap().value(),
            value.parse().unwrap()
        );
        engine.set_option(name, Some(&default.to_string())).unwrap();
        assert_eq!(nodes(&mut engine, 9), before, "{name} back to {default}");
    }
    // Other steps of the search read theirs at once.
    engine.set_option("rfp_margin", Some("40")).unwrap();
    assert_ne!(nodes(&mut engine, 9), before);
    engine.set_option("rfp_margin", Some("75")).unwrap();
    // Out of range: refused, nothing changes.
    assert!(matches!(
        engine.set_option("rfp_margin", Some("1000")),
        Err(OptionError::BadValue { .. })
    ));
    assert_eq!(nodes(&mut engine, 9), before);
    assert!(TUNABLES.iter().all(|t| t.value() == t.default));
}

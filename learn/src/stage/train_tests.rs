//! The candidate's shape and whether it grows from the best net.

#![allow(clippy::unwrap_used)]

use super::*;

#[test]
fn candidates_grow_from_the_best_net_only_where_the_trainer_can() {
    let arch = |s: &str| s.parse::<nnue::Arch>().unwrap();
    let plain = arch("(768 -> 128)x2 -> 1x8");
    assert!(can_grow_into(&plain, &plain));
    assert!(can_grow_into(&plain, &arch("(768x4 -> 128)x2 -> 1x8")));
    assert!(
        !can_grow_into(&plain, &arch("(768x4hm -> 128)x2 -> 1x8")),
        "mirroring"
    );
    assert!(!can_grow_into(&plain, &arch("(768 -> 256)x2 -> 1x8")), "width");
    assert!(
        !can_grow_into(&plain, &arch("(768 -> 128)x2 -> 1x4")),
        "output buckets"
    );
    assert!(
        !can_grow_into(&plain, &arch("(768 -> 128)x2 -> (16 -> 1)x8")),
        "layers"
    );
    let four = arch("(768x4 -> 128)x2 -> 1x8");
    assert!(can_grow_into(&four, &four));
    assert!(
        !can_grow_into(&four, &arch("(768x2 -> 128)x2 -> 1x8")),
        "other buckets"
    );
    assert!(!can_grow_into(&four, &plain), "buckets are not merged");

    let best = nnue::Network::random_with(nnue::FeatureSet::plain(), 128, 8, 1).unwrap();
    let mut t = crate::config::Train::default();
    assert_eq!(candidate_arch(&best, &t).unwrap(), best.arch());
    t.hidden = 256;
    assert_eq!(
        candidate_arch(&best, &t).unwrap().to_string(),
        "(768 -> 256 screlu)x2 -> 1x8"
    );
    t.hidden = 0;
    t.arch = "(768x4 -> 128)x2 -> 1x8".into();
    assert_eq!(candidate_arch(&best, &t).unwrap(), four);
}

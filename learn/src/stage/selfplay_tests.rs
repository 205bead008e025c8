//! Self-play's arguments for datagen.

#![allow(clippy::unwrap_used)]

use super::*;

#[test]
fn segments_name_their_start_positions_as_datagen_does() {
    assert!(openings_args(0, "classical").unwrap().is_empty());
    assert_eq!(openings_args(3, "dfrc").unwrap(), ["--openings-960", "dfrc"]);
    assert_eq!(openings_args(3, "frc").unwrap(), ["--openings-960", "frc"]);
    let error = openings_args(7, "960").unwrap_err().to_string();
    assert_eq!(
        error,
        "segment 7: unknown openings \"960\" in the journal (classical, frc or dfrc)"
    );
}

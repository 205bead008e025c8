//! The `tests` package holds no library code: its integration tests (`tests/tests/`) run
//! the workspace's binaries end to end. This file exists because cargo wants a target.

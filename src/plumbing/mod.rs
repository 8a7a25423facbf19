//! The SQL plumbing every layer above stands on, and which knows no format,
//! no generator and no node (docs/development.md "Layout and tests"), in
//! four rooms, one per concern:
//! - [`fmgr`]: PostgreSQL's calling convention, the C functions declared on
//!   it with their SQL, `_parts` records, the native types, and the
//!   `numeric` and `timestamptz` values the formats' functions take;
//! - [`shmem`]: shared memory, the DSM segments a backend finds it in
//!   without preloading, and the spinlock;
//! - [`settings`]: how a setting is defined and checked, what is derived
//!   from settings, and a secret setting kept out of the log;
//! - [`backend`]: errors and their SQLSTATEs, the unguarded C symbols, and
//!   what a backend keeps for itself (state, clock, CSPRNG).
//!
//! Imports between the rooms run one way: `backend` and `settings` stand on
//! none of the others, `fmgr` on `backend`, `shmem` on `backend` and
//! `settings`.

pub mod backend;
pub mod fmgr;
#[cfg(any(test, feature = "pg_test"))]
pub mod pg_test_support;
pub mod settings;
pub mod shmem;

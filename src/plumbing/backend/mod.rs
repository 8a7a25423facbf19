//! The backend itself, as every room of the plumbing uses it: how pg_flake
//! reports to PostgreSQL ([`errors`]), the C symbols it calls without pgrx's
//! guard ([`ffi`]), and what a backend keeps for itself: state in a plain
//! `static` ([`local`]), the clock its generators read ([`clock`]) and its
//! CSPRNG ([`random`]). `clock` and `random` are named as the core's
//! `core/src/clock.rs` and `core/src/random.rs`: each is that mechanism as a
//! backend runs it (a `Clock` whose pauses a cancel ends, an `OsRandom` per
//! backend).

pub mod clock;
pub mod errors;
pub mod ffi;
pub mod local;
pub mod random;

//! The coordination-based generators as a server runs them (docs/guarantees.md
//! "Guarantees", docs/operations.md "Shared mode"): one generator per format
//! for the whole server, in shared memory behind a spinlock, whether or not
//! pg_flake is preloaded (preloaded: memory reserved at the server's start;
//! not preloaded: a DSM segment the first backend makes, named on 17+,
//! pinned and recorded in a file on 15 and 16). Earlier versions gave each
//! backend a generator of its own on 15 and 16 without preloading, which
//! split every time unit between the backends (issue "no cliff").
//!
//! Every generator keeps a durable mark ([`crate::marks`], and in the WAL
//! when preloaded, [`crate::marks::wal`]): it never uses a unit above the mark
//! before a higher mark is recorded, and it starts above the mark a previous
//! run left, whatever the clock says.
//!
//! A format declares its generator as a `static` [`Generator`];
//! the registry of formats (`src/formats/mod.rs`) lists them, and `_PG_init` hands that list
//! to [`register`]. Nothing here knows the formats.
//!
//! Three rooms: `generator/`, the type [`Generator`] and every `impl` of it,
//! one file per concern (its `mod.rs` lists them); `registry.rs`, what the
//! registry needs of every generator ([`ServerGenerator`]) and the
//! generators `_PG_init` registered; `clock_settings.rs`, the settings every
//! generator reads (`pg_flake.max_clock_lag`, `pg_flake.max_clock_jump`).

mod clock_settings;
mod generator;
mod registry;

pub use clock_settings::define_settings;
pub use generator::counters::unix_micros_now;
pub use generator::Generator;
pub use registry::{learn, register, set_mark, ServerGenerator, StatsRow};

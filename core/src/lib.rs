//! flake-core: the flake family of distributed, time-sortable identifiers.
//!
//! Three kinds of module, whose imports run one way, down:
//! - **generators in the application** ([`leased`]), which use the formats;
//! - **the formats** (`core/src/formats/`, each at its public path
//!   `flake_core::<format>`: [`sno`], [`siq`], [`distributed_id`],
//!   [`distributed_id128`], [`public_id`], [`flaxid`], [`kuid`],
//!   [`snowflake`], [`alphanumeric`]), with the registries that list them
//!   (`for_each_native_type!`, `for_each_slot_generator!`);
//! - **the mechanisms** the formats use, which name no format: [`clock`],
//!   [`codec`], [`error`], [`generator`], [`lease`], [`lineage`],
//!   [`marks_file`], [`numeric`], [`random`], [`sequencer`], [`slot`],
//!   [`sortkey`], [`time`], [`tsc`], and `flake_id.rs` ([`FlakeId`], and
//!   the `fixed_id!` every native type is declared with).
//!
//! This file only declares the modules and re-exports what applications
//! name at the crate's root; no module imports it.
//!
//! Every format is a module with the same shape: a value type holding the
//! format's big-endian bytes (so byte order is sort order), strict
//! `FromStr`/`Display` in the canonical text form, field accessors and
//! constructors, and (for the coordination-based formats) a generator built
//! on the shared [`slot`] rule and [`sequencer`], which can also run
//! server-wide as a [`generator::MarkedGenerator`]. Generators take a
//! [`clock::Clock`] and, where random, a [`random::RandomSource`], so the same
//! code runs in a server, in an application and under scripted tests.
//!
//! Optional features: `serde` (canonical text, strict on input) and
//! `postgres` (`ToSql`/`FromSql` of `postgres-types` in the binary wire
//! format, i.e. the raw bytes).

// The mechanisms.
pub mod clock;
pub mod codec;
pub mod error;
mod flake_id;
pub mod generator;
pub mod lease;
pub mod lineage;
pub mod marks_file;
pub mod numeric;
pub mod random;
pub mod sequencer;
pub mod slot;
pub mod sortkey;
pub mod time;
pub mod tsc;

// The formats, in their folder, at the paths they had before it.
mod formats;
pub use formats::{
    alphanumeric, distributed_id, distributed_id128, flaxid, kuid, public_id, siq, sno, snowflake,
};

// Generators in the application.
pub mod leased;

pub use error::{Error, ErrorKind, Result};
pub use flake_id::{FlakeId, TextBuffer, MAX_TEXT_LEN};

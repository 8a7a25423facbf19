//! The one mechanism behind every native type (docs/sql-reference.md "What every native
//! type has"): a fixed-length, pass-by-reference value holding exactly the
//! format's big-endian bytes, so `memcmp` order is the format's sort order.
//!
//! A format module declares its type in two places that read side by side,
//! like PostgreSQL's `uuid.c` and its catalog entries:
//! - `native_type!(Sno, flake_core::sno::Sno, sno, [sno_in_wrapper, …])`: the Rust side, i.e. the
//!   SQL-facing newtype `Sno` and the type's version-1 C functions
//!   (`sno_in`, `sno_out`, `sno_recv`, `sno_send`, `sno_eq` … `sno_cmp`,
//!   `sno_smaller`, `sno_larger`, `sno_hash`, `sno_hash_extended`,
//!   `sno_sortsupport`, `sno_minmax_multi_distance`, `sno_to_bytea`,
//!   `sno_from_bytea`, and on PostgreSQL 18 `sno_skipsupport`);
//! - the type section of `sql/sno.sql` (the format's SQL file, included with
//!   `sql_file!`): the literal SQL of the type, its functions, operators,
//!   operator classes, `min`/`max` and casts. The sections are made from one
//!   template ([`ddl`]) with each type's length taken from the core
//!   (`FlakeId::LEN`), a test checks that the checked-in sections are exactly
//!   that, and `build.rs` that every symbol they name is defined.
//!
//! Their C symbols keep the names pgrx gave the same functions in 0.1.0
//! (`sno_in_wrapper`, `sno_recv_wrapper`, …): a database created at 0.1.0
//! refers to them by those names (docs/operations.md "Versions").

pub mod compare;
pub mod datum;
#[cfg(test)]
pub mod ddl;
pub mod io;
#[cfg(skip_support)]
pub mod skipsupport;
pub mod sortsupport;

pub use datum::{datum_of, datum_of_key};
pub use io::FromBinary;

/// Declares the Rust side of a native type (see the module documentation):
/// `native_type!(Sno, flake_core::sno::Sno, sno, [sno_in_wrapper, …])` makes
/// the newtype `Sno` and every C function of the type section of
/// `sql/sno.sql`, each macro beside the code of its concern. The symbols are
/// written whole, in the order of the template (`sql/native_type.sql.in`),
/// so that grep leads from the SQL to the type; each is checked at build
/// time to be `<sql>_<function>_wrapper`, so none can stand in another's
/// place.
macro_rules! native_type {
    (
        $name:ident, $core:ty, $sql:ident,
        [
            $in:ident, $out:ident, $recv:ident, $send:ident,
            $eq:ident, $ne:ident, $lt:ident, $le:ident, $gt:ident, $ge:ident, $cmp:ident,
            $smaller:ident, $larger:ident, $hash:ident, $hash_extended:ident,
            $sortsupport:ident, $minmax_multi_distance:ident, $skipsupport:ident,
            $to_bytea:ident, $from_bytea:ident $(,)?
        ]
    ) => {
        #[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
        #[repr(transparent)]
        pub struct $name(pub $core);

        $crate::plumbing::fmgr::native_type::datum::datum_traits!($name, $core, $sql);
        $crate::plumbing::fmgr::native_type::io::io_functions!(
            $core,
            $sql,
            $in,
            $out,
            $recv,
            $send,
            $to_bytea,
            $from_bytea
        );
        $crate::plumbing::fmgr::native_type::compare::compare_functions!(
            $core,
            $sql,
            $eq,
            $ne,
            $lt,
            $le,
            $gt,
            $ge,
            $cmp,
            $smaller,
            $larger,
            $hash,
            $hash_extended,
            $minmax_multi_distance
        );
        $crate::plumbing::fmgr::native_type::sortsupport::sortsupport_function!(
            $core,
            $sql,
            $sortsupport
        );
        #[cfg(skip_support)]
        $crate::plumbing::fmgr::native_type::skipsupport::skipsupport_function!(
            $core,
            $sql,
            $skipsupport
        );
        #[cfg(not(skip_support))]
        $crate::plumbing::fmgr::symbol_of!($sql, _skipsupport, $skipsupport);
    };
}
pub(crate) use native_type;

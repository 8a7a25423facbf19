//! Btree support function 6 of every native type on PostgreSQL 18: skip
//! support, so that a skip scan steps through the values of a leading
//! column as it does for `uuid` (docs/sql-reference.md "What every native type has").

use super::datum::{datum_of, key_at};
use crate::plumbing::fmgr::arg;
use flake_core::FlakeId;
use pgrx::pg_sys;

/// PostgreSQL 18's `SkipSupportData` (utils/skipsupport.h), which pgrx's
/// bindings do not include.
#[repr(C)]
struct SkipSupportData {
    low_elem: pg_sys::Datum,
    high_elem: pg_sys::Datum,
    decrement: Option<IncrementOrDecrement>,
    increment: Option<IncrementOrDecrement>,
}

type IncrementOrDecrement =
    unsafe extern "C-unwind" fn(pg_sys::Relation, pg_sys::Datum, *mut bool) -> pg_sys::Datum;

/// The datum of the value whose big-endian integer is `key`.
fn value_of<T: FlakeId>(key: u128) -> pg_sys::Datum {
    datum_of(&key.to_be_bytes()[16 - T::LEN..])
}

unsafe extern "C-unwind" fn decrement<T: FlakeId>(
    _rel: pg_sys::Relation,
    existing: pg_sys::Datum,
    underflow: *mut bool,
) -> pg_sys::Datum {
    // SAFETY: the btree code passes a value of the type and a flag.
    let key = unsafe { key_at::<T>(existing) };
    unsafe { *underflow = key == 0 };
    if key == 0 {
        return pg_sys::Datum::from(0usize);
    }
    value_of::<T>(key - 1)
}

unsafe extern "C-unwind" fn increment<T: FlakeId>(
    _rel: pg_sys::Relation,
    existing: pg_sys::Datum,
    overflow: *mut bool,
) -> pg_sys::Datum {
    // SAFETY: as decrement.
    let key = unsafe { key_at::<T>(existing) };
    unsafe { *overflow = key >= T::MAX_KEY };
    if key >= T::MAX_KEY {
        return pg_sys::Datum::from(0usize);
    }
    value_of::<T>(key + 1)
}

/// `T_skipsupport(internal)`.
///
/// # Safety
/// `fcinfo` must be a call of the type's skip support function.
pub unsafe fn skipsupport<T: FlakeId>(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: PostgreSQL passes a SkipSupportData to fill in.
    unsafe {
        let support = &mut *arg(fcinfo, 0).cast_mut_ptr::<SkipSupportData>();
        support.low_elem = value_of::<T>(0);
        support.high_elem = value_of::<T>(T::MAX_KEY);
        support.decrement = Some(decrement::<T>);
        support.increment = Some(increment::<T>);
    }
    pg_sys::Datum::from(0usize)
}

/// Btree support function 6 of the native type `$sql` (a value of `$core`),
/// under `#[pg_guard]`: the symbol `<sql>_skipsupport_wrapper`, declared in
/// the `DO $skip_support$` block of `sql/<format>.sql`.
macro_rules! skipsupport_function {
    ($core:ty, $sql:ident, $symbol:ident) => {
        $crate::plumbing::fmgr::guarded_functions!($sql, _skipsupport $symbol => $crate::plumbing::fmgr::native_type::skipsupport::skipsupport::<$core>);
    };
}
pub(crate) use skipsupport_function;

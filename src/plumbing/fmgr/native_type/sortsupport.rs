//! Btree support function 2 of every native type: sorting with abbreviated
//! keys, relative to the sort's first value or its leading bits by format
//! (docs/guarantees.md "Decisions where the spec is silent"; the key itself is
//! `flake_core::sortkey`).

use super::datum::key_at;
use crate::plumbing::backend::ffi::ssup_datum_unsigned_cmp;
use crate::plumbing::fmgr::arg;
use flake_core::sortkey::Abbreviator;
use flake_core::FlakeId;
use pgrx::pg_sys;
use std::ffi::{c_int, c_void};

unsafe extern "C-unwind" fn compare_keys<T: FlakeId>(
    a: pg_sys::Datum,
    b: pg_sys::Datum,
    _ssup: pg_sys::SortSupport,
) -> c_int {
    // SAFETY: sort datums of a T column point at T values.
    unsafe { key_at::<T>(a).cmp(&key_at::<T>(b)) as c_int }
}

/// A sort's [`Abbreviator`], made from the first value it abbreviates. It
/// lives in `ssup_extra`, in the sort's memory context, at a 16-byte
/// boundary of its own (palloc guarantees 8, a u128 wants 16).
type SortAbbreviator<T> = Option<Abbreviator<T>>;

unsafe fn new_sort_abbreviator<T: FlakeId>(cxt: pg_sys::MemoryContext) -> *mut SortAbbreviator<T> {
    let align = std::mem::align_of::<SortAbbreviator<T>>();
    // SAFETY: a fresh allocation with room to move up to the alignment.
    unsafe {
        let raw =
            pg_sys::MemoryContextAlloc(cxt, std::mem::size_of::<SortAbbreviator<T>>() + align);
        let state = raw
            .cast::<u8>()
            .add(raw.cast::<u8>().align_offset(align))
            .cast::<SortAbbreviator<T>>();
        state.write(None);
        state
    }
}

unsafe extern "C-unwind" fn abbreviate<T: FlakeId>(
    original: pg_sys::Datum,
    ssup: pg_sys::SortSupport,
) -> pg_sys::Datum {
    // SAFETY: sortsupport set ssup_extra to a SortAbbreviator in the sort's
    // memory context; the datum points at a T.
    unsafe {
        let state = &mut *(*ssup).ssup_extra.cast::<SortAbbreviator<T>>();
        let value = key_at::<T>(original);
        match state {
            Some(abbreviator) => pg_sys::Datum::from(abbreviator.abbreviate(value) as usize),
            None => first_abbreviation(state, value),
        }
    }
}

/// The abbreviation of a sort's first value, which makes the sort's
/// abbreviator: once per sort, so out of line, and ending the call, so
/// that no register of the converter of every other value has to be saved
/// around it.
#[cold]
#[inline(never)]
fn first_abbreviation<T: FlakeId>(state: &mut SortAbbreviator<T>, base: u128) -> pg_sys::Datum {
    let abbreviator = state.insert(Abbreviator::new(base));
    pg_sys::Datum::from(abbreviator.abbreviate(base) as usize)
}

/// Abbreviations of time-ordered keys, relative to a base or by leading
/// bits that include random ones, are nearly all distinct, and a tie costs
/// one full comparison of at most 16 bytes: abbreviation always pays off, so
/// it is never abandoned.
unsafe extern "C-unwind" fn keep_abbreviating(_count: c_int, _ssup: pg_sys::SortSupport) -> bool {
    false
}

/// `T_sortsupport(internal)`, btree support function 2.
///
/// # Safety
/// `fcinfo` must be a call of the type's sortsupport function.
pub unsafe fn sortsupport<T: FlakeId>(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: PostgreSQL passes a SortSupport as the argument.
    unsafe {
        let ssup = &mut *arg(fcinfo, 0).cast_mut_ptr::<pg_sys::SortSupportData>();
        ssup.comparator = Some(compare_keys::<T>);
        if ssup.abbreviate && std::mem::size_of::<pg_sys::Datum>() == 8 {
            let state = new_sort_abbreviator::<T>(ssup.ssup_cxt);
            ssup.ssup_extra = state.cast::<c_void>();
            ssup.abbrev_converter = Some(abbreviate::<T>);
            ssup.abbrev_abort = Some(keep_abbreviating);
            ssup.abbrev_full_comparator = Some(compare_keys::<T>);
            ssup.comparator = Some(ssup_datum_unsigned_cmp);
        }
    }
    pg_sys::Datum::from(0usize)
}

/// Btree support function 2 of the native type `$sql` (a value of `$core`),
/// under `#[pg_guard]`: the symbol `<sql>_sortsupport_wrapper`.
macro_rules! sortsupport_function {
    ($core:ty, $sql:ident, $symbol:ident) => {
        $crate::plumbing::fmgr::guarded_functions!($sql, _sortsupport $symbol => $crate::plumbing::fmgr::native_type::sortsupport::sortsupport::<$core>);
    };
}
pub(crate) use sortsupport_function;

//! Comparison, `min`/`max` and hashing of a native type: plain version-1 C
//! functions over the raw bytes, no `#[pg_extern]` (pgrx's argument and
//! result handling costs more than the comparison itself: about 30 ns
//! against 2 ns for `uuid_lt`). They cannot fail and touch nothing but
//! their arguments, so they run without `#[pg_guard]`.

use super::datum::{bytes_at, key_at};
use crate::plumbing::backend::ffi::{hash_bytes, hash_bytes_extended};
use crate::plumbing::fmgr::arg;
use flake_core::FlakeId;
use pgrx::pg_sys;
use std::ffi::c_int;

/// The value of argument `i` as a big-endian integer, for the strict
/// functions of a type `T`.
///
/// # Safety
/// `fcinfo` must be a call with more than `i` arguments, argument `i` a
/// non-null `T`.
#[inline(always)]
pub unsafe fn key_arg<T: FlakeId>(fcinfo: pg_sys::FunctionCallInfo, i: usize) -> u128 {
    unsafe { key_at::<T>(arg(fcinfo, i)) }
}

/// `T_smaller` (`larger = false`) and `T_larger`: one of the arguments, as
/// PostgreSQL's own `*_smaller`/`*_larger` return.
///
/// # Safety
/// `fcinfo` must be a call of a strict function of two `T`s.
#[inline(always)]
unsafe fn pick<T: FlakeId>(fcinfo: pg_sys::FunctionCallInfo, larger: bool) -> pg_sys::Datum {
    unsafe {
        let (a, b) = (key_arg::<T>(fcinfo, 0), key_arg::<T>(fcinfo, 1));
        let first = if larger { a >= b } else { a <= b };
        arg(fcinfo, if first { 0 } else { 1 })
    }
}

/// `T_smaller`: the argument that sorts first.
///
/// # Safety
/// As [`pick`].
pub unsafe fn smaller<T: FlakeId>(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    unsafe { pick::<T>(fcinfo, false) }
}

/// `T_larger`: the argument that sorts last.
///
/// # Safety
/// As [`pick`].
pub unsafe fn larger<T: FlakeId>(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    unsafe { pick::<T>(fcinfo, true) }
}

/// `T_hash`: PostgreSQL's `hash_bytes` over the value's bytes.
///
/// # Safety
/// `fcinfo` must be a call of a strict function whose argument 0 is a `T`.
pub unsafe fn hash<T: FlakeId>(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: hash_bytes reads exactly T::LEN bytes and cannot fail.
    unsafe {
        let h = hash_bytes(bytes_at::<T>(arg(fcinfo, 0)).as_ptr(), T::LEN as c_int);
        pg_sys::Datum::from(h as i32)
    }
}

/// `T_hash_extended`: `hash_bytes_extended` with the given seed.
///
/// # Safety
/// As [`hash`], argument 1 an `int8`.
pub unsafe fn hash_extended<T: FlakeId>(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: as hash.
    unsafe {
        let h = hash_bytes_extended(
            bytes_at::<T>(arg(fcinfo, 0)).as_ptr(),
            T::LEN as c_int,
            arg(fcinfo, 1).value() as u64,
        );
        pg_sys::Datum::from(h as i64)
    }
}

/// `T_minmax_multi_distance(internal, internal) → float8`, BRIN minmax-multi
/// support function 11: how far apart two values are, as the difference of
/// their bytes read as a fraction (PostgreSQL's own distance for `uuid`).
///
/// # Safety
/// `fcinfo` must be a call whose arguments 0 and 1 point at `T`s.
pub unsafe fn minmax_multi_distance<T: FlakeId>(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: BRIN passes two values of the indexed type.
    let (a, b) = unsafe { (bytes_at::<T>(arg(fcinfo, 0)), bytes_at::<T>(arg(fcinfo, 1))) };
    let mut delta = 0f64;
    for i in (0..T::LEN).rev() {
        delta += b[i] as f64 - a[i] as f64;
        delta /= 256.0;
    }
    pg_sys::Datum::from(delta.to_bits())
}

/// Comparison, `min`/`max`, hashing and BRIN distance of the native type
/// `$sql` (a value of `$core`), without `#[pg_guard]` (they cannot fail):
/// the symbols `<sql>_eq_wrapper`, `_ne_`, `_lt_`, `_le_`, `_gt_`, `_ge_`,
/// `_cmp_`, `<sql>_smaller_wrapper`, `<sql>_larger_wrapper`,
/// `<sql>_hash_wrapper`, `<sql>_hash_extended_wrapper` and
/// `<sql>_minmax_multi_distance_wrapper` of the type section of
/// `sql/<format>.sql`.
macro_rules! compare_functions {
    (
        $core:ty, $sql:ident,
        $eq:ident, $ne:ident, $lt:ident, $le:ident, $gt:ident, $ge:ident, $cmp:ident,
        $smaller:ident, $larger:ident, $hash:ident, $hash_extended:ident, $minmax_multi_distance:ident
    ) => {
        $crate::plumbing::fmgr::native_type::compare::compare_functions!(@plain $core, $sql,
            _eq $eq: |a, b| a == b,
            _ne $ne: |a, b| a != b,
            _lt $lt: |a, b| a < b,
            _le $le: |a, b| a <= b,
            _gt $gt: |a, b| a > b,
            _ge $ge: |a, b| a >= b,
            _cmp $cmp: |a, b| a.cmp(&b) as i32
        );
        $crate::plumbing::fmgr::native_type::compare::compare_functions!(@calls $core, $sql,
            _smaller $smaller => smaller,
            _larger $larger => larger,
            _hash $hash => hash,
            _hash_extended $hash_extended => hash_extended,
            _minmax_multi_distance $minmax_multi_distance => minmax_multi_distance
        );
    };
    // Comparisons of the two arguments' keys.
    (@plain $core:ty, $sql:ident, $($suffix:ident $symbol:ident: |$a:ident, $b:ident| $body:expr),*) => {
        $(
            $crate::plumbing::fmgr::symbol_of!($sql, $suffix, $symbol);

            #[no_mangle]
            pub unsafe extern "C-unwind" fn $symbol(
                fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
            ) -> ::pgrx::pg_sys::Datum {
                // SAFETY: a strict function of two T arguments.
                let ($a, $b) = unsafe {
                    (
                        $crate::plumbing::fmgr::native_type::compare::key_arg::<$core>(fcinfo, 0),
                        $crate::plumbing::fmgr::native_type::compare::key_arg::<$core>(fcinfo, 1),
                    )
                };
                ::pgrx::pg_sys::Datum::from($body)
            }

            $crate::plumbing::fmgr::finfo!($symbol);
        )*
    };
    // The functions of this module, each called with the call's fcinfo.
    (@calls $core:ty, $sql:ident, $($suffix:ident $symbol:ident => $function:ident),*) => {
        $(
            $crate::plumbing::fmgr::symbol_of!($sql, $suffix, $symbol);

            #[no_mangle]
            pub unsafe extern "C-unwind" fn $symbol(
                fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
            ) -> ::pgrx::pg_sys::Datum {
                // SAFETY: PostgreSQL calls it as the function the type
                // section declares, whose arguments $function expects.
                unsafe { $crate::plumbing::fmgr::native_type::compare::$function::<$core>(fcinfo) }
            }

            $crate::plumbing::fmgr::finfo!($symbol);
        )*
    };
}
pub(crate) use compare_functions;

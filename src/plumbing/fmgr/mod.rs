//! PostgreSQL's version-1 calling convention (`fmgr.h`), as every C function
//! of the extension uses it: an argument of the call, the `pg_finfo_` record
//! that marks a symbol as version-1, and the build-time checks of symbols.
//! [`c_function!`](c_function::c_function) and the native types'
//! functions stand on it.
//!
//! The room of the calling convention holds what stands on it:
//! [`c_function`] (`sql_file!` and `c_function!`: a function's SQL and its
//! C symbol), [`record`] (the row of a `_parts` function), [`native_type`]
//! (the fixed-length types and their support functions), and the SQL values
//! the formats' functions take and give beyond pgrx's own conversions:
//! [`numeric`] (named as core/src/numeric.rs, whose parser it hands
//! PostgreSQL's `numeric` values) and [`timestamptz`].

pub mod c_function;
pub mod native_type;
pub mod numeric;
pub mod record;
pub mod timestamptz;

use pgrx::pg_sys;

/// Argument `i` of a version-1 call.
///
/// # Safety
/// `fcinfo` must be a call with more than `i` arguments.
#[inline(always)]
pub unsafe fn arg(fcinfo: pg_sys::FunctionCallInfo, i: usize) -> pg_sys::Datum {
    unsafe { (*(*fcinfo).args.as_ptr().add(i)).value }
}

/// Argument `i` of a strict version-1 call as a Rust value.
///
/// # Safety
/// `fcinfo` must be a call of a STRICT function with more than `i`
/// arguments, argument `i` of the SQL type of `T`.
#[inline]
pub unsafe fn arg_value<T: pgrx::FromDatum>(fcinfo: pg_sys::FunctionCallInfo, i: usize) -> T {
    // SAFETY: strict, so the argument is not NULL; its type is T's.
    unsafe { T::from_polymorphic_datum(arg(fcinfo, i), false, pg_sys::InvalidOid) }.unwrap_or_else(
        || {
            crate::plumbing::backend::errors::internal(format!(
                "pg_flake: argument {i} is NULL in a STRICT function"
            ))
        },
    )
}

/// What `build.rs`'s check of a SQL file asks of each symbol it names.
pub const fn version_1_function(
    _symbol: unsafe extern "C-unwind" fn(pg_sys::FunctionCallInfo) -> pg_sys::Datum,
    _finfo: extern "C" fn() -> &'static pg_sys::Pg_finfo_record,
) {
}

/// The `pg_finfo_<symbol>` record that marks `<symbol>` as a version-1
/// function (PostgreSQL's `PG_FUNCTION_INFO_V1`).
macro_rules! finfo {
    ($($symbol:ident)*) => {
        ::paste::paste! {
            $(
                #[no_mangle]
                #[doc(hidden)]
                pub extern "C" fn [<pg_finfo_ $symbol>]() -> &'static ::pgrx::pg_sys::Pg_finfo_record {
                    const V1: ::pgrx::pg_sys::Pg_finfo_record =
                        ::pgrx::pg_sys::Pg_finfo_record { api_version: 1 };
                    &V1
                }
            )*
        }
    };
}
pub(crate) use finfo;

/// Checks at build time that `$symbol`, written whole where a native type
/// is declared, is `<sql><suffix>_wrapper`: the symbol its SQL template
/// gives that function (`sql/native_type.sql.in`).
macro_rules! symbol_of {
    ($sql:ident, $suffix:ident, $symbol:ident) => {
        const _: () = assert!(
            $crate::plumbing::fmgr::same_text(
                stringify!($symbol),
                concat!(stringify!($sql), stringify!($suffix), "_wrapper"),
            ),
            concat!(
                stringify!($symbol),
                " stands where ",
                stringify!($sql),
                stringify!($suffix),
                "_wrapper belongs"
            ),
        );
    };
}
pub(crate) use symbol_of;

/// `a == b`, at build time.
pub const fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Version-1 functions `$symbol` (`<sql><suffix>_wrapper`, checked) that call
/// `$function` with the call's `fcinfo` under `#[pg_guard]` (they may raise
/// ERRORs or allocate), with their `pg_finfo_` records.
macro_rules! guarded_functions {
    ($sql:ident, $($suffix:ident $symbol:ident => $function:path),*) => {
        $(
            $crate::plumbing::fmgr::symbol_of!($sql, $suffix, $symbol);

            #[::pgrx::pg_guard]
            #[no_mangle]
            pub unsafe extern "C-unwind" fn $symbol(
                fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
            ) -> ::pgrx::pg_sys::Datum {
                unsafe { $function(fcinfo) }
            }

            $crate::plumbing::fmgr::finfo!($symbol);
        )*
    };
}
pub(crate) use guarded_functions;

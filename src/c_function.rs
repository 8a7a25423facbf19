//! Functions whose SQL pg_flake writes by hand (docs/development.md "Layout and tests"):
//! a version-1 C function and its `CREATE FUNCTION`, declared side by side by
//! one macro, [`c_function!`]. Everything else is a `#[pg_extern]`, whose SQL
//! pgrx writes; the native types' own functions are declared in their type
//! files (`sql/types/*.sql`) by `native_type!`.
//!
//! Hand-written functions are the ones whose per-call cost matters (the
//! generators: pgrx's argument and result handling costs more than a step of
//! the generator) and the ones pgrx cannot declare (`_parts`, which return one
//! row through OUT parameters).

use pgrx::pg_sys;
use std::marker::PhantomData;

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
            crate::errors::internal(format!(
                "pg_flake: argument {i} is NULL in a STRICT function"
            ))
        },
    )
}

/// One call of a function declared by [`c_function!`], whose arguments are
/// those of the `CREATE FUNCTION` written in the same macro call: the macro's
/// caller states the SQL types and the Rust body in one place (as
/// `#[pg_extern]` does through pgrx), so the body reads its arguments
/// without `unsafe`.
/// `'fcx` is the call's: what it lends (a text argument's bytes) lives no
/// longer.
#[derive(Clone, Copy)]
pub struct Call<'fcx>(pg_sys::FunctionCallInfo, PhantomData<&'fcx ()>);

impl<'fcx> Call<'fcx> {
    /// Only [`c_function!`] makes one.
    ///
    /// # Safety
    /// `fcinfo` is PostgreSQL's, for a call of the function whose SQL is
    /// the one in the same `c_function!`.
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn new(fcinfo: pg_sys::FunctionCallInfo) -> Self {
        Call(fcinfo, PhantomData)
    }

    /// The call for mechanisms that read PostgreSQL's structure
    /// (`record::out_record`).
    pub fn fcinfo(self) -> pg_sys::FunctionCallInfo {
        self.0
    }

    /// Argument `i` as a datum; past the declared arguments, an internal
    /// error.
    #[inline(always)]
    pub fn datum(self, i: usize) -> pg_sys::Datum {
        // SAFETY: PostgreSQL's fcinfo (Call::new); `i` is below nargs.
        unsafe {
            if i >= (*self.0).nargs as usize {
                argument_missing(i);
            }
            arg(self.0, i)
        }
    }

    /// Argument `i` of a STRICT function as the Rust value of its SQL type.
    #[inline]
    pub fn value<T: pgrx::FromDatum>(self, i: usize) -> T {
        // SAFETY: the argument's SQL type is T's (Call::new).
        unsafe { arg_value(self.0, i) }
    }

    /// Argument `i` of type `text` (or `bytea`) of a STRICT function: its
    /// bytes, detoasted, valid during the call.
    #[inline]
    pub fn bytes(self, i: usize) -> &'fcx [u8] {
        // SAFETY: a varlena argument (Call::new), not NULL (STRICT).
        unsafe { crate::native_type::datum::varlena_bytes(self.datum(i)) }
    }

    /// The call site's own `C` (`fn_extra`, in `fn_mcxt`: it lives as long
    /// as the call site, e.g. a query), `None` until `f` stores one. Each
    /// function keeps one type there.
    pub fn site_cache<C: Copy + 'static, R>(self, f: impl FnOnce(&mut Option<C>) -> R) -> R {
        // SAFETY: fn_extra belongs to this function (Call::new), which
        // keeps only an Option<C> there, allocated below in fn_mcxt.
        unsafe {
            let flinfo = (*self.0).flinfo;
            if (*flinfo).fn_extra.is_null() {
                let fresh =
                    pg_sys::MemoryContextAlloc((*flinfo).fn_mcxt, std::mem::size_of::<Option<C>>())
                        .cast::<Option<C>>();
                fresh.write(None);
                (*flinfo).fn_extra = fresh.cast();
            }
            f(&mut *(*flinfo).fn_extra.cast::<Option<C>>())
        }
    }
}

#[cold]
fn argument_missing(i: usize) -> ! {
    crate::errors::internal(format!(
        "pg_flake: argument {i} read past the function's declared arguments"
    ))
}

/// Declares a version-1 C function, its `pg_finfo_` record and its
/// hand-written SQL; the body runs under `#[pg_guard]`, so it may raise
/// ERRORs, and reads its arguments through a [`Call`]. The symbol is the
/// SQL name with `_wrapper` appended (the names pgrx gave the same
/// functions in 0.1.0, which databases created then still refer to).
///
/// ```ignore
/// c_function! {
///     /// `sno_generate(meta int DEFAULT 0) → sno`
///     "sno_generate" requires ["sno_type"] => r#"
/// CREATE FUNCTION sno_generate(meta int DEFAULT 0) RETURNS sno
///     VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_generate_wrapper';
/// "#,
///     |call| { … }
/// }
/// ```
macro_rules! c_function {
    (
        $(#[$attr:meta])*
        $name:literal $(requires [$($requires:tt)*])? => $sql:literal,
        |$fcinfo:ident| $body:block
    ) => {
        ::paste::paste! {
            $(#[$attr])*
            #[::pgrx::pg_guard]
            #[no_mangle]
            pub unsafe extern "C-unwind" fn [<$name _wrapper>](
                fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
            ) -> ::pgrx::pg_sys::Datum {
                // A closure, so that the caller's name for the call is
                // visible in the caller's body.
                let body = |$fcinfo: $crate::c_function::Call<'_>| -> ::pgrx::pg_sys::Datum {
                    $body
                };
                // SAFETY: PostgreSQL calls this symbol as the function
                // declared by the SQL above.
                body(unsafe { $crate::c_function::Call::new(fcinfo) })
            }

            $crate::c_function::finfo!([<$name _wrapper>]);
        }

        ::pgrx::extension_sql!($sql, name = $name $(, requires = [$($requires)*])?);
    };
}
pub(crate) use c_function;

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

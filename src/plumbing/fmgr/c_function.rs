//! The C side of the SQL files (docs/development.md "Layout and tests"): every
//! function of the extension is declared in SQL in one literal file per format,
//! `sql/<format>.sql`, included by [`sql_file!`], which also checks at build time
//! that every symbol the file names (`AS 'MODULE_PATHNAME', '<symbol>'`) is a
//! version-1 function of the including module (the check is written by
//! `build.rs` from the file, so a symbol is never typed twice).
//!
//! The Rust bodies are `#[pg_extern(sql = false)]` functions (symbol: the Rust
//! name with `_wrapper`, which pgrx appends; the symbol is written whole in
//! the function's `#[doc(alias)]`), [`c_function!`]s (symbol: the name given)
//! and the native types' functions of `native_type!` (the symbols given).
//! `build.rs` checks that every symbol a SQL file names is written whole in
//! `src/`, so that grep leads from the SQL to the Rust (docs/development.md
//! "A walk through one call"). A
//! `c_function!` is for the functions whose per-call cost matters (the
//! generators: pgrx's argument and result handling costs more than a step of
//! the generator) and the ones pgrx cannot call (`_parts`, which return one
//! row through OUT parameters).

use crate::plumbing::fmgr::{arg, arg_value};
use pgrx::pg_sys;
use std::marker::PhantomData;

/// One call of a function declared by [`c_function!`], whose arguments are
/// those of its `CREATE FUNCTION` in the format's SQL file, so the body reads
/// its arguments without `unsafe`.
/// `'fcx` is the call's: what it lends (a text argument's bytes) lives no
/// longer.
#[derive(Clone, Copy)]
pub struct Call<'fcx>(pg_sys::FunctionCallInfo, PhantomData<&'fcx ()>);

impl<'fcx> Call<'fcx> {
    /// Only [`c_function!`] makes one.
    ///
    /// # Safety
    /// `fcinfo` is PostgreSQL's, for a call of the function the format's
    /// SQL file declares with this `c_function!`'s symbol.
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
        unsafe { crate::plumbing::fmgr::native_type::datum::varlena_bytes(self.datum(i)) }
    }

    /// Whether argument `i` is the same value at every call of this call
    /// site (a constant, or a parameter of the statement): PostgreSQL's
    /// `get_fn_expr_arg_stable`. Asked once per site: it is a guarded call.
    pub fn argument_is_stable(self, i: usize) -> bool {
        // SAFETY: PostgreSQL's fcinfo (Call::new), whose flinfo is valid.
        unsafe { pg_sys::get_fn_expr_arg_stable((*self.0).flinfo, i as std::ffi::c_int) }
    }

    /// The call site's own `C` (`fn_extra`, in `fn_mcxt`: it lives as long
    /// as the call site, e.g. a query), `None` until `f` stores one. Each
    /// function keeps one type there.
    #[inline]
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
    crate::plumbing::backend::errors::internal(format!(
        "pg_flake: argument {i} read past the function's declared arguments"
    ))
}

/// Declares a version-1 C function and its `pg_finfo_` record; its SQL is in
/// the format's `sql/<format>.sql`. The body runs under [`guarded`], so it
/// may raise ERRORs, and reads its arguments through a [`Call`]. The name
/// given is the symbol, written whole so that grep finds it from the SQL
/// file; it ends in `_wrapper` (the names pgrx gave the same functions in
/// 0.1.0, which databases created then still refer to).
///
/// ```ignore
/// c_function! {
///     /// `sno_generate(meta int DEFAULT 0) → sno`
///     sno_generate_wrapper,
///     |call| { … }
/// }
/// ```
macro_rules! c_function {
    (
        $(#[$attr:meta])*
        $symbol:ident,
        |$fcinfo:ident| $body:block
    ) => {
        $(#[$attr])*
        #[no_mangle]
        pub unsafe extern "C-unwind" fn $symbol(
            fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
        ) -> ::pgrx::pg_sys::Datum {
            // A closure, so that the caller's name for the call is
            // visible in the caller's body.
            let body = |$fcinfo: $crate::plumbing::fmgr::c_function::Call<'_>| -> ::pgrx::pg_sys::Datum {
                $body
            };
            // SAFETY: PostgreSQL calls this symbol as the function
            // declared in the format's SQL file.
            $crate::plumbing::fmgr::c_function::guarded(|| body(unsafe { $crate::plumbing::fmgr::c_function::Call::new(fcinfo) }))
        }

        $crate::plumbing::fmgr::finfo!($symbol);
    };
}
pub(crate) use c_function;

/// Runs the body of a [`c_function!`]: what it raises (an ERROR, which pgrx
/// carries as a panic, or any other panic) reaches PostgreSQL as under
/// `#[pg_guard]`, through pgrx's own guard, which only the unwinding path
/// enters. The returning path costs a landing pad, not pgrx's per-call
/// entry (its thread check and guard frame, about 37 instructions of a
/// generator's 500–650: docs/BENCHMARKS.md "Generation profile"); PostgreSQL
/// calls these functions on its one thread, which the thread check exists to
/// ensure.
#[inline(always)]
pub fn guarded(body: impl FnOnce() -> pg_sys::Datum) -> pg_sys::Datum {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(datum) => datum,
        Err(payload) => report_unwind(payload),
    }
}

/// Hands a caught unwind to pgrx's guard, which reports it to PostgreSQL (an
/// ERROR longjmps out of here; a Rust panic becomes an ERROR, XX000).
#[cold]
#[inline(never)]
fn report_unwind(payload: Box<dyn std::any::Any + Send>) -> ! {
    // SAFETY: called in a version-1 function's frame, as `#[pg_guard]`'s
    // guard is; what the payload carries is reported, never returned.
    unsafe {
        pgrx::pg_sys::submodules::panic::pgrx_extern_c_guard(move || -> () {
            std::panic::resume_unwind(payload)
        })
    };
    unreachable!("pgrx's guard returned from a resumed unwind")
}

/// Includes `sql/<name>.sql` in the extension script, after the files it
/// `requires`, and checks that every C symbol it names is a version-1
/// function (the symbol and its `pg_finfo_` record) of the calling module:
/// `sql_file!("../../sql/sno.sql", name = "sno", creates = [Type(Sno)]);`.
/// A symbol inside a `DO $<cfg>$ … $<cfg>$` block (e.g. `$skip_support$`)
/// is checked only where `build.rs` sets that capability cfg.
macro_rules! sql_file {
    ($path:literal, name = $name:literal $(, $($rest:tt)*)?) => {
        ::pgrx::extension_sql_file!($path, name = $name $(, $($rest)*)?);
        include!(concat!(env!("OUT_DIR"), "/sql_symbols/", $name, ".rs"));
    };
}
pub(crate) use sql_file;

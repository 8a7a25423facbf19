//! Values of a native type as PostgreSQL datums: a pointer to exactly the
//! format's `LEN` big-endian bytes (docs/sql-reference.md "What every native type has").

use crate::plumbing::backend::errors::raise;
use crate::plumbing::backend::ffi::{palloc_or_null, MCXT_ALLOC_NO_OOM};
use flake_core::{FlakeId, TextBuffer, MAX_TEXT_LEN};
use pgrx::pg_sys;

/// A datum pointing at a palloc'd copy of `bytes`.
///
/// Inlined, so that the copy of an ID's few bytes is a couple of moves
/// rather than a call of `memcpy` (docs/BENCHMARKS.md "Generation profile").
#[inline(always)]
pub fn datum_of(bytes: &[u8]) -> pg_sys::Datum {
    // SAFETY: CurrentMemoryContext is always valid inside a function call;
    // the allocation has room for the bytes.
    unsafe {
        let out = palloc_or_null(pg_sys::CurrentMemoryContext, bytes.len(), MCXT_ALLOC_NO_OOM);
        let out = if out.is_null() {
            // Out of memory: the guarded call raises PostgreSQL's ERROR.
            pg_sys::palloc(bytes.len())
        } else {
            out
        };
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), out.cast::<u8>(), bytes.len());
        pg_sys::Datum::from(out)
    }
}

/// A datum pointing at a palloc'd `T` whose bytes are `key`'s low `T::LEN`
/// bytes ([`FlakeId::key`]), for a type of 9 to 16 bytes: written from the
/// integer as two 8-byte stores (the first 8 bytes, the last 8), so that a
/// generated ID goes from registers to its datum without passing through a
/// byte array that the copy would read back across the stores that wrote it
/// (docs/BENCHMARKS.md "Generation profile").
#[inline(always)]
pub fn datum_of_key<T: FlakeId>(key: u128) -> pg_sys::Datum {
    const { assert!(T::LEN > 8 && T::LEN <= 16) };
    let first = ((key << (8 * (16 - T::LEN))) >> 64) as u64;
    let last = key as u64;
    // SAFETY: CurrentMemoryContext is always valid inside a function call;
    // the allocation has room for T::LEN bytes, and T::LEN - 8 + 8 = T::LEN.
    unsafe {
        let out = palloc_or_null(pg_sys::CurrentMemoryContext, T::LEN, MCXT_ALLOC_NO_OOM);
        let out = if out.is_null() {
            // Out of memory: the guarded call raises PostgreSQL's ERROR.
            pg_sys::palloc(T::LEN)
        } else {
            out
        }
        .cast::<u8>();
        out.cast::<[u8; 8]>().write_unaligned(first.to_be_bytes());
        out.add(T::LEN - 8)
            .cast::<[u8; 8]>()
            .write_unaligned(last.to_be_bytes());
        pg_sys::Datum::from(out)
    }
}

/// The bytes `datum` points at.
///
/// # Safety
/// `datum` must point at `T::LEN` readable bytes that outlive the result.
#[inline(always)]
pub unsafe fn bytes_at<'a, T: FlakeId>(datum: pg_sys::Datum) -> &'a [u8] {
    unsafe { std::slice::from_raw_parts(datum.cast_mut_ptr::<u8>() as *const u8, T::LEN) }
}

/// The value a datum of type `T` points at.
///
/// # Safety
/// `datum` must be a non-null datum of the SQL type of `T`.
#[inline]
pub unsafe fn value_at<T: FlakeId>(datum: pg_sys::Datum) -> T {
    T::from_slice(unsafe { bytes_at::<T>(datum) }).unwrap_or_else(|e| raise(e))
}

/// The value a datum of type `T` points at as one big-endian integer, so
/// that integer order is byte order. Every type is at most 16 bytes.
///
/// # Safety
/// `datum` must point at `T::LEN` readable bytes.
#[inline(always)]
pub unsafe fn key_at<T: FlakeId>(datum: pg_sys::Datum) -> u128 {
    const { assert!(T::LEN <= 16) };
    // SAFETY: the caller guarantees T::LEN bytes at datum.
    flake_core::sortkey::key_of(unsafe { bytes_at::<T>(datum) })
}

/// The canonical text form as a palloc'd C string, encoded on the stack (no
/// heap allocation, no formatting).
pub fn text_datum<T: FlakeId>(value: &T) -> pg_sys::Datum {
    let mut text: TextBuffer = [0; MAX_TEXT_LEN];
    let len = value.encode_text(&mut text);
    // SAFETY: CurrentMemoryContext is valid inside a function call; the copy
    // ends with a NUL and the text forms never contain one.
    unsafe {
        let out = pg_sys::palloc(len + 1).cast::<u8>();
        std::ptr::copy_nonoverlapping(text.as_ptr(), out, len);
        *out.add(len) = 0;
        pg_sys::Datum::from(out)
    }
}

/// The `bytea` datum of `bytes`, built directly in PostgreSQL's memory.
pub fn bytea_datum(bytes: &[u8]) -> pg_sys::Datum {
    let size = pg_sys::VARHDRSZ + bytes.len();
    // SAFETY: a fresh palloc of the header and the bytes; set_varsize_4b
    // writes the 4-byte header PostgreSQL expects of a new varlena.
    unsafe {
        let out = pg_sys::palloc(size).cast::<u8>();
        pgrx::set_varsize_4b(out.cast(), size as i32);
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), out.add(pg_sys::VARHDRSZ), bytes.len());
        pg_sys::Datum::from(out)
    }
}

/// The bytes of a `bytea` or `text` datum, detoasted only if it is
/// compressed or stored out of line (as `pg_detoast_datum_packed` would).
///
/// # Safety
/// `datum` must be a non-null `bytea` or `text`; a detoasted copy lives in
/// the current memory context.
pub unsafe fn varlena_bytes<'a>(datum: pg_sys::Datum) -> &'a [u8] {
    unsafe {
        let mut value = datum.cast_mut_ptr::<pg_sys::varlena>();
        if pgrx::varatt_is_1b_e(value) || pgrx::varatt_is_4b_c(value) {
            value = pg_sys::pg_detoast_datum_packed(value);
        }
        pgrx::varlena_to_byte_slice(value)
    }
}

/// The pgrx traits of a native type's SQL-facing newtype `$name` (a value
/// of the core type `$core`, the SQL type `$sql`), so that `#[pg_extern]`
/// functions take and return it as a datum of [`datum_of`]. Generates no
/// symbol.
macro_rules! datum_traits {
    ($name:ident, $core:ty, $sql:ident) => {
        impl ::pgrx::IntoDatum for $name {
            #[inline]
            fn into_datum(self) -> Option<::pgrx::pg_sys::Datum> {
                Some($crate::plumbing::fmgr::native_type::datum::datum_of(
                    ::flake_core::FlakeId::bytes(&self.0),
                ))
            }
            fn type_oid() -> ::pgrx::pg_sys::Oid {
                ::pgrx::wrappers::rust_regtypein::<Self>()
            }
        }

        impl ::pgrx::FromDatum for $name {
            #[inline]
            unsafe fn from_polymorphic_datum(
                datum: ::pgrx::pg_sys::Datum,
                is_null: bool,
                _typoid: ::pgrx::pg_sys::Oid,
            ) -> Option<Self> {
                (!is_null).then(|| {
                    $name(unsafe {
                        $crate::plumbing::fmgr::native_type::datum::value_at::<$core>(datum)
                    })
                })
            }
        }

        unsafe impl<'fcx> ::pgrx::callconv::ArgAbi<'fcx> for $name {
            unsafe fn unbox_arg_unchecked(arg: ::pgrx::callconv::Arg<'_, 'fcx>) -> Self {
                let index = arg.index();
                unsafe { arg.unbox_arg_using_from_datum() }.unwrap_or_else(|| {
                    $crate::plumbing::backend::errors::internal(format!(
                        "argument {index} must not be null"
                    ))
                })
            }
            unsafe fn unbox_nullable_arg(
                arg: ::pgrx::callconv::Arg<'_, 'fcx>,
            ) -> ::pgrx::nullable::Nullable<Self> {
                unsafe { arg.unbox_arg_using_from_datum() }.into()
            }
        }

        unsafe impl ::pgrx::callconv::BoxRet for $name {
            unsafe fn box_into<'fcx>(
                self,
                fcinfo: &mut ::pgrx::callconv::FcInfo<'fcx>,
            ) -> ::pgrx::datum::Datum<'fcx> {
                let datum = $crate::plumbing::fmgr::native_type::datum::datum_of(
                    ::flake_core::FlakeId::bytes(&self.0),
                );
                unsafe { fcinfo.return_raw_datum(datum) }
            }
        }

        unsafe impl ::pgrx::pgrx_sql_entity_graph::metadata::SqlTranslatable for $name {
            const TYPE_IDENT: &'static str = ::pgrx::pgrx_resolved_type!($name);
            const TYPE_ORIGIN: ::pgrx::pgrx_sql_entity_graph::metadata::TypeOrigin =
                ::pgrx::pgrx_sql_entity_graph::metadata::TypeOrigin::ThisExtension;
            const ARGUMENT_SQL: Result<
                ::pgrx::pgrx_sql_entity_graph::metadata::SqlMappingRef,
                ::pgrx::pgrx_sql_entity_graph::metadata::ArgumentError,
            > = Ok(
                ::pgrx::pgrx_sql_entity_graph::metadata::SqlMappingRef::literal(stringify!($sql)),
            );
            const RETURN_SQL: Result<
                ::pgrx::pgrx_sql_entity_graph::metadata::ReturnsRef,
                ::pgrx::pgrx_sql_entity_graph::metadata::ReturnsError,
            > = Ok(::pgrx::pgrx_sql_entity_graph::metadata::ReturnsRef::One(
                ::pgrx::pgrx_sql_entity_graph::metadata::SqlMappingRef::literal(stringify!($sql)),
            ));
        }
    };
}
pub(crate) use datum_traits;

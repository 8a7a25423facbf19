//! Values of a native type as PostgreSQL datums: a pointer to exactly the
//! format's `LEN` big-endian bytes (docs/sql-reference.md "What every native type has").

use crate::errors::raise;
use crate::ffi::{palloc_or_null, MCXT_ALLOC_NO_OOM};
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
    let mut wide = [0u8; 16];
    // SAFETY: the caller guarantees T::LEN bytes at datum; wide has room.
    unsafe {
        std::ptr::copy_nonoverlapping(
            datum.cast_mut_ptr::<u8>() as *const u8,
            wide.as_mut_ptr().add(16 - T::LEN),
            T::LEN,
        )
    };
    u128::from_be_bytes(wide)
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

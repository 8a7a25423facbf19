//! The one mechanism behind every native type (`sql-api.md` §1): a
//! fixed-length, pass-by-reference value holding exactly the format's
//! big-endian bytes, so `memcmp` order is the format's sort order.
//!
//! `flake_type!` declares the Rust side of a type (datum conversion, text and
//! binary I/O, comparison, hashing, sortsupport, bytea casts); `FLAKE_TYPES`
//! below turns each declared type into SQL (the type itself, operators,
//! btree/hash/BRIN operator classes, `min`/`max`, casts) from one template.
//!
//! The functions PostgreSQL calls per value or per comparison (text I/O,
//! `= <> < <= > >=`, `T_cmp`, `T_hash*`, `T_smaller`/`T_larger`) are plain
//! version-1 C functions (`raw_functions!`) declared by the template, not
//! `#[pg_extern]`s: pgrx's argument and result handling costs more than the
//! comparison itself (about 30 ns against 2 ns for `uuid_lt`). Those that
//! cannot fail touch nothing but their arguments; text I/O runs under
//! `#[pg_guard]`, as every function that may raise an ERROR must.
//!
//! Their C symbols keep the names pgrx gave the same functions in 0.1.0
//! (`sno_in_wrapper`, `sno_generate_wrapper`, …): a database that created
//! the extension at 0.1.0 refers to them by those names, so the catalog of
//! 0.1.0 stays valid with this library and needs no upgrade script
//! (`tests/regress/sql/catalog.sql` pins that catalog).

use crate::errors::{raise, OrRaise};
use flake_core::sortkey::Abbreviator;
use flake_core::{Error, FlakeId, TextBuffer, MAX_TEXT_LEN};
use pgrx::prelude::*;
use std::ffi::{c_int, c_void, CStr};

/// How a type reads `bytea::T`: the binary wire format (`FlakeId::from_wire`,
/// what `receive` reads: exactly the value's bytes, 22P03 otherwise, and a
/// value of the type) unless the format also accepts another layout in a
/// `bytea` (SIQ's 16-byte ORM form); the wire format never does.
pub trait FromBinary: FlakeId {
    fn from_bytea(bytes: &[u8]) -> flake_core::Result<Self> {
        Self::from_wire(bytes)
    }
}

/// A datum pointing at a palloc'd copy of `bytes`.
#[inline]
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

const MCXT_ALLOC_NO_OOM: c_int = pg_sys::MCXT_ALLOC_NO_OOM as c_int;

extern "C" {
    // PostgreSQL's allocator called without pgrx's guard (its `sigsetjmp`
    // and thread check cost as much as the allocation): with
    // MCXT_ALLOC_NO_OOM and a small size it cannot raise, it returns NULL.
    #[link_name = "MemoryContextAllocExtended"]
    fn palloc_or_null(
        context: pg_sys::MemoryContext,
        size: usize,
        flags: c_int,
    ) -> *mut std::ffi::c_void;
}

/// The value a datum of type `T` points at.
///
/// # Safety
/// `datum` must be a non-null datum of the SQL type of `T`.
#[inline]
pub unsafe fn value_at<T: FlakeId>(datum: pg_sys::Datum) -> T {
    let bytes = std::slice::from_raw_parts(datum.cast_mut_ptr::<u8>() as *const u8, T::LEN);
    T::from_slice(bytes).unwrap_or_else(|e| raise(e))
}

/// Type input: the canonical text form, strictly.
pub fn parse_text<T: FlakeId>(input: &CStr) -> T {
    match input.to_str() {
        Ok(text) => text.parse().or_raise(),
        Err(_) => raise(Error::InvalidText {
            type_name: T::TYPE_NAME,
            input: input.to_string_lossy().into_owned(),
            expected: "its canonical text form (ASCII)",
        }),
    }
}

/// Type output: the canonical text form as a palloc'd C string, encoded on
/// the stack (no heap allocation, no formatting).
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

/// A `bytea` result built directly in PostgreSQL's memory (a `Vec<u8>`
/// result would be a heap allocation and a copy more).
pub struct Bytea(pg_sys::Datum);

/// The `bytea` of `bytes`.
pub fn bytea_of(bytes: &[u8]) -> Bytea {
    let size = pg_sys::VARHDRSZ + bytes.len();
    // SAFETY: a fresh palloc of the header and the bytes; set_varsize_4b
    // writes the 4-byte header PostgreSQL expects of a new varlena.
    unsafe {
        let out = pg_sys::palloc(size).cast::<u8>();
        pgrx::set_varsize_4b(out.cast(), size as i32);
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), out.add(pg_sys::VARHDRSZ), bytes.len());
        Bytea(pg_sys::Datum::from(out))
    }
}

unsafe impl pgrx::callconv::BoxRet for Bytea {
    unsafe fn box_into<'fcx>(
        self,
        fcinfo: &mut pgrx::callconv::FcInfo<'fcx>,
    ) -> pgrx::datum::Datum<'fcx> {
        unsafe { fcinfo.return_raw_datum(self.0) }
    }
}

unsafe impl pgrx::pgrx_sql_entity_graph::metadata::SqlTranslatable for Bytea {
    const TYPE_IDENT: &'static str = pgrx::pgrx_resolved_type!(Bytea);
    const TYPE_ORIGIN: pgrx::pgrx_sql_entity_graph::metadata::TypeOrigin =
        pgrx::pgrx_sql_entity_graph::metadata::TypeOrigin::External;
    const ARGUMENT_SQL: Result<
        pgrx::pgrx_sql_entity_graph::metadata::SqlMappingRef,
        pgrx::pgrx_sql_entity_graph::metadata::ArgumentError,
    > = Err(pgrx::pgrx_sql_entity_graph::metadata::ArgumentError::NotValidAsArgument("bytea"));
    const RETURN_SQL: Result<
        pgrx::pgrx_sql_entity_graph::metadata::ReturnsRef,
        pgrx::pgrx_sql_entity_graph::metadata::ReturnsError,
    > = Ok(pgrx::pgrx_sql_entity_graph::metadata::ReturnsRef::One(
        pgrx::pgrx_sql_entity_graph::metadata::SqlMappingRef::literal("bytea"),
    ));
}

/// Binary input: the rest of the message must be exactly the value's bytes.
pub fn receive<T: FromBinary>(mut buf: pgrx::Internal) -> T {
    // SAFETY: PostgreSQL passes a StringInfo as the receive function's argument.
    unsafe {
        let buf = buf
            .get_mut::<pg_sys::StringInfoData>()
            .unwrap_or_else(|| pgrx::error!("{}_recv called without a buffer", T::TYPE_NAME));
        let remaining = (buf.len - buf.cursor).max(0) as usize;
        let start = buf.data.add(buf.cursor as usize) as *const u8;
        let value = T::from_wire(std::slice::from_raw_parts(start, remaining)).or_raise();
        buf.cursor = buf.len;
        value
    }
}

extern "C-unwind" {
    // PostgreSQL's own byte hash, the one `uuid_hash` uses: its results are
    // stable across versions, which hash partitions and shards rely on.
    fn hash_bytes(k: *const u8, keylen: c_int) -> u32;
    fn hash_bytes_extended(k: *const u8, keylen: c_int, seed: u64) -> u64;
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

/// Argument `i` of a version-1 call.
///
/// # Safety
/// `fcinfo` must be a call with more than `i` arguments.
#[inline(always)]
pub unsafe fn arg(fcinfo: pg_sys::FunctionCallInfo, i: usize) -> pg_sys::Datum {
    unsafe { (*(*fcinfo).args.as_ptr().add(i)).value }
}

/// The value of argument `i`, for the strict functions of a type `T`.
///
/// # Safety
/// As [`arg`], and the argument must be a non-null `T`.
#[inline(always)]
pub unsafe fn key_arg<T: FlakeId>(fcinfo: pg_sys::FunctionCallInfo, i: usize) -> u128 {
    unsafe { key_at::<T>(arg(fcinfo, i)) }
}

/// The bytes `datum` points at.
///
/// # Safety
/// `datum` must point at `T::LEN` readable bytes that outlive the result.
#[inline(always)]
pub unsafe fn bytes_at<'a, T: FlakeId>(datum: pg_sys::Datum) -> &'a [u8] {
    unsafe { std::slice::from_raw_parts(datum.cast_mut_ptr::<u8>() as *const u8, T::LEN) }
}

/// `T_hash`: PostgreSQL's `hash_bytes` over the value's bytes.
///
/// # Safety
/// `datum` must point at a `T`.
pub unsafe fn hash_at<T: FlakeId>(datum: pg_sys::Datum) -> pg_sys::Datum {
    // SAFETY: hash_bytes reads exactly T::LEN bytes and cannot fail.
    unsafe {
        let h = hash_bytes(bytes_at::<T>(datum).as_ptr(), T::LEN as c_int);
        pg_sys::Datum::from(h as i32)
    }
}

/// `T_hash_extended`: `hash_bytes_extended` with the given seed.
///
/// # Safety
/// `datum` must point at a `T`.
pub unsafe fn hash_extended_at<T: FlakeId>(
    datum: pg_sys::Datum,
    seed: pg_sys::Datum,
) -> pg_sys::Datum {
    // SAFETY: as hash_at.
    unsafe {
        let h = hash_bytes_extended(
            bytes_at::<T>(datum).as_ptr(),
            T::LEN as c_int,
            seed.value() as u64,
        );
        pg_sys::Datum::from(h as i64)
    }
}

/// Type input under `#[pg_guard]`: argument 0 is the C string.
///
/// # Safety
/// `fcinfo` must be a call of the type's input function.
pub unsafe fn input<T: FlakeId>(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: PostgreSQL passes a NUL-terminated string.
    let text = unsafe { CStr::from_ptr(arg(fcinfo, 0).cast_mut_ptr::<std::ffi::c_char>()) };
    datum_of(parse_text::<T>(text).bytes())
}

/// Type output under `#[pg_guard]`.
///
/// # Safety
/// `fcinfo` must be a call of the type's output function.
pub unsafe fn output<T: FlakeId>(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: the argument of a strict output function is a T.
    text_datum(&unsafe { value_at::<T>(arg(fcinfo, 0)) })
}

/// Declares the version-1 C functions of a native type (see the module
/// documentation): `raw_functions!(Sno, sno)` makes the symbols `sno_in`,
/// `sno_out`, `sno_eq` … `sno_cmp`, `sno_smaller`, `sno_larger`, `sno_hash`
/// and `sno_hash_extended` that `FLAKE_TYPES` declares in SQL.
macro_rules! raw_functions {
    ($core:ty, $sql:ident) => {
        $crate::fixed_type::raw_functions!(@finfo $sql,
            _in _out _eq _ne _lt _le _gt _ge _cmp _smaller _larger _hash _hash_extended);

        ::paste::paste! {
            #[::pgrx::pg_guard]
            #[no_mangle]
            pub unsafe extern "C-unwind" fn [<$sql _in_wrapper>](
                fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
            ) -> ::pgrx::pg_sys::Datum {
                unsafe { $crate::fixed_type::input::<$core>(fcinfo) }
            }

            #[::pgrx::pg_guard]
            #[no_mangle]
            pub unsafe extern "C-unwind" fn [<$sql _out_wrapper>](
                fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
            ) -> ::pgrx::pg_sys::Datum {
                unsafe { $crate::fixed_type::output::<$core>(fcinfo) }
            }
        }

        $crate::fixed_type::raw_functions!(@compare $core, $sql,
            _eq: |a, b| ::pgrx::pg_sys::Datum::from(a == b),
            _ne: |a, b| ::pgrx::pg_sys::Datum::from(a != b),
            _lt: |a, b| ::pgrx::pg_sys::Datum::from(a < b),
            _le: |a, b| ::pgrx::pg_sys::Datum::from(a <= b),
            _gt: |a, b| ::pgrx::pg_sys::Datum::from(a > b),
            _ge: |a, b| ::pgrx::pg_sys::Datum::from(a >= b),
            _cmp: |a, b| ::pgrx::pg_sys::Datum::from(a.cmp(&b) as i32)
        );

        ::paste::paste! {
            /// `min`: one of the arguments, as PostgreSQL's own `*_smaller` do.
            #[no_mangle]
            pub unsafe extern "C-unwind" fn [<$sql _smaller_wrapper>](
                fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
            ) -> ::pgrx::pg_sys::Datum {
                unsafe {
                    use $crate::fixed_type::{arg, key_arg};
                    let smaller = key_arg::<$core>(fcinfo, 0) <= key_arg::<$core>(fcinfo, 1);
                    arg(fcinfo, if smaller { 0 } else { 1 })
                }
            }

            #[no_mangle]
            pub unsafe extern "C-unwind" fn [<$sql _larger_wrapper>](
                fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
            ) -> ::pgrx::pg_sys::Datum {
                unsafe {
                    use $crate::fixed_type::{arg, key_arg};
                    let larger = key_arg::<$core>(fcinfo, 0) >= key_arg::<$core>(fcinfo, 1);
                    arg(fcinfo, if larger { 0 } else { 1 })
                }
            }

            #[no_mangle]
            pub unsafe extern "C-unwind" fn [<$sql _hash_wrapper>](
                fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
            ) -> ::pgrx::pg_sys::Datum {
                unsafe { $crate::fixed_type::hash_at::<$core>($crate::fixed_type::arg(fcinfo, 0)) }
            }

            #[no_mangle]
            pub unsafe extern "C-unwind" fn [<$sql _hash_extended_wrapper>](
                fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
            ) -> ::pgrx::pg_sys::Datum {
                unsafe {
                    use $crate::fixed_type::{arg, hash_extended_at};
                    hash_extended_at::<$core>(arg(fcinfo, 0), arg(fcinfo, 1))
                }
            }
        }
    };
    (@compare $core:ty, $sql:ident, $($suffix:ident: |$a:ident, $b:ident| $body:expr),*) => {
        ::paste::paste! {
            $(
                #[no_mangle]
                pub unsafe extern "C-unwind" fn [<$sql $suffix _wrapper>](
                    fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
                ) -> ::pgrx::pg_sys::Datum {
                    // SAFETY: a strict function of two T arguments.
                    let ($a, $b) = unsafe {
                        (
                            $crate::fixed_type::key_arg::<$core>(fcinfo, 0),
                            $crate::fixed_type::key_arg::<$core>(fcinfo, 1),
                        )
                    };
                    $body
                }
            )*
        }
    };
    (@finfo $sql:ident, $($suffix:ident)*) => {
        ::paste::paste! {
            $(
                #[no_mangle]
                #[doc(hidden)]
                pub extern "C" fn [<pg_finfo_ $sql $suffix _wrapper>]() -> &'static ::pgrx::pg_sys::Pg_finfo_record {
                    const V1: ::pgrx::pg_sys::Pg_finfo_record =
                        ::pgrx::pg_sys::Pg_finfo_record { api_version: 1 };
                    &V1
                }
            )*
        }
    };
}
pub(crate) use raw_functions;

/// Declares a version-1 C function and its `pg_finfo_` record, its body
/// run under `#[pg_guard]` (so it may raise ERRORs), for the functions whose
/// per-call cost matters most (the generators); the SQL declaring it goes in
/// an `extension_sql!`:
///
/// ```ignore
/// v1_function! {
///     /// `sno_generate(meta int DEFAULT 0) → sno`
///     fn sno_generate(fcinfo) { … }
/// }
/// ```
macro_rules! v1_function {
    ($(#[$attr:meta])* fn $name:ident($fcinfo:ident) { $($body:tt)* }) => {
        ::paste::paste! {
            $(#[$attr])*
            #[::pgrx::pg_guard]
            #[no_mangle]
            pub unsafe extern "C-unwind" fn [<$name _wrapper>](
                fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
            ) -> ::pgrx::pg_sys::Datum {
                // A closure, so that the caller's name for the argument is
                // visible in the caller's body.
                let body = |$fcinfo: ::pgrx::pg_sys::FunctionCallInfo| -> ::pgrx::pg_sys::Datum {
                    $($body)*
                };
                body(fcinfo)
            }

            #[no_mangle]
            #[doc(hidden)]
            pub extern "C" fn [<pg_finfo_ $name _wrapper>]() -> &'static ::pgrx::pg_sys::Pg_finfo_record {
                const V1: ::pgrx::pg_sys::Pg_finfo_record =
                    ::pgrx::pg_sys::Pg_finfo_record { api_version: 1 };
                &V1
            }
        }
    };
}
pub(crate) use v1_function;

/// Argument 0 of a call as the bytes of a `text`, detoasted only if it is
/// compressed or stored out of line (as `pg_detoast_datum_packed` would).
///
/// # Safety
/// Argument 0 must be a non-null `text`.
pub unsafe fn text_arg<'a>(fcinfo: pg_sys::FunctionCallInfo) -> &'a [u8] {
    // SAFETY: a text datum; a detoasted copy lives in the call's context.
    unsafe {
        let mut text = arg(fcinfo, 0).cast_mut_ptr::<pg_sys::varlena>();
        if pgrx::varatt_is_1b_e(text) || pgrx::varatt_is_4b_c(text) {
            text = pg_sys::pg_detoast_datum_packed(text);
        }
        pgrx::varlena_to_byte_slice(text)
    }
}

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
        let abbreviator = state.get_or_insert_with(|| Abbreviator::new(value));
        pg_sys::Datum::from(abbreviator.abbreviate(value) as usize)
    }
}

/// Abbreviations of time-ordered keys relative to a base are nearly all
/// distinct, and a tie costs one full comparison of at most 16 bytes:
/// abbreviation always pays off, so it is never abandoned.
unsafe extern "C-unwind" fn keep_abbreviating(_count: c_int, _ssup: pg_sys::SortSupport) -> bool {
    false
}

#[cfg(not(any(feature = "pg13", feature = "pg14")))]
extern "C-unwind" {
    // The C function itself: a Rust comparator of abbreviated keys is slower
    // than core's, and pgrx's `pg_sys::ssup_datum_unsigned_cmp` is a wrapper.
    #[link_name = "ssup_datum_unsigned_cmp"]
    fn ssup_datum_unsigned_cmp_c(
        x: pg_sys::Datum,
        y: pg_sys::Datum,
        ssup: pg_sys::SortSupport,
    ) -> c_int;
}

#[cfg(any(feature = "pg13", feature = "pg14"))]
unsafe extern "C-unwind" fn ssup_datum_unsigned_cmp_c(
    x: pg_sys::Datum,
    y: pg_sys::Datum,
    _ssup: pg_sys::SortSupport,
) -> c_int {
    x.value().cmp(&y.value()) as c_int
}

/// Btree support function 2.
pub fn sortsupport<T: FlakeId>(mut ssup: pgrx::Internal) {
    // SAFETY: PostgreSQL passes a SortSupport as the argument.
    unsafe {
        let Some(ssup) = ssup.get_mut::<pg_sys::SortSupportData>() else {
            pgrx::error!("{}_sortsupport called without SortSupport", T::TYPE_NAME);
        };
        ssup.comparator = Some(compare_keys::<T>);
        if ssup.abbreviate && std::mem::size_of::<pg_sys::Datum>() == 8 {
            let state = new_sort_abbreviator::<T>(ssup.ssup_cxt);
            ssup.ssup_extra = state.cast::<c_void>();
            ssup.abbrev_converter = Some(abbreviate::<T>);
            ssup.abbrev_abort = Some(keep_abbreviating);
            ssup.abbrev_full_comparator = Some(compare_keys::<T>);
            ssup.comparator = Some(ssup_datum_unsigned_cmp_c);
        }
    }
}

/// The result of a function declared in SQL with OUT parameters: one row.
pub struct OutRecord(pg_sys::Datum);

unsafe impl pgrx::callconv::BoxRet for OutRecord {
    unsafe fn box_into<'fcx>(
        self,
        fcinfo: &mut pgrx::callconv::FcInfo<'fcx>,
    ) -> pgrx::datum::Datum<'fcx> {
        unsafe { fcinfo.return_raw_datum(self.0) }
    }
}

unsafe impl pgrx::pgrx_sql_entity_graph::metadata::SqlTranslatable for OutRecord {
    const TYPE_IDENT: &'static str = pgrx::pgrx_resolved_type!(OutRecord);
    const TYPE_ORIGIN: pgrx::pgrx_sql_entity_graph::metadata::TypeOrigin =
        pgrx::pgrx_sql_entity_graph::metadata::TypeOrigin::External;
    const ARGUMENT_SQL: Result<
        pgrx::pgrx_sql_entity_graph::metadata::SqlMappingRef,
        pgrx::pgrx_sql_entity_graph::metadata::ArgumentError,
    > = Err(pgrx::pgrx_sql_entity_graph::metadata::ArgumentError::NotValidAsArgument("record"));
    const RETURN_SQL: Result<
        pgrx::pgrx_sql_entity_graph::metadata::ReturnsRef,
        pgrx::pgrx_sql_entity_graph::metadata::ReturnsError,
    > = Ok(pgrx::pgrx_sql_entity_graph::metadata::ReturnsRef::One(
        pgrx::pgrx_sql_entity_graph::metadata::SqlMappingRef::literal("record"),
    ));
}

/// A one-row record for a function declared with OUT parameters.
pub fn out_record(fcinfo: pg_sys::FunctionCallInfo, values: &[Option<pg_sys::Datum>]) -> OutRecord {
    // SAFETY: fcinfo is the current call's; the function is declared in SQL
    // with OUT parameters matching `values` in number and types.
    unsafe {
        let mut tupdesc: pg_sys::TupleDesc = std::ptr::null_mut();
        let class = pg_sys::get_call_result_type(fcinfo, std::ptr::null_mut(), &mut tupdesc);
        if class != pg_sys::TypeFuncClass::TYPEFUNC_COMPOSITE || tupdesc.is_null() {
            pgrx::error!(
                "pg_flake: function returning a record called in a context that cannot accept it"
            );
        }
        let tupdesc = pg_sys::BlessTupleDesc(tupdesc);
        let mut datums: Vec<pg_sys::Datum> = values
            .iter()
            .map(|v| v.unwrap_or(pg_sys::Datum::from(0usize)))
            .collect();
        let mut nulls: Vec<bool> = values.iter().map(Option::is_none).collect();
        let tuple = pg_sys::heap_form_tuple(tupdesc, datums.as_mut_ptr(), nulls.as_mut_ptr());
        OutRecord(pg_sys::HeapTupleHeaderGetDatum((*tuple).t_data))
    }
}

/// Declares the Rust side of a native type: `flake_type!(Sno, flake_core::sno::Sno, sno)`
/// makes the SQL-facing newtype `Sno`, the C functions of `raw_functions!`
/// (`sno_in`, `sno_out`, `sno_eq` … `sno_cmp`, `sno_smaller`, `sno_larger`,
/// `sno_hash`, `sno_hash_extended`) and the `#[pg_extern]`s `sno_recv`,
/// `sno_send`, `sno_sortsupport`, `sno_to_bytea` and `sno_from_bytea`. The
/// SQL that declares and uses them comes from `FLAKE_TYPES`.
macro_rules! flake_type {
    ($name:ident, $core:ty, $sql:ident) => {
        ::paste::paste! {
            #[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
            #[repr(transparent)]
            pub struct $name(pub $core);

            impl ::pgrx::IntoDatum for $name {
                #[inline]
                fn into_datum(self) -> Option<::pgrx::pg_sys::Datum> {
                    Some($crate::fixed_type::datum_of(::flake_core::FlakeId::bytes(&self.0)))
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
                    (!is_null).then(|| $name($crate::fixed_type::value_at::<$core>(datum)))
                }
            }

            unsafe impl<'fcx> ::pgrx::callconv::ArgAbi<'fcx> for $name {
                unsafe fn unbox_arg_unchecked(arg: ::pgrx::callconv::Arg<'_, 'fcx>) -> Self {
                    let index = arg.index();
                    unsafe { arg.unbox_arg_using_from_datum() }
                        .unwrap_or_else(|| ::pgrx::error!("argument {index} must not be null"))
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
                    let datum = $crate::fixed_type::datum_of(::flake_core::FlakeId::bytes(&self.0));
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
                > = Ok(::pgrx::pgrx_sql_entity_graph::metadata::SqlMappingRef::literal(
                    stringify!($sql),
                ));
                const RETURN_SQL: Result<
                    ::pgrx::pgrx_sql_entity_graph::metadata::ReturnsRef,
                    ::pgrx::pgrx_sql_entity_graph::metadata::ReturnsError,
                > = Ok(::pgrx::pgrx_sql_entity_graph::metadata::ReturnsRef::One(
                    ::pgrx::pgrx_sql_entity_graph::metadata::SqlMappingRef::literal(stringify!($sql)),
                ));
            }

            $crate::fixed_type::raw_functions!($core, $sql);

            #[pg_extern(immutable, parallel_safe, strict)]
            fn [<$sql _recv>](buf: ::pgrx::Internal) -> $name {
                $name($crate::fixed_type::receive(buf))
            }

            #[pg_extern(immutable, parallel_safe, strict)]
            fn [<$sql _send>](id: $name) -> $crate::fixed_type::Bytea {
                $crate::fixed_type::bytea_of(::flake_core::FlakeId::bytes(&id.0))
            }

            #[pg_extern(immutable, parallel_safe, strict)]
            fn [<$sql _to_bytea>](id: $name) -> $crate::fixed_type::Bytea {
                $crate::fixed_type::bytea_of(::flake_core::FlakeId::bytes(&id.0))
            }

            #[pg_extern(immutable, parallel_safe, strict)]
            fn [<$sql _from_bytea>](bytes: &[u8]) -> $name {
                use $crate::errors::OrRaise;
                $name(<$core as $crate::fixed_type::FromBinary>::from_bytea(bytes).or_raise())
            }

            // Declared last and requiring the others, so that `FLAKE_TYPES`
            // can depend on this one function per type.
            #[pg_extern(immutable, parallel_safe, strict, requires = [
                [<$sql _recv>], [<$sql _send>], [<$sql _to_bytea>], [<$sql _from_bytea>]
            ])]
            fn [<$sql _sortsupport>](ssup: ::pgrx::Internal) {
                $crate::fixed_type::sortsupport::<$core>(ssup)
            }
        }
    };
}
pub(crate) use flake_type;

// Every native type's SQL, from one template: `%1$s` is the type name, `%2$s`
// its length in bytes. To add a type, declare it with `flake_type!`, add a
// row to the VALUES list and its `_sortsupport` to `requires`.
pgrx::extension_sql!(
    r#"
DO $flake_types$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT * FROM (VALUES ('sno', 10), ('siq', 14), ('flaxid', 12), ('kuid96', 12),
                                   ('distributed_id', 12))
             AS v(name, len) LOOP
        EXECUTE format($ddl$
CREATE FUNCTION %1$s_in(input cstring) RETURNS %1$s
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', '%1$s_in_wrapper';
CREATE FUNCTION %1$s_out(id %1$s) RETURNS cstring
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', '%1$s_out_wrapper';

CREATE TYPE %1$s (
    INTERNALLENGTH = %2$s,
    INPUT = %1$s_in, OUTPUT = %1$s_out,
    RECEIVE = %1$s_recv, SEND = %1$s_send,
    ALIGNMENT = char, STORAGE = plain
);

CREATE FUNCTION %1$s_eq(a %1$s, b %1$s) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', '%1$s_eq_wrapper';
CREATE FUNCTION %1$s_ne(a %1$s, b %1$s) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', '%1$s_ne_wrapper';
CREATE FUNCTION %1$s_lt(a %1$s, b %1$s) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', '%1$s_lt_wrapper';
CREATE FUNCTION %1$s_le(a %1$s, b %1$s) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', '%1$s_le_wrapper';
CREATE FUNCTION %1$s_gt(a %1$s, b %1$s) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', '%1$s_gt_wrapper';
CREATE FUNCTION %1$s_ge(a %1$s, b %1$s) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', '%1$s_ge_wrapper';
CREATE FUNCTION %1$s_cmp(a %1$s, b %1$s) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', '%1$s_cmp_wrapper';
CREATE FUNCTION %1$s_smaller(a %1$s, b %1$s) RETURNS %1$s
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', '%1$s_smaller_wrapper';
CREATE FUNCTION %1$s_larger(a %1$s, b %1$s) RETURNS %1$s
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', '%1$s_larger_wrapper';
CREATE FUNCTION %1$s_hash(id %1$s) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', '%1$s_hash_wrapper';
CREATE FUNCTION %1$s_hash_extended(id %1$s, seed bigint) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', '%1$s_hash_extended_wrapper';

CREATE OPERATOR = (
    LEFTARG = %1$s, RIGHTARG = %1$s, FUNCTION = %1$s_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
    LEFTARG = %1$s, RIGHTARG = %1$s, FUNCTION = %1$s_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
    LEFTARG = %1$s, RIGHTARG = %1$s, FUNCTION = %1$s_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
    LEFTARG = %1$s, RIGHTARG = %1$s, FUNCTION = %1$s_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
    LEFTARG = %1$s, RIGHTARG = %1$s, FUNCTION = %1$s_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
    LEFTARG = %1$s, RIGHTARG = %1$s, FUNCTION = %1$s_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE OPERATOR CLASS %1$s_ops DEFAULT FOR TYPE %1$s USING btree AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 %1$s_cmp(%1$s, %1$s),
    FUNCTION 2 %1$s_sortsupport(internal),
    FUNCTION 4 btequalimage(oid);

CREATE OPERATOR CLASS %1$s_hash_ops DEFAULT FOR TYPE %1$s USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 %1$s_hash(%1$s),
    FUNCTION 2 %1$s_hash_extended(%1$s, int8);

CREATE OPERATOR CLASS %1$s_minmax_ops DEFAULT FOR TYPE %1$s USING brin AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 brin_minmax_opcinfo(internal),
    FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
    FUNCTION 4 brin_minmax_union(internal, internal, internal);

CREATE AGGREGATE min(%1$s) (
    SFUNC = %1$s_smaller, STYPE = %1$s, COMBINEFUNC = %1$s_smaller,
    SORTOP = <, PARALLEL = SAFE
);
CREATE AGGREGATE max(%1$s) (
    SFUNC = %1$s_larger, STYPE = %1$s, COMBINEFUNC = %1$s_larger,
    SORTOP = >, PARALLEL = SAFE
);

CREATE CAST (%1$s AS bytea) WITH FUNCTION %1$s_to_bytea(%1$s);
CREATE CAST (bytea AS %1$s) WITH FUNCTION %1$s_from_bytea(bytea);
$ddl$, t.name, t.len);
    END LOOP;
END
$flake_types$;
"#,
    name = "flake_types",
    requires = [
        sno::sno_sortsupport,
        siq::siq_sortsupport,
        flaxid::flaxid_sortsupport,
        kuid::kuid96_sortsupport,
        distributed_id::distributed_id_sortsupport
    ]
);

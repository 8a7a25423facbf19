//! The one mechanism behind every native type (`sql-api.md` §1): a
//! fixed-length, pass-by-reference value holding exactly the format's
//! big-endian bytes, so `memcmp` order is the format's sort order.
//!
//! `flake_type!` declares the Rust side of a type (datum conversion, text and
//! binary I/O, comparison, hashing, sortsupport, bytea casts); `FLAKE_TYPES`
//! below turns each declared type into SQL (the type itself, operators,
//! btree/hash/BRIN operator classes, `min`/`max`, casts) from one template.

use crate::errors::{raise, OrRaise};
use flake_core::{Error, FlakeId};
use pgrx::prelude::*;
use pgrx::PgMemoryContexts;
use std::ffi::{c_int, CStr};
use std::fmt::Write;

/// How a type reads raw bytes from outside: the binary wire format
/// (`receive`, so `COPY … (FORMAT binary)` and binary-protocol drivers) and
/// `bytea::T`.
///
/// `from_wire` is exactly the value's bytes (22P03 otherwise), checked where
/// not every byte string of that length is a value of the type (a
/// distributed_id above 10^28−1 is 22003). `from_bytea` is `from_wire` unless
/// the format also accepts another layout in a `bytea` (SIQ's 16-byte ORM
/// form); the wire format never does.
pub trait FromBinary: FlakeId {
    fn from_wire(bytes: &[u8]) -> flake_core::Result<Self> {
        Self::from_slice(bytes)
    }
    fn from_bytea(bytes: &[u8]) -> flake_core::Result<Self> {
        Self::from_wire(bytes)
    }
}

/// A datum pointing at a palloc'd copy of `bytes`.
#[inline]
pub fn datum_of(bytes: &[u8]) -> pg_sys::Datum {
    // SAFETY: CurrentMemoryContext is always valid inside a function call.
    let out = unsafe { PgMemoryContexts::CurrentMemoryContext.palloc_slice::<u8>(bytes.len()) };
    out.copy_from_slice(bytes);
    pg_sys::Datum::from(out.as_mut_ptr())
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

/// Type output: the canonical text form as a palloc'd C string.
pub fn text_of<T: FlakeId>(value: &T) -> &'static CStr {
    let mut text = String::with_capacity(32);
    // Writing to a String cannot fail.
    let _ = write!(text, "{value}");
    text.push('\0');
    // SAFETY: CurrentMemoryContext is valid; the copy ends with the NUL pushed
    // above and the text forms never contain NUL.
    unsafe {
        let out = PgMemoryContexts::CurrentMemoryContext.palloc_slice::<u8>(text.len());
        out.copy_from_slice(text.as_bytes());
        CStr::from_ptr(out.as_ptr().cast())
    }
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

pub fn hash<T: FlakeId>(value: &T) -> i32 {
    let b = value.bytes();
    // SAFETY: b is a valid slice of b.len() bytes.
    unsafe { hash_bytes(b.as_ptr(), b.len() as c_int) as i32 }
}

pub fn hash_extended<T: FlakeId>(value: &T, seed: i64) -> i64 {
    let b = value.bytes();
    // SAFETY: as above.
    unsafe { hash_bytes_extended(b.as_ptr(), b.len() as c_int, seed as u64) as i64 }
}

unsafe extern "C-unwind" fn compare_bytes<T: FlakeId>(
    a: pg_sys::Datum,
    b: pg_sys::Datum,
    _ssup: pg_sys::SortSupport,
) -> c_int {
    let a = std::slice::from_raw_parts(a.cast_mut_ptr::<u8>() as *const u8, T::LEN);
    let b = std::slice::from_raw_parts(b.cast_mut_ptr::<u8>() as *const u8, T::LEN);
    a.cmp(b) as c_int
}

/// The abbreviated key: the first 8 bytes as a big-endian unsigned integer,
/// so comparing abbreviations as unsigned integers agrees with `memcmp`.
unsafe extern "C-unwind" fn abbreviate(
    original: pg_sys::Datum,
    _ssup: pg_sys::SortSupport,
) -> pg_sys::Datum {
    let head = std::ptr::read_unaligned(original.cast_mut_ptr::<[u8; 8]>() as *const [u8; 8]);
    pg_sys::Datum::from(u64::from_be_bytes(head) as usize)
}

/// Time-ordered keys almost never share their first 8 bytes except within one
/// time unit, where the full comparison settles ties cheaply: abbreviation
/// always pays off, so it is never abandoned.
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
        ssup.comparator = Some(compare_bytes::<T>);
        if ssup.abbreviate && std::mem::size_of::<pg_sys::Datum>() == 8 && T::LEN >= 8 {
            ssup.abbrev_converter = Some(abbreviate);
            ssup.abbrev_abort = Some(keep_abbreviating);
            ssup.abbrev_full_comparator = Some(compare_bytes::<T>);
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
/// makes the SQL-facing newtype `Sno` and the functions `sno_in`, `sno_out`,
/// `sno_recv`, `sno_send`, `sno_eq` … `sno_cmp`, `sno_smaller`, `sno_larger`,
/// `sno_hash`, `sno_hash_extended`, `sno_sortsupport`, `sno_to_bytea` and
/// `sno_from_bytea`. The SQL that uses them comes from `FLAKE_TYPES`.
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

            #[pg_extern(immutable, parallel_safe, strict)]
            fn [<$sql _in>](input: &::core::ffi::CStr) -> $name {
                $name($crate::fixed_type::parse_text(input))
            }

            #[pg_extern(immutable, parallel_safe, strict)]
            fn [<$sql _out>](id: $name) -> &'static ::core::ffi::CStr {
                $crate::fixed_type::text_of(&id.0)
            }

            #[pg_extern(immutable, parallel_safe, strict)]
            fn [<$sql _recv>](buf: ::pgrx::Internal) -> $name {
                $name($crate::fixed_type::receive(buf))
            }

            #[pg_extern(immutable, parallel_safe, strict)]
            fn [<$sql _send>](id: $name) -> Vec<u8> {
                ::flake_core::FlakeId::bytes(&id.0).to_vec()
            }

            #[pg_extern(immutable, parallel_safe, strict)]
            fn [<$sql _eq>](a: $name, b: $name) -> bool {
                a == b
            }

            #[pg_extern(immutable, parallel_safe, strict)]
            fn [<$sql _ne>](a: $name, b: $name) -> bool {
                a != b
            }

            #[pg_extern(immutable, parallel_safe, strict)]
            fn [<$sql _lt>](a: $name, b: $name) -> bool {
                a < b
            }

            #[pg_extern(immutable, parallel_safe, strict)]
            fn [<$sql _le>](a: $name, b: $name) -> bool {
                a <= b
            }

            #[pg_extern(immutable, parallel_safe, strict)]
            fn [<$sql _gt>](a: $name, b: $name) -> bool {
                a > b
            }

            #[pg_extern(immutable, parallel_safe, strict)]
            fn [<$sql _ge>](a: $name, b: $name) -> bool {
                a >= b
            }

            #[pg_extern(immutable, parallel_safe, strict)]
            fn [<$sql _cmp>](a: $name, b: $name) -> i32 {
                a.cmp(&b) as i32
            }

            #[pg_extern(immutable, parallel_safe, strict)]
            fn [<$sql _smaller>](a: $name, b: $name) -> $name {
                a.min(b)
            }

            #[pg_extern(immutable, parallel_safe, strict)]
            fn [<$sql _larger>](a: $name, b: $name) -> $name {
                a.max(b)
            }

            #[pg_extern(immutable, parallel_safe, strict)]
            fn [<$sql _hash>](id: $name) -> i32 {
                $crate::fixed_type::hash(&id.0)
            }

            #[pg_extern(immutable, parallel_safe, strict)]
            fn [<$sql _hash_extended>](id: $name, seed: i64) -> i64 {
                $crate::fixed_type::hash_extended(&id.0, seed)
            }

            #[pg_extern(immutable, parallel_safe, strict)]
            fn [<$sql _to_bytea>](id: $name) -> Vec<u8> {
                ::flake_core::FlakeId::bytes(&id.0).to_vec()
            }

            #[pg_extern(immutable, parallel_safe, strict)]
            fn [<$sql _from_bytea>](bytes: &[u8]) -> $name {
                use $crate::errors::OrRaise;
                $name(<$core as $crate::fixed_type::FromBinary>::from_bytea(bytes).or_raise())
            }

            // Declared last and requiring the others, so that `FLAKE_TYPES`
            // can depend on this one function per type.
            #[pg_extern(immutable, parallel_safe, strict, requires = [
                [<$sql _in>], [<$sql _out>], [<$sql _recv>], [<$sql _send>],
                [<$sql _eq>], [<$sql _ne>], [<$sql _lt>], [<$sql _le>], [<$sql _gt>], [<$sql _ge>],
                [<$sql _cmp>], [<$sql _smaller>], [<$sql _larger>], [<$sql _hash>],
                [<$sql _hash_extended>], [<$sql _to_bytea>], [<$sql _from_bytea>]
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
CREATE TYPE %1$s (
    INTERNALLENGTH = %2$s,
    INPUT = %1$s_in, OUTPUT = %1$s_out,
    RECEIVE = %1$s_recv, SEND = %1$s_send,
    ALIGNMENT = char, STORAGE = plain
);

ALTER FUNCTION %1$s_eq(%1$s, %1$s) LEAKPROOF;
ALTER FUNCTION %1$s_ne(%1$s, %1$s) LEAKPROOF;
ALTER FUNCTION %1$s_lt(%1$s, %1$s) LEAKPROOF;
ALTER FUNCTION %1$s_le(%1$s, %1$s) LEAKPROOF;
ALTER FUNCTION %1$s_gt(%1$s, %1$s) LEAKPROOF;
ALTER FUNCTION %1$s_ge(%1$s, %1$s) LEAKPROOF;
ALTER FUNCTION %1$s_cmp(%1$s, %1$s) LEAKPROOF;

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

//! The one mechanism behind every native type (docs/sql-reference.md "What every native
//! type has"): a fixed-length, pass-by-reference value holding exactly the
//! format's big-endian bytes, so `memcmp` order is the format's sort order.
//!
//! A format module declares its type in two places that read side by side,
//! like PostgreSQL's `uuid.c` and its catalog entries:
//! - `native_type!(Sno, flake_core::sno::Sno, sno)`: the Rust side, i.e. the
//!   SQL-facing newtype `Sno` and the type's version-1 C functions
//!   (`sno_in`, `sno_out`, `sno_recv`, `sno_send`, `sno_eq` … `sno_cmp`,
//!   `sno_smaller`, `sno_larger`, `sno_hash`, `sno_hash_extended`,
//!   `sno_sortsupport`, `sno_minmax_multi_distance`, `sno_to_bytea`,
//!   `sno_from_bytea`, and on PostgreSQL 18 `sno_skipsupport`);
//! - `sql/types/sno.sql`, included with `extension_sql_file!`: the literal
//!   SQL of the type, its functions, operators, operator classes, `min`/`max`
//!   and casts. The type files are made from one template ([`ddl`]) with
//!   each type's length taken from the core (`FlakeId::LEN`), and a test
//!   checks that the checked-in files are exactly that.
//!
//! Their C symbols keep the names pgrx gave the same functions in 0.1.0
//! (`sno_in_wrapper`, `sno_recv_wrapper`, …): a database created at 0.1.0
//! refers to them by those names (docs/operations.md "Versions").

pub mod compare;
pub mod datum;
#[cfg(test)]
pub mod ddl;
pub mod io;
#[cfg(skip_support)]
pub mod skipsupport;
pub mod sortsupport;

pub use datum::datum_of;
pub use io::FromBinary;

/// Declares the Rust side of a native type (see the module documentation):
/// `native_type!(Sno, flake_core::sno::Sno, sno)`.
macro_rules! native_type {
    ($name:ident, $core:ty, $sql:ident) => {
        ::paste::paste! {
            #[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
            #[repr(transparent)]
            pub struct $name(pub $core);

            impl ::pgrx::IntoDatum for $name {
                #[inline]
                fn into_datum(self) -> Option<::pgrx::pg_sys::Datum> {
                    Some($crate::native_type::datum_of(::flake_core::FlakeId::bytes(&self.0)))
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
                    (!is_null).then(|| $name(unsafe { $crate::native_type::datum::value_at::<$core>(datum) }))
                }
            }

            unsafe impl<'fcx> ::pgrx::callconv::ArgAbi<'fcx> for $name {
                unsafe fn unbox_arg_unchecked(arg: ::pgrx::callconv::Arg<'_, 'fcx>) -> Self {
                    let index = arg.index();
                    unsafe { arg.unbox_arg_using_from_datum() }
                        .unwrap_or_else(|| $crate::errors::internal(format!("argument {index} must not be null")))
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
                    let datum = $crate::native_type::datum_of(::flake_core::FlakeId::bytes(&self.0));
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

            // Functions that may raise an ERROR or allocate: under #[pg_guard].
            $crate::native_type::native_type!(@guarded $sql,
                _in => io::input::<$core>,
                _out => io::output::<$core>,
                _recv => io::receive::<$core>,
                _send => io::to_bytea::<$core>,
                _to_bytea => io::to_bytea::<$core>,
                _from_bytea => io::from_bytea::<$core>,
                _sortsupport => sortsupport::sortsupport::<$core>
            );
            #[cfg(skip_support)]
            $crate::native_type::native_type!(@guarded $sql,
                _skipsupport => skipsupport::skipsupport::<$core>
            );

            // Functions that cannot fail and touch only their arguments.
            $crate::native_type::native_type!(@plain $core, $sql,
                _eq: |a, b| a == b,
                _ne: |a, b| a != b,
                _lt: |a, b| a < b,
                _le: |a, b| a <= b,
                _gt: |a, b| a > b,
                _ge: |a, b| a >= b,
                _cmp: |a, b| a.cmp(&b) as i32
            );

            #[no_mangle]
            pub unsafe extern "C-unwind" fn [<$sql _smaller_wrapper>](
                fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
            ) -> ::pgrx::pg_sys::Datum {
                unsafe { $crate::native_type::compare::pick::<$core>(fcinfo, false) }
            }

            #[no_mangle]
            pub unsafe extern "C-unwind" fn [<$sql _larger_wrapper>](
                fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
            ) -> ::pgrx::pg_sys::Datum {
                unsafe { $crate::native_type::compare::pick::<$core>(fcinfo, true) }
            }

            #[no_mangle]
            pub unsafe extern "C-unwind" fn [<$sql _minmax_multi_distance_wrapper>](
                fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
            ) -> ::pgrx::pg_sys::Datum {
                unsafe { $crate::native_type::compare::minmax_multi_distance::<$core>(fcinfo) }
            }

            #[no_mangle]
            pub unsafe extern "C-unwind" fn [<$sql _hash_wrapper>](
                fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
            ) -> ::pgrx::pg_sys::Datum {
                unsafe { $crate::native_type::compare::hash::<$core>(fcinfo) }
            }

            #[no_mangle]
            pub unsafe extern "C-unwind" fn [<$sql _hash_extended_wrapper>](
                fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
            ) -> ::pgrx::pg_sys::Datum {
                unsafe { $crate::native_type::compare::hash_extended::<$core>(fcinfo) }
            }

            $crate::c_function::finfo!(
                [<$sql _smaller_wrapper>] [<$sql _larger_wrapper>]
                [<$sql _minmax_multi_distance_wrapper>]
                [<$sql _hash_wrapper>] [<$sql _hash_extended_wrapper>]
            );
        }
    };
    (@guarded $sql:ident, $($suffix:ident => $module:ident :: $function:ident :: <$core:ty>),*) => {
        ::paste::paste! {
            $(
                #[::pgrx::pg_guard]
                #[no_mangle]
                pub unsafe extern "C-unwind" fn [<$sql $suffix _wrapper>](
                    fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
                ) -> ::pgrx::pg_sys::Datum {
                    unsafe { $crate::native_type::$module::$function::<$core>(fcinfo) }
                }

                $crate::c_function::finfo!([<$sql $suffix _wrapper>]);
            )*
        }
    };
    (@plain $core:ty, $sql:ident, $($suffix:ident: |$a:ident, $b:ident| $body:expr),*) => {
        ::paste::paste! {
            $(
                #[no_mangle]
                pub unsafe extern "C-unwind" fn [<$sql $suffix _wrapper>](
                    fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
                ) -> ::pgrx::pg_sys::Datum {
                    // SAFETY: a strict function of two T arguments.
                    let ($a, $b) = unsafe {
                        (
                            $crate::native_type::compare::key_arg::<$core>(fcinfo, 0),
                            $crate::native_type::compare::key_arg::<$core>(fcinfo, 1),
                        )
                    };
                    ::pgrx::pg_sys::Datum::from($body)
                }

                $crate::c_function::finfo!([<$sql $suffix _wrapper>]);
            )*
        }
    };
}
pub(crate) use native_type;

//! How values of a native type come in and go out: the canonical text (type
//! input and output), the binary wire format (receive and send, exactly the
//! stored bytes) and the `bytea` casts (docs/sql-reference.md "What every native type has").
//!
//! Bad input is a soft error where the caller gives a soft-error context
//! (PostgreSQL 16+): the same SQLSTATE, message and detail, recorded
//! instead of raised, and the function returns nothing.

use super::datum::{bytea_datum, datum_of, text_datum, value_at, varlena_bytes};
use crate::plumbing::backend::errors::raise;
use crate::plumbing::fmgr::arg;
use flake_core::{Error, FlakeId};
use pgrx::pg_sys;
use std::ffi::CStr;

/// How a type reads `bytea::T`: the binary wire format (`FlakeId::from_wire`,
/// what `receive` reads: exactly the value's bytes, 22P03 otherwise, and a
/// value of the type) unless the format also accepts another layout in a
/// `bytea` (SIQ's 16-byte ORM form); the wire format never does.
pub trait FromBinary: FlakeId {
    fn from_bytea(bytes: &[u8]) -> flake_core::Result<Self> {
        Self::from_wire(bytes)
    }
}

/// The caller's soft-error context, where it gave one.
///
/// # Safety
/// `fcinfo` must be the current call's.
#[cfg(soft_errors)]
unsafe fn soft_context(fcinfo: pg_sys::FunctionCallInfo) -> Option<*mut pg_sys::Node> {
    let context = unsafe { (*fcinfo).context };
    (!context.is_null() && unsafe { (*context).type_ } == pg_sys::NodeTag::T_ErrorSaveContext)
        .then_some(context)
}

/// The value's datum, or `error` reported as the caller wants it: recorded
/// in its soft-error context (and a null datum returned), else raised.
///
/// # Safety
/// `fcinfo` must be the current call's.
unsafe fn datum_or_fail<T: FlakeId>(
    fcinfo: pg_sys::FunctionCallInfo,
    value: flake_core::Result<T>,
) -> pg_sys::Datum {
    match value {
        Ok(value) => datum_of(value.bytes()),
        Err(error) => {
            #[cfg(soft_errors)]
            if let Some(context) = unsafe { soft_context(fcinfo) } {
                // SAFETY: the call's own soft-error context.
                unsafe { crate::plumbing::backend::errors::save(context, &error) };
                return pg_sys::Datum::from(0usize);
            }
            let _ = fcinfo;
            raise(error)
        }
    }
}

/// The canonical text form, strictly.
pub fn parse_text<T: FlakeId>(input: &CStr) -> flake_core::Result<T> {
    match input.to_str() {
        Ok(text) => text.parse(),
        Err(_) => Err(Error::InvalidText {
            type_name: T::TYPE_NAME,
            input: input.to_string_lossy().into_owned(),
            expected: "its canonical text form (ASCII)",
        }),
    }
}

/// `T_in(cstring) → T`.
///
/// # Safety
/// `fcinfo` must be a call of the type's input function.
pub unsafe fn input<T: FlakeId>(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: PostgreSQL passes a NUL-terminated string.
    let text = unsafe { CStr::from_ptr(arg(fcinfo, 0).cast_mut_ptr::<std::ffi::c_char>()) };
    unsafe { datum_or_fail(fcinfo, parse_text::<T>(text)) }
}

/// `T_out(T) → cstring`.
///
/// # Safety
/// `fcinfo` must be a call of the type's output function.
pub unsafe fn output<T: FlakeId>(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: the argument of a strict output function is a T.
    text_datum(&unsafe { value_at::<T>(arg(fcinfo, 0)) })
}

/// `T_recv(internal) → T`: the rest of the message must be exactly the
/// value's bytes.
///
/// # Safety
/// `fcinfo` must be a call of the type's receive function.
pub unsafe fn receive<T: FlakeId>(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: PostgreSQL passes a StringInfo as the receive function's argument.
    unsafe {
        let buf = &mut *arg(fcinfo, 0).cast_mut_ptr::<pg_sys::StringInfoData>();
        let remaining = (buf.len - buf.cursor).max(0) as usize;
        let start = buf.data.add(buf.cursor as usize) as *const u8;
        let value = T::from_wire(std::slice::from_raw_parts(start, remaining));
        buf.cursor = buf.len;
        datum_or_fail(fcinfo, value)
    }
}

/// `T_send(T) → bytea` and `T_to_bytea(T) → bytea`: the stored bytes.
///
/// # Safety
/// `fcinfo` must be a call of a strict function whose argument 0 is a T.
pub unsafe fn to_bytea<T: FlakeId>(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    bytea_datum(unsafe { value_at::<T>(arg(fcinfo, 0)) }.bytes())
}

/// `T_from_bytea(bytea) → T`.
///
/// # Safety
/// `fcinfo` must be a call of a strict function whose argument 0 is a bytea.
pub unsafe fn from_bytea<T: FromBinary>(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    let bytes = unsafe { varlena_bytes(arg(fcinfo, 0)) };
    unsafe { datum_or_fail(fcinfo, T::from_bytea(bytes)) }
}

#[cfg(all(any(test, feature = "pg_test"), soft_errors))]
#[pgrx::pg_schema]
mod tests {
    use pgrx::prelude::*;
    use pgrx::PgSqlErrorCode;

    /// Calls the one-argument function `name` with a soft-error context, as
    /// PostgreSQL's callers of input functions do (`InputFunctionCallSafe`):
    /// whether it reported an error there, with the report's SQLSTATE and
    /// message.
    unsafe fn call_softly(name: &str, argument: pg_sys::Datum) -> Option<(i32, String)> {
        let oid = Spi::get_one::<pg_sys::Oid>(&format!("SELECT '{name}'::regproc::oid"))
            .unwrap()
            .unwrap();
        unsafe {
            let mut flinfo: pg_sys::FmgrInfo = std::mem::zeroed();
            pg_sys::fmgr_info(oid, &mut flinfo);
            let mut context = pg_sys::ErrorSaveContext {
                type_: pg_sys::NodeTag::T_ErrorSaveContext,
                error_occurred: false,
                details_wanted: true,
                error_data: std::ptr::null_mut(),
            };
            let size = std::mem::size_of::<pg_sys::FunctionCallInfoBaseData>()
                + std::mem::size_of::<pg_sys::NullableDatum>();
            let fcinfo = pg_sys::palloc0(size).cast::<pg_sys::FunctionCallInfoBaseData>();
            (*fcinfo).flinfo = &mut flinfo;
            (*fcinfo).context = (&raw mut context).cast();
            (*fcinfo).nargs = 1;
            *(*fcinfo).args.as_mut_ptr() = pg_sys::NullableDatum {
                value: argument,
                isnull: false,
            };
            (flinfo.fn_addr.unwrap())(fcinfo);
            context.error_occurred.then(|| {
                let data = &*context.error_data;
                let message = std::ffi::CStr::from_ptr(data.message).to_string_lossy();
                (data.sqlerrcode, message.into_owned())
            })
        }
    }

    /// A StringInfo holding `bytes`, as binary COPY and the binary protocol
    /// hand them to a receive function.
    fn message(bytes: &[u8]) -> pg_sys::Datum {
        unsafe {
            let buf = pg_sys::makeStringInfo();
            pg_sys::appendBinaryStringInfo(buf, bytes.as_ptr().cast(), bytes.len() as i32);
            pg_sys::Datum::from(buf)
        }
    }

    /// Receive and `bytea::T` of every native type: a wrong length (22P03)
    /// and, for distributed_id, a value out of range (22003) are soft errors
    /// with the hard error's message where the caller asks for one; a good
    /// value is none.
    #[pg_test]
    fn soft_errors_of_receive_and_bytea() {
        let binary = PgSqlErrorCode::ERRCODE_INVALID_BINARY_REPRESENTATION as i32;
        let range = PgSqlErrorCode::ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE as i32;
        macro_rules! check {
            ($ty:ty) => {{
                use crate::plumbing::fmgr::native_type::io::FromBinary;
                use flake_core::FlakeId;
                let name = <$ty>::TYPE_NAME;
                let short = [1u8, 2, 3];
                // The messages the hard errors have.
                let wire = <$ty>::from_wire(&short).unwrap_err().to_string();
                let bytea = <$ty>::from_bytea(&short).unwrap_err().to_string();
                for (function, argument, expected) in [
                    (format!("{name}_recv"), message(&short), wire),
                    (
                        format!("{name}_from_bytea"),
                        short.to_vec().into_datum().unwrap(),
                        bytea,
                    ),
                ] {
                    let report = unsafe { call_softly(&function, argument) };
                    assert_eq!(report, Some((binary, expected)), "{function}");
                }
                let good = vec![0u8; <$ty>::LEN];
                assert_eq!(
                    unsafe { call_softly(&format!("{name}_recv"), message(&good)) },
                    None
                );
            }};
        }
        flake_core::for_each_native_type!(check);
        let too_large = [0xffu8; 12];
        for (function, argument) in [
            ("distributed_id_recv", message(&too_large)),
            (
                "distributed_id_from_bytea",
                too_large.to_vec().into_datum().unwrap(),
            ),
        ] {
            let report = unsafe { call_softly(function, argument) }.map(|(code, _)| code);
            assert_eq!(report, Some(range), "{function}");
        }
    }
}

/// The I/O functions of the native type `$sql` (a value of `$core`), each
/// under `#[pg_guard]` (they raise ERRORs and allocate): the symbols
/// `<sql>_in_wrapper`, `<sql>_out_wrapper`, `<sql>_recv_wrapper`,
/// `<sql>_send_wrapper`, `<sql>_to_bytea_wrapper` and
/// `<sql>_from_bytea_wrapper` of the type section of `sql/<format>.sql`.
macro_rules! io_functions {
    ($core:ty, $sql:ident, $in:ident, $out:ident, $recv:ident, $send:ident, $to_bytea:ident, $from_bytea:ident) => {
        $crate::plumbing::fmgr::guarded_functions!($sql,
            _in $in => $crate::plumbing::fmgr::native_type::io::input::<$core>,
            _out $out => $crate::plumbing::fmgr::native_type::io::output::<$core>,
            _recv $recv => $crate::plumbing::fmgr::native_type::io::receive::<$core>,
            _send $send => $crate::plumbing::fmgr::native_type::io::to_bytea::<$core>,
            _to_bytea $to_bytea => $crate::plumbing::fmgr::native_type::io::to_bytea::<$core>,
            _from_bytea $from_bytea => $crate::plumbing::fmgr::native_type::io::from_bytea::<$core>
        );
    };
}
pub(crate) use io_functions;

//! How values of a native type come in and go out: the canonical text (type
//! input and output), the binary wire format (receive and send, exactly the
//! stored bytes) and the `bytea` casts (README "What every native type has").

use super::datum::{bytea_datum, datum_of, text_datum, value_at, varlena_bytes};
use crate::c_function::arg;
use crate::errors::OrRaise;
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
    datum_of(parse_text::<T>(text).or_raise().bytes())
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
        let value = T::from_wire(std::slice::from_raw_parts(start, remaining)).or_raise();
        buf.cursor = buf.len;
        datum_of(value.bytes())
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
    datum_of(T::from_bytea(bytes).or_raise().bytes())
}

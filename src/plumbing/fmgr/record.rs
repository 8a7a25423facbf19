//! The one row a `_parts` function returns through its OUT parameters.
//!
//! The OUT parameters are written in the function's SQL (by `c_function!`)
//! and the values in its Rust body; [`out_record`] ties the two: every value
//! comes with the name and type of the column it fills, checked against the
//! declared OUT parameters on every call, so a column added, renamed or
//! reordered on one side only is an error in the first test that calls it.

use crate::plumbing::backend::errors::internal;
use crate::plumbing::fmgr::c_function::Call;
use pgrx::{pg_sys, IntoDatum};
use std::ffi::CStr;

/// One OUT column's value, with the name and type its SQL declares.
pub struct Column {
    name: &'static str,
    type_oid: pg_sys::Oid,
    datum: Option<pg_sys::Datum>,
}

/// The column `name` holding `value` (`None` is SQL NULL).
pub fn column<T: IntoDatum>(name: &'static str, value: T) -> Column {
    Column {
        name,
        type_oid: T::type_oid(),
        datum: value.into_datum(),
    }
}

/// The record of `columns`, for a function declared with exactly these OUT
/// parameters, in this order.
pub fn out_record(call: Call<'_>, columns: &[Column]) -> pg_sys::Datum {
    let fcinfo = call.fcinfo();
    // SAFETY: fcinfo is the current call's; the tuple descriptor PostgreSQL
    // builds from the function's OUT parameters is checked against `columns`
    // before the tuple is formed.
    unsafe {
        let mut tupdesc: pg_sys::TupleDesc = std::ptr::null_mut();
        let class = pg_sys::get_call_result_type(fcinfo, std::ptr::null_mut(), &mut tupdesc);
        if class != pg_sys::TypeFuncClass::TYPEFUNC_COMPOSITE || tupdesc.is_null() {
            internal(
                "pg_flake: function returning a record called in a context that cannot accept it",
            );
        }
        let declared = pgrx::PgTupleDesc::from_pg_unchecked(tupdesc);
        for (i, column) in columns.iter().enumerate() {
            let matches = declared.get(i).is_some_and(|attribute| {
                CStr::from_ptr(attribute.attname.data.as_ptr()).to_bytes() == column.name.as_bytes()
                    && attribute.atttypid == column.type_oid
            });
            if !matches {
                internal(format!(
                    "pg_flake: OUT column {} ({}) does not match the function's SQL",
                    i + 1,
                    column.name
                ));
            }
        }
        if declared.len() != columns.len() {
            internal(format!(
                "pg_flake: the function's SQL declares {} OUT columns",
                declared.len()
            ));
        }
        let tupdesc = pg_sys::BlessTupleDesc(tupdesc);
        let mut datums: Vec<pg_sys::Datum> = columns
            .iter()
            .map(|c| c.datum.unwrap_or(pg_sys::Datum::from(0usize)))
            .collect();
        let mut nulls: Vec<bool> = columns.iter().map(|c| c.datum.is_none()).collect();
        let tuple = pg_sys::heap_form_tuple(tupdesc, datums.as_mut_ptr(), nulls.as_mut_ptr());
        pg_sys::HeapTupleHeaderGetDatum((*tuple).t_data)
    }
}

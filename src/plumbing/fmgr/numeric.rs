//! `numeric` values of identifiers wider than `bigint`: the casts and the
//! functions that give or take the whole integer (siq's 112 bits,
//! distributed_id's 28 digits, a uuid's 128 bits). Named as
//! core/src/numeric.rs, which parses the values this module hands it.

use crate::plumbing::backend::errors::OrRaise;
use flake_core::numeric::numeric_integer;
use pgrx::AnyNumeric;

/// The integer as a `numeric`.
pub fn numeric_of(value: u128) -> AnyNumeric {
    AnyNumeric::from(value)
}

/// A non-negative integer `numeric` of at most `max`: a negative, fractional,
/// NaN, infinite or larger value is 22003, `range` in the detail line.
pub fn integer_of(
    value: &AnyNumeric,
    type_name: &'static str,
    max: u128,
    range: &'static str,
) -> u128 {
    numeric_integer(&value.to_string(), type_name, max, range).or_raise()
}

//! One error type for every format. Each variant corresponds to exactly one
//! PostgreSQL SQLSTATE (see `ErrorKind`), so the extension maps errors to SQL
//! without knowing which format raised them.

use std::fmt;

/// The class of a mistake, one per SQLSTATE of README "Errors".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// 22P02 `invalid_text_representation`.
    InvalidText,
    /// 22P03 `invalid_binary_representation`.
    InvalidBinary,
    /// 22003 `numeric_value_out_of_range`.
    NumericOutOfRange,
    /// 22008 `datetime_field_overflow`.
    DatetimeOverflow,
    /// 22023 `invalid_parameter_value`.
    InvalidParameter,
}

impl ErrorKind {
    /// The PostgreSQL SQLSTATE of this kind.
    pub const fn sqlstate(self) -> &'static str {
        match self {
            ErrorKind::InvalidText => "22P02",
            ErrorKind::InvalidBinary => "22P03",
            ErrorKind::NumericOutOfRange => "22003",
            ErrorKind::DatetimeOverflow => "22008",
            ErrorKind::InvalidParameter => "22023",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Malformed text: wrong length, character, checksum or sign.
    InvalidText {
        type_name: &'static str,
        input: String,
        /// The accepted form, for the error's detail line.
        expected: &'static str,
    },
    /// A binary value of the wrong length.
    InvalidBinary {
        type_name: &'static str,
        expected: &'static str,
        actual: usize,
    },
    /// Well-formed text or a number whose value does not fit the type.
    ValueOutOfRange {
        type_name: &'static str,
        input: String,
        range: &'static str,
    },
    /// One field of a value outside its range.
    FieldOutOfRange {
        type_name: &'static str,
        field: &'static str,
        value: i128,
        min: i128,
        max: i128,
    },
    /// A time outside the range the format can represent.
    TimeOutOfRange {
        type_name: &'static str,
        range: &'static str,
    },
    /// A bad argument (unknown kind, bad key length, bad interval, ...).
    InvalidParameter { message: String },
}

impl Error {
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::InvalidText { .. } => ErrorKind::InvalidText,
            Error::InvalidBinary { .. } => ErrorKind::InvalidBinary,
            Error::ValueOutOfRange { .. } | Error::FieldOutOfRange { .. } => {
                ErrorKind::NumericOutOfRange
            }
            Error::TimeOutOfRange { .. } => ErrorKind::DatetimeOverflow,
            Error::InvalidParameter { .. } => ErrorKind::InvalidParameter,
        }
    }

    /// A second line for the user: what would have been accepted.
    pub fn detail(&self) -> Option<String> {
        match self {
            Error::InvalidText { expected, .. } => Some(format!("Expected {expected}.")),
            Error::ValueOutOfRange { range, .. } => Some(format!("Accepted values: {range}.")),
            _ => None,
        }
    }

    pub(crate) fn invalid_text(
        type_name: &'static str,
        input: &str,
        expected: &'static str,
    ) -> Self {
        Error::InvalidText {
            type_name,
            input: input.to_owned(),
            expected,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidText {
                type_name, input, ..
            } => write!(f, "invalid input syntax for type {type_name}: \"{input}\""),
            Error::InvalidBinary {
                type_name,
                expected,
                actual,
            } => write!(
                f,
                "invalid binary value for type {type_name}: expected {expected}, got {actual} bytes"
            ),
            Error::ValueOutOfRange {
                type_name, input, ..
            } => write!(f, "value \"{input}\" is out of range for type {type_name}"),
            Error::FieldOutOfRange {
                type_name,
                field,
                value,
                min,
                max,
            } => write!(
                f,
                "{type_name} field \"{field}\" out of range: {value} (accepted: {min} to {max})"
            ),
            Error::TimeOutOfRange { type_name, range } => {
                write!(
                    f,
                    "timestamp out of range for type {type_name}: accepted {range}"
                )
            }
            Error::InvalidParameter { message } => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Checks that `value` lies in `min ..= max`: the one range check behind every
/// `*_from_parts` argument.
pub fn field_in_range(
    type_name: &'static str,
    field: &'static str,
    value: i128,
    min: i128,
    max: i128,
) -> Result<i128> {
    if (min..=max).contains(&value) {
        Ok(value)
    } else {
        Err(Error::FieldOutOfRange {
            type_name,
            field,
            value,
            min,
            max,
        })
    }
}

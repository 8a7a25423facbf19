//! One error type for every format, and for the PostgreSQL extension's own
//! refusals. Each variant has one PostgreSQL SQLSTATE (see `ErrorKind`;
//! `Refused` carries its kind), so the extension maps errors to SQL without
//! knowing which format raised them.

use std::fmt;

/// The class of a mistake, one per SQLSTATE of docs/sql-reference.md "Errors".
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
    /// 55000 `object_not_in_prerequisite_state`: the server is not in a
    /// state where it can generate (its clock too far behind, recovery,
    /// a node number that does not fit).
    NotReady,
    /// 25006 `read_only_sql_transaction`: a server in recovery, as
    /// `nextval` on a standby.
    ReadOnly,
    /// 42501 `insufficient_privilege`.
    InsufficientPrivilege,
    /// XX001 `data_corrupted`: a damaged or missing file of durable state.
    DataCorrupted,
    /// 58P01 `undefined_file`.
    UndefinedFile,
    /// 53100 `disk_full`.
    DiskFull,
    /// 58030 `io_error`.
    IoError,
    /// XX000 `internal_error`: a broken invariant of pg_flake's own, never
    /// something the user's input can cause.
    Internal,
}

impl ErrorKind {
    /// Every kind, each at the index `kind as usize` (counters kept per
    /// kind, pg_flake_stats' refusals by SQLSTATE).
    pub const ALL: [ErrorKind; 13] = [
        ErrorKind::InvalidText,
        ErrorKind::InvalidBinary,
        ErrorKind::NumericOutOfRange,
        ErrorKind::DatetimeOverflow,
        ErrorKind::InvalidParameter,
        ErrorKind::NotReady,
        ErrorKind::ReadOnly,
        ErrorKind::InsufficientPrivilege,
        ErrorKind::DataCorrupted,
        ErrorKind::UndefinedFile,
        ErrorKind::DiskFull,
        ErrorKind::IoError,
        ErrorKind::Internal,
    ];

    /// The PostgreSQL SQLSTATE of this kind.
    pub const fn sqlstate(self) -> &'static str {
        match self {
            ErrorKind::InvalidText => "22P02",
            ErrorKind::InvalidBinary => "22P03",
            ErrorKind::NumericOutOfRange => "22003",
            ErrorKind::DatetimeOverflow => "22008",
            ErrorKind::InvalidParameter => "22023",
            ErrorKind::NotReady => "55000",
            ErrorKind::ReadOnly => "25006",
            ErrorKind::InsufficientPrivilege => "42501",
            ErrorKind::DataCorrupted => "XX001",
            ErrorKind::UndefinedFile => "58P01",
            ErrorKind::DiskFull => "53100",
            ErrorKind::IoError => "58030",
            ErrorKind::Internal => "XX000",
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
    /// Logical time would run further ahead of the clock than allowed: the
    /// clock is that far behind IDs already issued (docs/guarantees.md "Guarantees").
    ClockBehind {
        type_name: &'static str,
        lead_nanos: i64,
        max_lead_nanos: i64,
    },
    /// The real-time clock moved further ahead than the monotonic clock
    /// since the generator's last mark, by more than allowed: someone set it
    /// forward (docs/guarantees.md "Restarts, crashes and the clock"). Recording a mark
    /// that far ahead would stop generation once the clock is right again.
    ClockJumped {
        type_name: &'static str,
        jump_nanos: i64,
        max_jump_nanos: i64,
    },
    /// The server cannot generate this format now (a node number that does
    /// not fit the format's field, a standby without a node of its own, …).
    NotReady { message: String, hint: String },
    /// Any other refusal of a server, with its kind (a standby asked to
    /// generate, a missing privilege, a marks file that cannot be read or
    /// written, …): what the PostgreSQL extension reports beside the
    /// formats' own errors, through the same path.
    Refused {
        kind: ErrorKind,
        message: String,
        detail: Option<String>,
        hint: Option<String>,
    },
    /// A broken invariant of pg_flake's own (XX000): a bug to report.
    Internal { message: String },
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
            Error::ClockBehind { .. } | Error::ClockJumped { .. } | Error::NotReady { .. } => {
                ErrorKind::NotReady
            }
            Error::Refused { kind, .. } => *kind,
            Error::Internal { .. } => ErrorKind::Internal,
        }
    }

    /// A second line for the user: what would have been accepted.
    pub fn detail(&self) -> Option<String> {
        match self {
            Error::InvalidText { expected, .. } => Some(format!("Expected {expected}.")),
            Error::ValueOutOfRange { range, .. } => Some(format!("Accepted values: {range}.")),
            Error::ClockBehind { max_lead_nanos, .. } => Some(format!(
                "IDs may run at most {} ahead of the clock.",
                seconds(*max_lead_nanos)
            )),
            Error::ClockJumped { max_jump_nanos, .. } => Some(format!(
                "The clock may be set at most {} ahead at once; the mark stayed where it was.",
                seconds(*max_jump_nanos)
            )),
            Error::Refused { detail, .. } => detail.clone(),
            _ => None,
        }
    }

    /// What the user can do about it, where there is something to say.
    pub fn hint(&self) -> Option<String> {
        match self {
            Error::NotReady { hint, .. } => Some(hint.clone()),
            Error::Refused { hint, .. } => hint.clone(),
            _ => None,
        }
    }

    /// A [`Error::Refused`] with a hint and no detail.
    pub fn refused(kind: ErrorKind, message: impl Into<String>, hint: impl Into<String>) -> Self {
        Error::Refused {
            kind,
            message: message.into(),
            detail: None,
            hint: Some(hint.into()),
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

/// The SQL types whose names the errors use as such ("for type sno"); the
/// other names are formats stored in a type of PostgreSQL's (kuid64 and
/// Snowflake in bigint, DistributedId128 in uuid) or encodings, which the
/// messages name without calling them a type.
const SQL_TYPES: [&str; 8] = [
    "sno",
    "siq",
    "flaxid",
    "kuid96",
    "distributed_id",
    "uuid",
    "bigint",
    "numeric",
];

/// "type sno", but "kuid64" (docs/sql-reference.md "Errors").
struct Subject(&'static str);

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if SQL_TYPES.contains(&self.0) {
            write!(f, "type {}", self.0)
        } else {
            f.write_str(self.0)
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidText {
                type_name, input, ..
            } => write!(
                f,
                "invalid input syntax for {}: \"{input}\"",
                Subject(type_name)
            ),
            Error::InvalidBinary {
                type_name,
                expected,
                actual,
            } => write!(
                f,
                "invalid binary value for {}: expected {expected}, got {actual} byte{}",
                Subject(type_name),
                if *actual == 1 { "" } else { "s" }
            ),
            Error::ValueOutOfRange {
                type_name, input, ..
            } => write!(
                f,
                "value \"{input}\" is out of range for {}",
                Subject(type_name)
            ),
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
                    "timestamp out of range for {}: accepted {range}",
                    Subject(type_name)
                )
            }
            Error::InvalidParameter { message } => f.write_str(message),
            Error::ClockBehind {
                type_name,
                lead_nanos,
                ..
            } => write!(
                f,
                "{type_name} generation stopped: the clock is {} behind the last {type_name} IDs issued",
                seconds(*lead_nanos)
            ),
            Error::ClockJumped {
                type_name,
                jump_nanos,
                ..
            } => write!(
                f,
                "{type_name} generation stopped: the clock jumped {} ahead since the last {type_name} mark",
                seconds(*jump_nanos)
            ),
            Error::NotReady { message, .. }
            | Error::Refused { message, .. }
            | Error::Internal { message } => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

/// A duration in nanoseconds as seconds, e.g. `7203.5 s` or `0.004 s`.
fn seconds(nanos: i64) -> String {
    let text = format!("{:.3}", nanos as f64 / 1e9);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} s")
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The values of a `bigint` that a format or encoding reads as unsigned.
pub const NON_NEGATIVE_BIGINT: &str = "0 to 9223372036854775807";

/// A `bigint` read as unsigned: a negative one stands for nothing (22003,
/// docs/sql-reference.md "Errors"), e.g. no Snowflake, kuid64 or alphanumeric form.
pub fn non_negative(type_name: &'static str, value: i64) -> Result<u64> {
    u64::try_from(value).map_err(|_| Error::ValueOutOfRange {
        type_name,
        input: value.to_string(),
        range: NON_NEGATIVE_BIGINT,
    })
}

/// Checks that `value` lies in `min ..= max`: the one range check behind every
/// `*_from_parts` argument.
#[inline]
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
        Err(out_of_range(type_name, field, value, min, max))
    }
}

/// The error of [`field_in_range`], out of the caller's way (a generator
/// checks its arguments for every ID).
#[cold]
#[inline(never)]
fn out_of_range(
    type_name: &'static str,
    field: &'static str,
    value: i128,
    min: i128,
    max: i128,
) -> Error {
    Error::FieldOutOfRange {
        type_name,
        field,
        value,
        min,
        max,
    }
}

#[cfg(test)]
mod tests {
    use super::ErrorKind;

    #[test]
    fn every_kind_is_at_its_own_index() {
        for (index, kind) in ErrorKind::ALL.iter().enumerate() {
            assert_eq!(*kind as usize, index, "{kind:?}");
        }
        let sqlstates: std::collections::HashSet<_> =
            ErrorKind::ALL.iter().map(|k| k.sqlstate()).collect();
        assert_eq!(sqlstates.len(), ErrorKind::ALL.len());
    }
}

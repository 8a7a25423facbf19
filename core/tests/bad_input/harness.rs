//! Running a decoder and its spec on the same inputs: the verdicts, the
//! check that they agree, and the figures each test prints.

use flake_core::{ErrorKind, FlakeId};
use flake_test_support::to_hex;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRunner};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::{Debug, Display};
use std::str::FromStr;
use std::time::Instant;

pub const CASES: u32 = 100_000;

/// The canonical re-encoding of an accepted value, or why the input was
/// refused: an SQLSTATE, or `NONE` / `NULL` for `Option` answers.
pub type Verdict = Result<String, &'static str>;

pub const INVALID_TEXT: &str = ErrorKind::InvalidText.sqlstate();
pub const INVALID_BINARY: &str = ErrorKind::InvalidBinary.sqlstate();
pub const OUT_OF_RANGE: &str = ErrorKind::NumericOutOfRange.sqlstate();
pub const INVALID_PARAMETER: &str = ErrorKind::InvalidParameter.sqlstate();
/// A decoder's `None`.
pub const NONE: &str = "None";
/// A public ID that decrypts to no value of the type (SQL NULL).
pub const NULL: &str = "NULL";

// --- the check ---------------------------------------------------------------

#[derive(Default)]
pub struct Tally {
    cases: u64,
    accepted: u64,
    refused: BTreeMap<&'static str, u64>,
}

/// Runs `decoder` and `spec` on `CASES` inputs and requires equal verdicts.
/// `refusals` lists every refusal the decoder documents; each must have
/// occurred (so the inputs reach every branch), and none other can, since
/// `spec` only produces documented ones. An empty list means a total decoder.
pub fn check<I: Debug + Clone>(
    name: &str,
    refusals: &[&str],
    inputs: impl Strategy<Value = I>,
    decoder: impl Fn(&I) -> Verdict,
    spec: impl Fn(&I) -> Verdict,
) {
    let config = Config {
        cases: CASES,
        failure_persistence: None,
        // One draw per case seeds `Dice`; the default ChaCha RNG costs about
        // 15 µs per case in the debug profile, XorShift almost nothing.
        rng_algorithm: RngAlgorithm::XorShift,
        ..Config::default()
    };
    let tally = RefCell::new(Tally::default());
    let started = Instant::now();
    let outcome = TestRunner::new(config).run(&inputs, |input| {
        let got = decoder(&input);
        prop_assert_eq!(&got, &spec(&input), "input {:?}", input);
        let mut tally = tally.borrow_mut();
        tally.cases += 1;
        match got {
            Ok(_) => tally.accepted += 1,
            Err(why) => *tally.refused.entry(why).or_default() += 1,
        }
        Ok(())
    });
    if let Err(failure) = outcome {
        panic!("{name}: {failure}");
    }
    let tally = tally.into_inner();
    let rejected: u64 = tally.refused.values().sum();
    println!(
        "{name:<52} cases {:>6}  accepted {:>6}  rejected {:>6} {:?}  {:.1} s",
        tally.cases,
        tally.accepted,
        rejected,
        tally.refused,
        started.elapsed().as_secs_f64()
    );
    assert!(tally.cases >= CASES as u64, "{name}: too few cases");
    assert!(
        tally.accepted >= CASES as u64 / 100,
        "{name}: under 1% of the inputs accepted, the generators miss the accepted form"
    );
    for why in refusals {
        assert!(
            tally.refused.contains_key(why),
            "{name}: no input was refused with {why}"
        );
    }
    if refusals.is_empty() {
        assert_eq!(rejected, 0, "{name} is total");
    }
}

pub fn check_text(
    name: &str,
    refusals: &[&str],
    inputs: impl Strategy<Value = String>,
    decoder: impl Fn(&str) -> Verdict,
    spec: impl Fn(&str) -> Verdict,
) {
    check(name, refusals, inputs, |s| decoder(s), |s| spec(s));
}

pub fn check_bytes(
    name: &str,
    refusals: &[&str],
    inputs: impl Strategy<Value = Vec<u8>>,
    decoder: impl Fn(&[u8]) -> Verdict,
    spec: impl Fn(&[u8]) -> Verdict,
) {
    check(name, refusals, inputs, |b| decoder(b), |b| spec(b));
}

// --- decoders' verdicts ------------------------------------------------------

pub fn refused(e: flake_core::Error) -> &'static str {
    e.kind().sqlstate()
}

pub fn shown<T: Display>(result: flake_core::Result<T>) -> Verdict {
    result.map(|v| v.to_string()).map_err(refused)
}

/// `FromStr`, re-encoded with `Display`.
pub fn parsed<T: FromStr<Err = flake_core::Error> + Display>(text: &str) -> Verdict {
    shown(text.parse::<T>())
}

/// A byte-level text decoder: `None` is what `FromStr` (and so the type
/// input) reports as 22P02.
pub fn decoded<T: Display>(value: Option<T>) -> Verdict {
    value.map(|v| v.to_string()).ok_or(INVALID_TEXT)
}

/// `FlakeId::from_slice`, which `TryFrom<&[u8]>` must agree with.
pub fn sliced<T>(bytes: &[u8]) -> Verdict
where
    T: FlakeId + Debug + for<'a> TryFrom<&'a [u8], Error = flake_core::Error>,
{
    let value = T::from_slice(bytes);
    assert_eq!(value, T::try_from(bytes), "TryFrom<&[u8]> of {bytes:02x?}");
    value.map(|v| to_hex(v.bytes())).map_err(refused)
}

#[cfg(feature = "serde")]
pub fn deserialized<T: FlakeId + serde::de::DeserializeOwned>(text: &str) -> Verdict {
    use serde::de::value::{Error, StrDeserializer};
    use serde::de::IntoDeserializer;
    let input: StrDeserializer<'_, Error> = text.into_deserializer();
    match T::deserialize(input) {
        Ok(value) => Ok(value.to_string()),
        // The messages of docs/sql-reference.md "Errors", one per SQLSTATE.
        Err(e) => {
            let message = e.to_string();
            let name = T::TYPE_NAME;
            if message == format!("invalid input syntax for type {name}: \"{text}\"") {
                Err(INVALID_TEXT)
            } else if message == format!("value \"{text}\" is out of range for type {name}") {
                Err(OUT_OF_RANGE)
            } else {
                Err("unexpected serde error")
            }
        }
    }
}

#[cfg(feature = "postgres")]
pub fn from_sql<T: FlakeId + for<'a> postgres_types::FromSql<'a>>(bytes: &[u8]) -> Verdict {
    match T::from_sql(&postgres_types::Type::BYTEA, bytes) {
        Ok(value) => Ok(to_hex(value.bytes())),
        Err(e) => Err(e
            .downcast_ref::<flake_core::Error>()
            .map_or("not a flake_core::Error", |e| e.kind().sqlstate())),
    }
}

// --- tests shared by several formats -----------------------------------------

/// `from_str` and `decode` (from text bytes) of a type whose text is 16
/// characters of one alphabet.
macro_rules! sixteen_character_decoders {
    ($($Type:ident: $from_str:ident, $decode:ident, $alphabet:expr, $vectors:expr;)*) => {$(
        #[test]
        fn $from_str() {
            use $crate::harness::{check_text, parsed, INVALID_TEXT};
            use $crate::{inputs::texts, oracle::every_text_of};
            check_text(
                concat!(stringify!($Type), "::from_str"),
                &[INVALID_TEXT],
                texts(&$vectors),
                parsed::<$Type>,
                every_text_of($alphabet, 16),
            );
        }

        #[test]
        fn $decode() {
            use $crate::harness::{check_bytes, decoded, INVALID_TEXT};
            use $crate::inputs::text_bytes;
            use $crate::oracle::{every_text_of, on_bytes};
            check_bytes(
                concat!(stringify!($Type), "::decode"),
                &[INVALID_TEXT],
                text_bytes(&$vectors),
                |b| decoded($Type::decode(b)),
                on_bytes(every_text_of($alphabet, 16), INVALID_TEXT),
            );
        }
    )*};
}

/// `from_slice` of a type of `len` bytes, fed arrays around that length
/// with `edge` values mixed in.
macro_rules! from_slice_decoders {
    ($($(#[$doc:meta])* $Type:ident: $test:ident, $len:expr, $edge:expr;)*) => {$(
        $(#[$doc])*
        #[test]
        fn $test() {
            use $crate::harness::{check_bytes, sliced, INVALID_BINARY};
            use $crate::{inputs::binary, oracle::exactly};
            check_bytes(
                concat!(stringify!($Type), "::from_slice"),
                &[INVALID_BINARY],
                binary($len, $edge),
                sliced::<$Type>,
                exactly($len),
            );
        }
    )*};
}

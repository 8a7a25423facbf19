//! What every fixed-length identifier type offers, whatever its format
//! ([`FlakeId`]), and `fixed_id!`, which declares it for
//! a format's value type: a mechanism, which names no format. `lib.rs`
//! re-exports the trait and its text buffer at the crate's root
//! (`flake_core::FlakeId`).

use crate::error::{Error, Result};
use crate::sortkey;

/// Every identifier type can be abbreviated in a sort
/// ([`sortkey::Abbreviator`]).
impl<T: FlakeId> sortkey::Abbreviated for T {
    const LEN: usize = <T as FlakeId>::LEN;
    const ABBREVIATION: sortkey::Abbreviation = <T as FlakeId>::ABBREVIATION;
}

/// Room for the longest canonical text of any [`FlakeId`] type (SIQ's 29
/// characters), so that text output needs no heap allocation.
pub const MAX_TEXT_LEN: usize = 32;

/// A stack buffer for [`FlakeId::encode_text`].
pub type TextBuffer = [u8; MAX_TEXT_LEN];

/// What every fixed-length identifier type offers, whatever its format.
pub trait FlakeId:
    Sized + Copy + Ord + std::hash::Hash + std::fmt::Display + std::str::FromStr<Err = Error>
{
    /// The SQL type name, also used in error messages.
    const TYPE_NAME: &'static str;
    /// Stored length in bytes.
    const LEN: usize;
    /// The value from exactly `LEN` bytes (22P03 otherwise).
    fn from_slice(bytes: &[u8]) -> Result<Self>;
    /// A value arriving in the binary wire format (a driver's `FromSql`, the
    /// extension's `receive` and `bytea` casts): [`from_slice`](Self::from_slice),
    /// and a value of the type, where not every byte string of its length is
    /// (a distributed_id above 10^28 − 1 is 22003).
    fn from_wire(bytes: &[u8]) -> Result<Self>;
    /// The stored big-endian bytes.
    fn bytes(&self) -> &[u8];
    /// The canonical text (what `Display` writes, always ASCII) into `out`
    /// without allocating or formatting; returns its length.
    fn encode_text(&self, out: &mut TextBuffer) -> usize;
    /// How a sort abbreviates the values ([`sortkey::Abbreviation`]): by
    /// their leading bits where the bits below the time are random, else
    /// relative to the sort's first value with the field that one
    /// generating server writes the same into every ID set aside.
    const ABBREVIATION: sortkey::Abbreviation;
    /// The greatest value, as the big-endian integer of its bytes: every
    /// byte string of `LEN` bytes is a value, but for `distributed_id`
    /// (up to 10^28 − 1).
    const MAX_KEY: u128;
    /// The bytes as one big-endian integer (of at most [`MAX_KEY`](Self::MAX_KEY)),
    /// whose order is therefore the values' order.
    ///
    /// Generators build an ID as its key and hand it on as one (the
    /// `try_generate_key` of sno, SIQ and kuid96): a value of 10 to 14 bytes
    /// that is built in pieces and handed on through memory is read back in
    /// 8-byte loads that straddle the stores that wrote it, and each such
    /// load waits for them, which was a fifth of an ID's cost
    /// (docs/BENCHMARKS.md "Generation profile").
    fn key(&self) -> u128;
    /// The value whose bytes are the low `LEN` bytes of `key`, big-endian:
    /// [`key`](Self::key)'s inverse, for a key of at most `MAX_KEY`.
    fn from_key(key: u128) -> Self;
}

/// Declares the common surface of a fixed-length identifier: byte access,
/// `FlakeId`, `Debug` as text, and the optional serde and postgres impls.
/// The format module supplies `Display` and `FromStr`.
macro_rules! fixed_id {
    // A type whose text is its fixed-width `encode()` array, every byte
    // string of its length a value.
    ($ty:ident, $len:literal, $sql:literal) => {
        $crate::flake_id::fixed_id!(
            $ty,
            $len,
            $sql,
            abbreviation = $crate::sortkey::Abbreviation::LeadingBits
        );
    };
    ($ty:ident, $len:literal, $sql:literal, abbreviation = $abbreviation:expr) => {
        $crate::flake_id::fixed_id!(
            $ty,
            $len,
            $sql,
            valid = Ok,
            max_key = u128::MAX >> (128 - 8 * $len),
            text = |id: &$ty, out: &mut $crate::flake_id::TextBuffer| {
                let text = id.encode();
                out[..text.len()].copy_from_slice(&text);
                text.len()
            },
            abbreviation = $abbreviation
        );
    };
    (
        $ty:ident,
        $len:literal,
        $sql:literal,
        valid = $valid:expr,
        max_key = $max_key:expr,
        text = $text:expr,
        abbreviation = $abbreviation:expr
    ) => {
        impl $ty {
            pub const LEN: usize = $len;
            pub const fn from_bytes(bytes: [u8; $len]) -> Self {
                $ty(bytes)
            }
            pub const fn to_bytes(&self) -> [u8; $len] {
                self.0
            }
            pub const fn as_bytes(&self) -> &[u8; $len] {
                &self.0
            }
        }

        impl $crate::flake_id::FlakeId for $ty {
            const TYPE_NAME: &'static str = $sql;
            const LEN: usize = $len;
            const ABBREVIATION: $crate::sortkey::Abbreviation = $abbreviation;
            const MAX_KEY: u128 = $max_key;
            fn from_slice(bytes: &[u8]) -> $crate::error::Result<Self> {
                <[u8; $len]>::try_from(bytes).map($ty).map_err(|_| {
                    $crate::error::Error::InvalidBinary {
                        type_name: $sql,
                        expected: concat!("exactly ", $len),
                        actual: bytes.len(),
                    }
                })
            }
            fn from_wire(bytes: &[u8]) -> $crate::error::Result<Self> {
                let id = <$ty as $crate::flake_id::FlakeId>::from_slice(bytes)?;
                $valid(id)
            }
            fn bytes(&self) -> &[u8] {
                &self.0
            }
            #[inline(always)]
            fn key(&self) -> u128 {
                $crate::sortkey::key_of(&self.0)
            }
            #[inline(always)]
            fn from_key(key: u128) -> Self {
                debug_assert!(key <= $max_key);
                let mut bytes = [0u8; $len];
                bytes.copy_from_slice(&key.to_be_bytes()[16 - $len..]);
                $ty(bytes)
            }
            #[inline]
            fn encode_text(&self, out: &mut $crate::flake_id::TextBuffer) -> usize {
                $text(self, out)
            }
        }

        impl TryFrom<&[u8]> for $ty {
            type Error = $crate::error::Error;
            fn try_from(bytes: &[u8]) -> $crate::error::Result<Self> {
                <$ty as $crate::flake_id::FlakeId>::from_slice(bytes)
            }
        }

        impl From<[u8; $len]> for $ty {
            fn from(bytes: [u8; $len]) -> Self {
                $ty(bytes)
            }
        }

        impl From<$ty> for [u8; $len] {
            fn from(id: $ty) -> Self {
                id.0
            }
        }

        impl ::std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, concat!($sql, "({})"), self)
            }
        }

        #[cfg(feature = "serde")]
        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        #[cfg(feature = "serde")]
        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct TextVisitor;
                impl ::serde::de::Visitor<'_> for TextVisitor {
                    type Value = $ty;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        f.write_str(concat!("the canonical text form of a ", $sql))
                    }
                    fn visit_str<E: ::serde::de::Error>(self, v: &str) -> Result<$ty, E> {
                        v.parse().map_err(E::custom)
                    }
                }
                d.deserialize_str(TextVisitor)
            }
        }

        #[cfg(feature = "postgres")]
        impl<'a> ::postgres_types::FromSql<'a> for $ty {
            fn from_sql(
                _ty: &::postgres_types::Type,
                raw: &'a [u8],
            ) -> Result<Self, Box<dyn ::std::error::Error + Sync + Send>> {
                Ok(<$ty as $crate::flake_id::FlakeId>::from_wire(raw)?)
            }
            fn accepts(ty: &::postgres_types::Type) -> bool {
                ty.name() == $sql
            }
        }

        #[cfg(feature = "postgres")]
        impl ::postgres_types::ToSql for $ty {
            fn to_sql(
                &self,
                _ty: &::postgres_types::Type,
                out: &mut ::bytes::BytesMut,
            ) -> Result<::postgres_types::IsNull, Box<dyn ::std::error::Error + Sync + Send>> {
                out.extend_from_slice(&self.0);
                Ok(::postgres_types::IsNull::No)
            }
            fn accepts(ty: &::postgres_types::Type) -> bool {
                ty.name() == $sql
            }
            ::postgres_types::to_sql_checked!();
        }
    };
}
pub(crate) use fixed_id;

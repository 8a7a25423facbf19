//! SQL surface of public identities (docs/formats/public_id.md): an
//! internal `bigint`, `distributed_id` or `uuid` as an AES-encrypted `uuid`,
//! and back; the key setting and the log filter that hides it (docs/sql-reference.md
//! "Public identities").
//!
//! Every function exists twice: with a `key bytea` argument it is
//! `IMMUTABLE`; without it, it uses `pg_flake.public_id_key` (expanded once
//! when the setting changes) and is `STABLE`. No message shows key material.

use super::format::Format;
use crate::formats::distributed_id::DistributedId;
use crate::plumbing::backend::errors::{raise, OrRaise};
use crate::plumbing::fmgr::c_function::sql_file;
use crate::plumbing::settings::{self, preloaded, Definition, Rejection, TextSetting};
use flake_core::public_id::PublicIdKey;
use flake_core::{Error, ErrorKind};
use pgrx::datum::Uuid;
use pgrx::guc::{GucContext, GucFlags, GucSetting};
use pgrx::prelude::*;
use std::cell::RefCell;
use std::ffi::CString;
use std::rc::Rc;

sql_file!(
    "../../sql/public_id.sql",
    name = "public_id",
    requires = ["alphanumeric"]
);

pub static FORMAT: Format = Format {
    init,
    ..Format::named("public_id")
};

fn init() {
    define_settings();
    // The key's value never reaches the server log either.
    crate::plumbing::settings::log_secret::hide_from_log("pg_flake.public_id_key");
}

// --- the key setting -----------------------------------------------------------------

/// `pg_flake.public_id_key`: base64 text, unset (NULL or '') by default.
/// Nothing in this module ever puts its value into a message.
static PUBLIC_ID_KEY: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);

thread_local! {
    /// The key of `pg_flake.public_id_key`, expanded when the setting
    /// changes (the assign hook), not per call; wiped when replaced.
    static PUBLIC_ID_CIPHER: RefCell<Option<Rc<PublicIdKey>>> = const { RefCell::new(None) };
}

/// The key of a `pg_flake.public_id_key` text; None for unset (NULL or '').
fn parse_key_setting(text: &[u8]) -> Option<flake_core::Result<PublicIdKey>> {
    if text.is_empty() {
        return None;
    }
    // Text that is not UTF-8 is not base64 either, lossy or not.
    Some(PublicIdKey::from_base64(&String::from_utf8_lossy(text)))
}

struct KeySetting;

impl TextSetting for KeySetting {
    /// The messages say what is wrong (base64, length) and never show the
    /// value.
    fn check(text: &[u8]) -> Result<(), Rejection> {
        match parse_key_setting(text) {
            None | Some(Ok(_)) => Ok(()),
            Some(Err(error)) => Err(Rejection::HidingValue {
                message: "invalid value for parameter \"pg_flake.public_id_key\" (value not shown)"
                    .into(),
                detail: format!(
                    "{error}. Give the standard base64 of a random key, e.g. from: openssl rand -base64 32"
                ),
            }),
        }
    }

    fn assign(text: &[u8]) {
        // The check admitted only unset values and valid keys.
        let key = parse_key_setting(text).and_then(Result::ok);
        PUBLIC_ID_CIPHER.set(key.map(Rc::new));
    }
}

fn define_settings() {
    settings::define_text::<KeySetting>(
        Definition {
            name: c"pg_flake.public_id_key",
            short: c"Default key of the public_id_* functions: base64 of 16, 24 or 32 bytes (AES-128/192/256).",
            long: c"Superuser-only and hidden from other roles; the functions use it without revealing it.",
            context: GucContext::Suset,
            flags: GucFlags::SUPERUSER_ONLY | GucFlags::NO_SHOW_ALL,
        },
        &PUBLIC_ID_KEY,
    );
}

// --- functions -----------------------------------------------------------------------

/// A key argument: 16, 24 or 32 bytes, else 22023.
fn key_arg(key: &[u8]) -> PublicIdKey {
    PublicIdKey::new(key).or_raise()
}

/// The key of `pg_flake.public_id_key`. 55000 unless pg_flake is preloaded
/// (otherwise the setting is not hidden, see `settings::preloaded`); 22023,
/// saying how to set it, while it is unset.
fn configured_key() -> Rc<PublicIdKey> {
    if !preloaded() {
        raise(Error::refused(
            ErrorKind::NotReady,
            "pg_flake.public_id_key is used only when pg_flake is in shared_preload_libraries",
            "Without it, a session that has not loaded pg_flake yet shows the key to every role. \
             Add pg_flake to shared_preload_libraries and restart the server, \
             or pass the key as the last argument.",
        ));
    }
    PUBLIC_ID_CIPHER
        .with_borrow(Option::clone)
        .unwrap_or_else(|| {
            raise(Error::refused(
                ErrorKind::InvalidParameter,
                "pg_flake.public_id_key is not set: as a superuser, run \
                 ALTER SYSTEM SET pg_flake.public_id_key = '<base64 key>' and SELECT pg_reload_conf(), \
                 or pass the key as the last argument",
                "The key is the standard base64 of 16, 24 or 32 random bytes (AES-128, -192, -256), \
                 e.g. from: openssl rand -base64 32. Do not use ALTER DATABASE or ALTER ROLE … SET: \
                 every role can read those values in pg_db_role_setting.",
            ))
        })
}

fn uuid(bytes: [u8; 16]) -> Uuid {
    Uuid::from_bytes(bytes)
}

// --- encryption ------------------------------------------------------------------

#[doc(alias = "public_id_encrypt_bigint_wrapper")]
#[pg_extern(sql = false)]
fn public_id_encrypt_bigint(value: i64, key: &[u8]) -> Uuid {
    uuid(key_arg(key).encrypt_i64(value).or_raise())
}

#[doc(alias = "public_id_encrypt_bigint_configured_wrapper")]
#[pg_extern(sql = false)]
fn public_id_encrypt_bigint_configured(value: i64) -> Uuid {
    uuid(configured_key().encrypt_i64(value).or_raise())
}

#[doc(alias = "public_id_encrypt_distributed_id_wrapper")]
#[pg_extern(sql = false)]
fn public_id_encrypt_distributed_id(id: DistributedId, key: &[u8]) -> Uuid {
    uuid(key_arg(key).encrypt_distributed_id(&id.0))
}

#[doc(alias = "public_id_encrypt_distributed_id_configured_wrapper")]
#[pg_extern(sql = false)]
fn public_id_encrypt_distributed_id_configured(id: DistributedId) -> Uuid {
    uuid(configured_key().encrypt_distributed_id(&id.0))
}

#[doc(alias = "public_id_encrypt_uuid_wrapper")]
#[pg_extern(sql = false)]
fn public_id_encrypt_uuid(id: Uuid, key: &[u8]) -> Uuid {
    uuid(key_arg(key).encrypt_uuid(*id.as_bytes()))
}

#[doc(alias = "public_id_encrypt_uuid_configured_wrapper")]
#[pg_extern(sql = false)]
fn public_id_encrypt_uuid_configured(id: Uuid) -> Uuid {
    uuid(configured_key().encrypt_uuid(*id.as_bytes()))
}

// --- decryption: NULL where the plaintext lacks the input type's structure ------

#[doc(alias = "public_id_decrypt_bigint_wrapper")]
#[pg_extern(sql = false)]
fn public_id_decrypt_bigint(public_id: Uuid, key: &[u8]) -> Option<i64> {
    key_arg(key).decrypt_i64(*public_id.as_bytes())
}

#[doc(alias = "public_id_decrypt_bigint_configured_wrapper")]
#[pg_extern(sql = false)]
fn public_id_decrypt_bigint_configured(public_id: Uuid) -> Option<i64> {
    configured_key().decrypt_i64(*public_id.as_bytes())
}

#[doc(alias = "public_id_decrypt_distributed_id_wrapper")]
#[pg_extern(sql = false)]
fn public_id_decrypt_distributed_id(public_id: Uuid, key: &[u8]) -> Option<DistributedId> {
    key_arg(key)
        .decrypt_distributed_id(*public_id.as_bytes())
        .map(DistributedId)
}

#[doc(alias = "public_id_decrypt_distributed_id_configured_wrapper")]
#[pg_extern(sql = false)]
fn public_id_decrypt_distributed_id_configured(public_id: Uuid) -> Option<DistributedId> {
    configured_key()
        .decrypt_distributed_id(*public_id.as_bytes())
        .map(DistributedId)
}

#[doc(alias = "public_id_decrypt_uuid_wrapper")]
#[pg_extern(sql = false)]
fn public_id_decrypt_uuid(public_id: Uuid, key: &[u8]) -> Uuid {
    uuid(key_arg(key).decrypt_uuid(*public_id.as_bytes()))
}

#[doc(alias = "public_id_decrypt_uuid_configured_wrapper")]
#[pg_extern(sql = false)]
fn public_id_decrypt_uuid_configured(public_id: Uuid) -> Uuid {
    uuid(configured_key().decrypt_uuid(*public_id.as_bytes()))
}

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use crate::plumbing::pg_test_support::text_of;
    use pgrx::prelude::*;

    #[pg_test]
    fn public_id_readme_example() {
        let text = text_of(
            "SELECT alphanumeric_encode(public_id_encrypt('1088824355131185736905670087'::distributed_id, \
             decode('k7fBDJcQam02hsByaOWPeP2CqeDeGXvrPUkEAQBtAFc=', 'base64')))",
        );
        assert_eq!(text.as_deref(), Some("48XoooHHCe1CiOHrghM7Dl"));
    }

    // This test server does not preload pg_flake: the key setting would not
    // be hidden, so the functions refuse to use it.
    #[pg_test(
        error = "pg_flake.public_id_key is used only when pg_flake is in shared_preload_libraries"
    )]
    fn public_id_key_requires_preloading() {
        Spi::run("SET pg_flake.public_id_key = 'k7fBDJcQam02hsByaOWPeP2CqeDeGXvrPUkEAQBtAFc='")
            .unwrap();
        Spi::run("SELECT public_id_encrypt(1::bigint)").unwrap();
    }
}

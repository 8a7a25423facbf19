//! Public IDs (docs/sql-reference.md, "Public identities"): the key's base64, the key, and
//! decrypting public IDs written as uuid text, with the documentation's key.
//!
//! | decoder | accepted form → canonical form | rejected |
//! |---|---|---|
//! | `public_id::decode_base64` | standard base64 with `=` padding, unused bits zero (strict) | `None` |
//! | `PublicIdKey::from_base64` | that base64 of 16, 24 or 32 bytes | 22023 |
//! | `PublicIdKey::new(&[u8])` | 16, 24 or 32 bytes | 22023 |
//! | uuid text → `PublicIdKey::decrypt_i64` | a uuid (8-4-4-4-12 hex digits, either case) whose plaintext is 8 zero bytes and a little-endian value ≤ 2^63−1 → the lower-case uuid, which re-encrypting the value gives back | 22P02 (uuid text); `NULL` |
//! | uuid text → `PublicIdKey::decrypt_distributed_id` | plaintext: 4 zero bytes, then hi, lo, mid little-endian, value ≤ 10^28−1 | 22P02; `NULL` |
//! | uuid text → `PublicIdKey::decrypt_uuid` | every uuid | 22P02 |

use crate::distributed_id::DISTRIBUTED_ID_MAX;
use crate::harness::{
    check_bytes, check_text, refused, Verdict, INVALID_PARAMETER, INVALID_TEXT, NONE, NULL,
};
use crate::inputs::{
    binary, magnitude, random_bytes, recase, take, texts, uuid_text, Dice, Form, UUID,
};
use crate::oracle::{canonical_base64, uuid_bytes};
use aes::cipher::consts::U16;
use aes::cipher::generic_array::GenericArray;
use aes::cipher::{BlockDecrypt, BlockEncrypt, BlockSizeUser, KeyInit};
use flake_core::distributed_id::DistributedId;
use flake_core::distributed_id128::DistributedId128;
use flake_core::public_id::{decode_base64, PublicIdKey};
use flake_test_support::{base64, to_hex};
use std::sync::OnceLock;

/// `pg_flake.public_id_key` of the documentation's example (docs/sql-reference.md
/// "Public identities", the README example of the reference).
const README_KEY: [u8; 32] = [
    0x93, 0xb7, 0xc1, 0x0c, 0x97, 0x10, 0x6a, 0x6d, 0x36, 0x86, 0xc0, 0x72, 0x68, 0xe5, 0x8f, 0x78,
    0xfd, 0x82, 0xa9, 0xe0, 0xde, 0x19, 0x7b, 0xeb, 0x3d, 0x49, 0x04, 0x01, 0x00, 0x6d, 0x00, 0x57,
];

const PROBE: [u8; 16] = [0x5a; 16];

// --- decoders' verdicts ------------------------------------------------------

fn public_key() -> &'static PublicIdKey {
    static KEY: OnceLock<PublicIdKey> = OnceLock::new();
    KEY.get_or_init(|| PublicIdKey::new(&README_KEY).expect("a 32-byte key"))
}

/// What a key does, since it cannot be read back: its size and the public
/// ID of one fixed uuid.
fn key_fingerprint(key: PublicIdKey) -> String {
    format!("AES-{} {}", key.bits(), to_hex(&key.encrypt_uuid(PROBE)))
}

/// uuid text → public ID bytes → `decrypt`; an accepted value is shown as
/// the uuid text of its re-encryption.
fn decrypted<T>(
    text: &str,
    decrypt: impl Fn(&PublicIdKey, [u8; 16]) -> Option<T>,
    encrypt: impl Fn(&PublicIdKey, T) -> [u8; 16],
) -> Verdict {
    let public_id = text.parse::<DistributedId128>().map_err(refused)?;
    let value = decrypt(public_key(), public_id.to_bytes()).ok_or(NULL)?;
    Ok(uuid_text(encrypt(public_key(), value)))
}

// --- the spec ----------------------------------------------------------------

/// .NET `Guid` byte order (its own inverse).
fn guid(b: [u8; 16]) -> [u8; 16] {
    [
        b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6], b[8], b[9], b[10], b[11], b[12], b[13],
        b[14], b[15],
    ]
}

fn aes_block<C: BlockEncrypt + BlockDecrypt + BlockSizeUser<BlockSize = U16>>(
    cipher: &C,
    block: [u8; 16],
    decrypt: bool,
) -> [u8; 16] {
    let mut block = GenericArray::from(block);
    if decrypt {
        cipher.decrypt_block(&mut block);
    } else {
        cipher.encrypt_block(&mut block);
    }
    block.into()
}

fn encrypt_with<C: KeyInit + BlockEncrypt + BlockDecrypt + BlockSizeUser<BlockSize = U16>>(
    key: &[u8],
    block: [u8; 16],
) -> [u8; 16] {
    aes_block(
        &C::new_from_slice(key).expect("key length checked"),
        block,
        false,
    )
}

/// The documentation's key, expanded once.
fn spec_cipher() -> &'static aes::Aes256 {
    static CIPHER: OnceLock<aes::Aes256> = OnceLock::new();
    CIPHER.get_or_init(|| aes::Aes256::new(&GenericArray::from(README_KEY)))
}

/// The fingerprint `key_fingerprint` must show for key bytes, if a key.
fn key_spec(key: &[u8]) -> Verdict {
    let public = |block| match key.len() {
        16 => Some(encrypt_with::<aes::Aes128>(key, block)),
        24 => Some(encrypt_with::<aes::Aes192>(key, block)),
        32 => Some(encrypt_with::<aes::Aes256>(key, block)),
        _ => None,
    };
    let probe = public(PROBE).ok_or(INVALID_PARAMETER)?;
    Ok(format!("AES-{} {}", key.len() * 8, to_hex(&guid(probe))))
}

/// The plaintext of a public ID in uuid text, or the uuid text's refusal.
fn plaintext(text: &str) -> Result<[u8; 16], &'static str> {
    let public_id = uuid_bytes(text).ok_or(INVALID_TEXT)?;
    Ok(aes_block(spec_cipher(), guid(public_id), true))
}

fn decrypt_i64_spec(text: &str) -> Verdict {
    let p = plaintext(text)?;
    let value = u64::from_le_bytes(p[8..].try_into().expect("8 bytes"));
    if p[..8] != [0; 8] || value > i64::MAX as u64 {
        return Err(NULL);
    }
    Ok(text.to_ascii_lowercase())
}

fn decrypt_distributed_id_spec(text: &str) -> Verdict {
    let p = plaintext(text)?;
    let word = |at: usize| u32::from_le_bytes(p[at..at + 4].try_into().expect("4 bytes")) as u128;
    // Flags, hi, lo, mid.
    let value = word(4) << 64 | word(12) << 32 | word(8);
    if p[..4] != [0; 4] || value > DISTRIBUTED_ID_MAX {
        return Err(NULL);
    }
    Ok(text.to_ascii_lowercase())
}

fn decrypt_uuid_spec(text: &str) -> Verdict {
    plaintext(text).map(|_| text.to_ascii_lowercase())
}

// --- inputs ------------------------------------------------------------------

/// Key lengths that AES takes.
fn key_sized(d: &mut Dice) -> Vec<u8> {
    let len = d.pick(&[16, 24, 32]);
    random_bytes(len, d)
}

fn public_i64_seed(r: &[u8; 32]) -> String {
    let value = i64::from_be_bytes(take(r)) & i64::MAX;
    let public_id = public_key().encrypt_i64(value).expect("non-negative");
    recase(&uuid_text(public_id), r[31], &r[16..31])
}

fn public_distributed_id_seed(r: &[u8; 32]) -> String {
    let id = DistributedId::from_u128(magnitude(r) % (DISTRIBUTED_ID_MAX + 1)).expect("in range");
    recase(
        &uuid_text(public_key().encrypt_distributed_id(&id)),
        r[31],
        &r[17..31],
    )
}

fn public_uuid_seed(r: &[u8; 32]) -> String {
    recase(
        &uuid_text(public_key().encrypt_uuid(take(r))),
        r[31],
        &r[16..31],
    )
}

fn base64_seed(r: &[u8; 32]) -> String {
    base64(&r[..r[31] as usize % 32])
}

fn key_base64_seed(r: &[u8; 32]) -> String {
    let len = match r[30] % 4 {
        0 => r[29] as usize % 33,
        n => [16, 24, 32][n as usize - 1],
    };
    base64(&r[..len])
}

const PUBLIC_I64: Form = Form {
    seed: public_i64_seed,
    ..UUID
};

const PUBLIC_DISTRIBUTED_ID: Form = Form {
    seed: public_distributed_id_seed,
    ..UUID
};

const PUBLIC_UUID: Form = Form {
    seed: public_uuid_seed,
    ..UUID
};

const BASE64: Form = Form {
    alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/==",
    len: 44,
    seed: base64_seed,
};

const KEY_BASE64: Form = Form {
    seed: key_base64_seed,
    ..BASE64
};

// --- tests -------------------------------------------------------------------

/// The fixed key, base64 and AES used by the specs, against the documentation.
#[test]
fn readme_public_id_example() {
    assert_eq!(
        base64(&README_KEY),
        "k7fBDJcQam02hsByaOWPeP2CqeDeGXvrPUkEAQBtAFc="
    );
    let id: DistributedId = "1088824355131185736905670087"
        .parse()
        .expect("a distributed_id");
    let public_id = public_key().encrypt_distributed_id(&id);
    assert_eq!(uuid_text(public_id), "30322474-a954-ffa9-941c-6f038afe4ff1");
    assert_eq!(
        decrypt_distributed_id_spec(&uuid_text(public_id)),
        Ok(uuid_text(public_id))
    );
}

#[test]
fn public_id_decode_base64() {
    check_text(
        "public_id::decode_base64",
        &[NONE],
        texts(&BASE64),
        |s| decode_base64(s).map(|b| base64(&b)).ok_or(NONE),
        |s| canonical_base64(s).map(|_| s.to_owned()).ok_or(NONE),
    );
}

#[test]
fn public_id_key_from_base64() {
    check_text(
        "PublicIdKey::from_base64",
        &[INVALID_PARAMETER],
        texts(&KEY_BASE64),
        |s| {
            PublicIdKey::from_base64(s)
                .map(key_fingerprint)
                .map_err(refused)
        },
        |s| canonical_base64(s).map_or(Err(INVALID_PARAMETER), |key| key_spec(&key)),
    );
}

#[test]
fn public_id_key_new() {
    check_bytes(
        "PublicIdKey::new",
        &[INVALID_PARAMETER],
        binary(20, key_sized),
        |b| PublicIdKey::new(b).map(key_fingerprint).map_err(refused),
        key_spec,
    );
}

#[test]
fn public_id_decrypt_i64() {
    check_text(
        "uuid text -> PublicIdKey::decrypt_i64",
        &[INVALID_TEXT, NULL],
        texts(&PUBLIC_I64),
        |s| {
            decrypted(s, PublicIdKey::decrypt_i64, |k, v| {
                k.encrypt_i64(v).expect("decrypted values are non-negative")
            })
        },
        decrypt_i64_spec,
    );
}

#[test]
fn public_id_decrypt_distributed_id() {
    check_text(
        "uuid text -> PublicIdKey::decrypt_distributed_id",
        &[INVALID_TEXT, NULL],
        texts(&PUBLIC_DISTRIBUTED_ID),
        |s| {
            decrypted(s, PublicIdKey::decrypt_distributed_id, |k, id| {
                k.encrypt_distributed_id(&id)
            })
        },
        decrypt_distributed_id_spec,
    );
}

#[test]
fn public_id_decrypt_uuid() {
    check_text(
        "uuid text -> PublicIdKey::decrypt_uuid",
        &[INVALID_TEXT],
        texts(&PUBLIC_UUID),
        |s| decrypted(s, |k, b| Some(k.decrypt_uuid(b)), PublicIdKey::encrypt_uuid),
        decrypt_uuid_spec,
    );
}

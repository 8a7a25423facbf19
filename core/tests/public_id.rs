mod common;

use common::*;
use flake_core::alphanumeric;
use flake_core::distributed_id::{DistributedId, MAX_VALUE};
use flake_core::distributed_id128::DistributedId128;
use flake_core::public_id::{decode_base64, PublicIdKey};
use flake_core::ErrorKind;
use proptest::prelude::*;
use serde_json::Value;

fn uuid(text: &str) -> [u8; 16] {
    text.parse::<DistributedId128>()
        .unwrap_or_else(|e| panic!("{text}: {e}"))
        .to_bytes()
}

fn uuid_text(bytes: [u8; 16]) -> String {
    DistributedId128::from_bytes(bytes).to_string()
}

fn key(v: &Value) -> PublicIdKey {
    PublicIdKey::from_base64(v["key_base64"].as_str().unwrap()).unwrap()
}

/// Checks the three decryptions of `public_id` against the vector's `decrypt`.
fn check_decrypt(v: &Value, key: &PublicIdKey, public_id: [u8; 16]) {
    let n = name(v);
    let d = &v["decrypt"];
    let as_text = |x: &Value| x.as_str().map(str::to_owned);
    assert_eq!(
        key.decrypt_i64(public_id).map(|x| x.to_string()),
        as_text(&d["bigint"]),
        "{n}"
    );
    assert_eq!(
        key.decrypt_distributed_id(public_id).map(|x| x.to_string()),
        as_text(&d["distributed_id"]),
        "{n}"
    );
    assert_eq!(
        uuid_text(key.decrypt_uuid(public_id)),
        d["uuid"].as_str().unwrap(),
        "{n}"
    );
}

#[test]
fn encrypt_vectors() {
    let all = vectors("publicid.jsonl");
    let cases = of_kind(&all, &["encrypt"]);
    assert_eq!(cases.len(), 20);
    for v in cases {
        let n = name(v);
        let key = key(v);
        assert_eq!(key.bits() as i128, int(&v["key_bits"]), "{n}");
        let input = v["input"].as_str().unwrap();
        let public_id = match v["input_type"].as_str().unwrap() {
            "bigint" => key.encrypt_i64(input.parse().unwrap()).unwrap(),
            "distributed_id" => key.encrypt_distributed_id(&input.parse().unwrap()),
            "uuid" => key.encrypt_uuid(uuid(input)),
            other => panic!("{n}: unknown input type {other}"),
        };
        assert_eq!(
            uuid_text(public_id),
            v["public_id"].as_str().unwrap(),
            "{n}"
        );
        assert_eq!(
            alphanumeric::encode_u128_blocks(public_id),
            v["public_alphanumeric"].as_str().unwrap(),
            "{n}"
        );
        check_decrypt(v, &key, public_id);
    }
}

#[test]
fn decrypt_vectors() {
    let all = vectors("publicid.jsonl");
    let cases = of_kind(&all, &["decrypt"]);
    assert_eq!(cases.len(), 3);
    for v in cases {
        check_decrypt(v, &key(v), uuid(v["public_id"].as_str().unwrap()));
    }
}

#[test]
fn out_of_range_vectors() {
    let all = vectors("publicid.jsonl");
    let cases = of_kind(&all, &["out_of_range"]);
    assert_eq!(cases.len(), 1);
    for v in cases {
        let input = v["input"].as_str().unwrap();
        let key = key(v);
        let err = match v["input_type"].as_str().unwrap() {
            // The numeric → distributed_id cast fails before encryption.
            "distributed_id" => DistributedId::from_numeric_text(input).unwrap_err(),
            "bigint" => key.encrypt_i64(input.parse().unwrap()).unwrap_err(),
            other => panic!("unexpected input type {other}"),
        };
        assert_eq!(
            err.kind().sqlstate(),
            v["sqlstate"].as_str().unwrap(),
            "{}",
            name(v)
        );
    }
    let zero_key = PublicIdKey::new(&[0; 32]).unwrap();
    assert_eq!(
        zero_key.encrypt_i64(-1).unwrap_err().kind(),
        ErrorKind::NumericOutOfRange
    );
}

#[test]
fn bad_key_vectors() {
    let all = vectors("publicid.jsonl");
    let cases = of_kind(&all, &["bad_key"]);
    assert_eq!(cases.len(), 1);
    for v in cases {
        let key_hex = v["key_hex"].as_str().unwrap();
        let err = PublicIdKey::new(&hex(key_hex)).unwrap_err();
        assert_eq!(
            err.kind().sqlstate(),
            v["sqlstate"].as_str().unwrap(),
            "{}",
            name(v)
        );
        assert!(!err.to_string().contains(key_hex));
    }
}

#[test]
fn key_errors_never_show_the_key() {
    let secret = b"secret-key-material-31-bytes-xx";
    let err = PublicIdKey::new(secret).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidParameter);
    assert!(!err.to_string().contains("secret"));
    assert!(err.to_string().contains("31 bytes"));
    for text in [
        "c2VjcmV0LWtleQ",
        "c2VjcmV0LWtleQ=!",
        "not base64 at all",
        "AAAAAAAAAAAAAAAAAAAA",
    ] {
        let err = PublicIdKey::from_base64(text).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidParameter, "{text}");
        assert!(!err.to_string().contains(text), "{err}");
    }
    let key = PublicIdKey::new(&[7; 24]).unwrap();
    assert_eq!(format!("{key:?}"), "PublicIdKey(AES-192)");
}

#[test]
fn base64_is_strict() {
    assert_eq!(decode_base64("").unwrap(), b"");
    assert_eq!(decode_base64("Zg==").unwrap(), b"f");
    assert_eq!(decode_base64("Zm8=").unwrap(), b"fo");
    assert_eq!(decode_base64("Zm9v").unwrap(), b"foo");
    assert_eq!(decode_base64("+/+/").unwrap(), [0xfb, 0xff, 0xbf]);
    for bad in [
        "Zg", "Zg=", "Zh==", "Zm9=", "Z===", "====", "Zg==Zg==", "Zm9v\n", "-_-_", "Zé==",
    ] {
        assert_eq!(decode_base64(bad), None, "{bad:?}");
    }
}

#[test]
fn readme_example() {
    let key = PublicIdKey::from_base64("k7fBDJcQam02hsByaOWPeP2CqeDeGXvrPUkEAQBtAFc=").unwrap();
    let id: DistributedId = "1088824355131185736905670087".parse().unwrap();
    let public_id = key.encrypt_distributed_id(&id);
    assert_eq!(uuid_text(public_id), "30322474-a954-ffa9-941c-6f038afe4ff1");
    assert_eq!(
        alphanumeric::encode_u128_blocks(public_id),
        "48XoooHHCe1CiOHrghM7Dl"
    );
    assert_eq!(key.decrypt_distributed_id(public_id), Some(id));
}

fn any_key() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 16),
        prop::collection::vec(any::<u8>(), 24),
        prop::collection::vec(any::<u8>(), 32),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn bigint_round_trip(key in any_key(), value in 0..=i64::MAX) {
        let key = PublicIdKey::new(&key).unwrap();
        let public_id = key.encrypt_i64(value).unwrap();
        prop_assert_eq!(key.decrypt_i64(public_id), Some(value));
        prop_assert_eq!(key.decrypt_distributed_id(public_id).map(|d| d.to_u128()), Some(value as u128));
    }

    #[test]
    fn distributed_id_round_trip(key in any_key(), value in 0..=MAX_VALUE) {
        let key = PublicIdKey::new(&key).unwrap();
        let id = DistributedId::from_u128(value).unwrap();
        let public_id = key.encrypt_distributed_id(&id);
        prop_assert_eq!(key.decrypt_distributed_id(public_id), Some(id));
        if let Ok(small) = i64::try_from(value) {
            prop_assert_eq!(key.encrypt_i64(small).unwrap(), public_id);
        }
    }

    #[test]
    fn uuid_round_trip(key in any_key(), bytes in any::<[u8; 16]>()) {
        let key = PublicIdKey::new(&key).unwrap();
        let public_id = key.encrypt_uuid(bytes);
        prop_assert_eq!(key.decrypt_uuid(public_id), bytes);
        prop_assert_eq!(key.encrypt_uuid(key.decrypt_uuid(bytes)), bytes);
    }

    #[test]
    fn base64_keys_round_trip(key in any_key()) {
        let text = base64(&key);
        prop_assert_eq!(decode_base64(&text).unwrap(), key.clone());
        let from_text = PublicIdKey::from_base64(&text).unwrap();
        let direct = PublicIdKey::new(&key).unwrap();
        prop_assert_eq!(from_text.encrypt_uuid([9; 16]), direct.encrypt_uuid([9; 16]));
    }

    #[test]
    fn base64_never_panics(s in "\\PC{0,60}") {
        let _ = decode_base64(&s);
        if let Err(e) = PublicIdKey::from_base64(&s) {
            prop_assert_eq!(e.kind(), ErrorKind::InvalidParameter);
        }
    }
}

//! `FlakeId::encode_text` (the allocation-free text the extension's output
//! functions use) agrees with `Display` for every byte pattern of every type.

use flake_core::distributed_id::DistributedId;
use flake_core::flaxid::FlaxId;
use flake_core::kuid::Kuid96;
use flake_core::siq::Siq;
use flake_core::sno::Sno;
use flake_core::{FlakeId, TextBuffer, MAX_TEXT_LEN};
use proptest::prelude::*;

fn agrees<T: FlakeId>(value: T) {
    let mut buffer: TextBuffer = [0xFF; MAX_TEXT_LEN];
    let len = value.encode_text(&mut buffer);
    assert_eq!(
        std::str::from_utf8(&buffer[..len]).unwrap(),
        value.to_string()
    );
}

fn edges<const N: usize>() -> Vec<[u8; N]> {
    let mut all = vec![[0u8; N], [0xFF; N]];
    for i in 0..N {
        let mut b = [0u8; N];
        b[i] = 1;
        all.push(b);
        all.push(b.map(|x| x ^ 0xFF));
    }
    all
}

#[test]
fn edge_values() {
    for b in edges::<10>() {
        agrees(Sno::from_bytes(b));
    }
    for b in edges::<14>() {
        agrees(Siq::from_bytes(b));
    }
    for b in edges::<12>() {
        agrees(FlaxId::from_bytes(b));
        agrees(Kuid96::from_bytes(b));
        agrees(DistributedId::from_bytes(b));
    }
    for text in [
        "0",
        "9",
        "10",
        "9999999999999999999",
        "10000000000000000000",
        "10000000000000000001",
        "9999999999999999999999999999",
    ] {
        let id: DistributedId = text.parse().unwrap();
        agrees(id);
    }
}

proptest! {
    #[test]
    fn random_values(a in any::<[u8; 10]>(), b in any::<[u8; 14]>(), c in any::<[u8; 12]>()) {
        agrees(Sno::from_bytes(a));
        agrees(Siq::from_bytes(b));
        agrees(FlaxId::from_bytes(c));
        agrees(Kuid96::from_bytes(c));
        agrees(DistributedId::from_bytes(c));
    }
}

//! Text encode and decode of every format, per value (`make bench` runs this;
//! the target is at most 30 ns per value on the benchmark machine).
//!
//! Encoding is measured through `Display` into a reused `String` (what
//! applications do) and through `FlakeId::encode_text` into a stack buffer
//! (what the extension's output functions do); decoding through the strict
//! `FromStr` (what its input functions do).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use flake_core::distributed_id::DistributedId;
use flake_core::flaxid::FlaxId;
use flake_core::kuid::{self, Kuid96};
use flake_core::siq::Siq;
use flake_core::sno::Sno;
use flake_core::{alphanumeric, FlakeId, TextBuffer, MAX_TEXT_LEN};
use std::fmt::Write;

fn display_and_parse<T: FlakeId>(c: &mut Criterion, name: &str, text: &str) {
    let value: T = text.parse().expect("benchmark input is valid");
    let mut out = String::with_capacity(64);
    c.bench_function(&format!("{name}/encode"), |b| {
        b.iter(|| {
            out.clear();
            let _ = write!(out, "{}", black_box(&value));
            black_box(out.len())
        })
    });
    c.bench_function(&format!("{name}/decode"), |b| {
        b.iter(|| T::from_str(black_box(text)).expect("valid"))
    });
}

fn encode_text<T: FlakeId>(c: &mut Criterion, name: &str, text: &str) {
    let value: T = text.parse().expect("benchmark input is valid");
    let mut out: TextBuffer = [0; MAX_TEXT_LEN];
    c.bench_function(&format!("{name}/encode_text"), |b| {
        b.iter(|| black_box(&value).encode_text(black_box(&mut out)))
    });
}

fn stack_buffers(c: &mut Criterion) {
    encode_text::<Sno>(c, "sno", "brpk4q72xwf2m63l");
    encode_text::<Siq>(c, "siq", "mpzijbyagku7racaaaamgzymuoaaa");
    encode_text::<FlaxId>(c, "flaxid", "0RdKJcxqVBiAiQr0");
    encode_text::<Kuid96>(c, "kuid96", ".5.tXa0xODNvPN.0");
    encode_text::<DistributedId>(c, "distributed_id", "1088824355131185736905670087");
}

fn bigint_and_uuid_forms(c: &mut Criterion) {
    c.bench_function("kuid64/encode", |b| {
        b.iter(|| kuid::kuid64_encode_bytes(black_box(27084864703004673)).unwrap())
    });
    c.bench_function("kuid64/decode", |b| {
        b.iter(|| kuid::kuid64_decode(black_box(".5.tXbhdV.3")).unwrap())
    });
    c.bench_function("alphanumeric_bigint/encode", |b| {
        b.iter(|| alphanumeric::encode_u64(black_box(1088824355131185736)))
    });
    c.bench_function("alphanumeric_bigint/decode", |b| {
        b.iter(|| alphanumeric::decode_u64(black_box("1Iu2t2KAcbm")).unwrap())
    });
    c.bench_function("alphanumeric_uuid/decode", |b| {
        b.iter(|| alphanumeric::decode_u128_blocks(black_box("48XoooHHCe1CiOHrghM7Dl")).unwrap())
    });
}

fn native_types(c: &mut Criterion) {
    display_and_parse::<Sno>(c, "sno", "brpk4q72xwf2m63l");
    display_and_parse::<Siq>(c, "siq", "mpzijbyagku7racaaaamgzymuoaaa");
    display_and_parse::<FlaxId>(c, "flaxid", "0RdKJcxqVBiAiQr0");
    display_and_parse::<Kuid96>(c, "kuid96", ".5.tXa0xODNvPN.0");
    display_and_parse::<DistributedId>(c, "distributed_id", "1088824355131185736905670087");
}

criterion_group!(benches, native_types, stack_buffers, bigint_and_uuid_forms);
criterion_main!(benches);

//! Text encode and decode of every format, per value (`make bench` runs this;
//! the target is at most 30 ns per value on the CI machine).
//!
//! Encoding is measured through `Display` into a reused `String` (what the
//! extension's output functions do) and, where the type offers it, into a
//! stack buffer; decoding through the strict `FromStr`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use flake_core::distributed_id::DistributedId;
use flake_core::flaxid::FlaxId;
use flake_core::kuid::{self, Kuid96};
use flake_core::siq::Siq;
use flake_core::sno::Sno;
use flake_core::{alphanumeric, FlakeId};
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

fn stack_buffers(c: &mut Criterion) {
    let sno: Sno = "brpk4q72xwf2m63l".parse().unwrap();
    c.bench_function("sno/encode_buffer", |b| b.iter(|| black_box(&sno).encode()));
    let siq: Siq = "mpzijbyagku7racaaaamgzymuoaaa".parse().unwrap();
    c.bench_function("siq/encode_buffer", |b| b.iter(|| black_box(&siq).encode()));
    let flax: FlaxId = "0RdKJcxqVBiAiQr0".parse().unwrap();
    c.bench_function("flaxid/encode_buffer", |b| {
        b.iter(|| black_box(&flax).encode())
    });
    let kuid96: Kuid96 = ".5.tXa0xODNvPN.0".parse().unwrap();
    c.bench_function("kuid96/encode_buffer", |b| {
        b.iter(|| black_box(&kuid96).encode())
    });
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

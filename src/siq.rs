//! SQL surface of `siq` (`spec/siq.md`): the type, its text forms, decoding,
//! construction and the per-kind generator.

use crate::backend;
use crate::errors::OrRaise;
use crate::fixed_type::{
    datum_of, flake_type, out_record, text_arg, v1_function, FromBinary, OutRecord,
};
use crate::generator_state::{self, StateRow};
use crate::numeric::{integer_of, numeric_of};
use crate::settings;
use flake_core::siq::{self as siq_core, Kind, SiqGenerator};
use flake_core::FlakeId;
use pgrx::prelude::*;

flake_type!(Siq, siq_core::Siq, siq);

/// `bytea::siq` also takes the 16-byte form the reference's ORM columns hold.
impl FromBinary for siq_core::Siq {
    fn from_bytea(bytes: &[u8]) -> flake_core::Result<Self> {
        siq_core::Siq::from_slice_lenient(bytes)
    }
}

pgrx::extension_sql!(
    "CREATE TYPE siq;",
    name = "siq_shell",
    creates = [Type(Siq)]
);

crate::generator!(pub GENERATOR: SiqGenerator, c"pg_flake siq generator");

fn kind_named(name: &str) -> Kind {
    Kind::from_name(name).or_raise()
}

fn ticks_at(time: TimestampWithTimeZone) -> i64 {
    let micros = backend::unix_micros(time, "siq", siq_core::TIME_RANGE);
    siq_core::ticks_at(micros).or_raise() as i64
}

/// The last kind name a call site of `siq_generate` saw, in its `fn_extra`:
/// a query passes the same name row after row, and one comparison of at
/// most 16 bytes is cheaper than matching it against every kind.
#[derive(Clone, Copy)]
struct KindCache {
    len: usize,
    name: [u8; 16],
    kind: Kind,
}

/// The kind named by argument 0 of a `siq_generate` call.
///
/// # Safety
/// `fcinfo` must be a call of `siq_generate`.
unsafe fn kind_arg(fcinfo: pg_sys::FunctionCallInfo) -> Kind {
    // SAFETY: a strict function of one text argument; fn_extra belongs to
    // this function and lives in fn_mcxt, as long as the call site.
    unsafe {
        let name = text_arg(fcinfo);
        let flinfo = (*fcinfo).flinfo;
        let cache = (*flinfo).fn_extra.cast::<KindCache>();
        if !cache.is_null() && (*cache).name.get(..(*cache).len) == Some(name) {
            return (*cache).kind;
        }
        let kind = match std::str::from_utf8(name) {
            Ok(name) => kind_named(name),
            Err(_) => kind_named(&String::from_utf8_lossy(name)),
        };
        if name.len() <= 16 {
            let cache = if cache.is_null() {
                let fresh =
                    pg_sys::MemoryContextAlloc((*flinfo).fn_mcxt, std::mem::size_of::<KindCache>());
                (*flinfo).fn_extra = fresh;
                fresh.cast::<KindCache>()
            } else {
                cache
            };
            let mut entry = KindCache {
                len: name.len(),
                name: [0; 16],
                kind,
            };
            entry.name[..name.len()].copy_from_slice(name);
            cache.write(entry);
        }
        kind
    }
}

v1_function! {
    /// `siq_generate(kind text) → siq`
    fn siq_generate(fcinfo) {
        // SAFETY: this is siq_generate.
        let kind = unsafe { kind_arg(fcinfo) };
        let domain = settings::siq_domain_bits();
        datum_of(GENERATOR.generate(|generator, clock| generator.try_generate(clock, kind, domain)).bytes())
    }
}

pgrx::extension_sql!(
    r#"
CREATE FUNCTION siq_generate(kind text) RETURNS siq
    VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_generate_wrapper';
"#,
    name = "siq_generate",
    requires = ["flake_types"]
);

#[pg_extern(immutable, parallel_safe, strict)]
fn siq_timestamp(id: Siq) -> TimestampWithTimeZone {
    backend::timestamp(id.0.unix_micros())
}

#[pg_extern(immutable, parallel_safe, strict)]
fn siq_from_time(time: TimestampWithTimeZone) -> Siq {
    let micros = backend::unix_micros(time, "siq", siq_core::TIME_RANGE);
    Siq(siq_core::Siq::from_time(micros).or_raise())
}

/// NULL for an unassigned suffix.
#[pg_extern(immutable, parallel_safe, strict)]
fn siq_kind(id: Siq) -> Option<&'static str> {
    id.0.kind().map(Kind::name)
}

#[pg_extern(immutable, parallel_safe, strict)]
fn siq_serial(id: Siq) -> i32 {
    id.0.serial() as i32
}

#[pg_extern(immutable, parallel_safe, strict)]
fn siq_shard(id: Siq) -> i32 {
    id.0.shard() as i32
}

#[pg_extern(immutable, parallel_safe, strict, name = "siq_domain_hash")]
fn siq_domain_hash_of_id(id: Siq) -> i64 {
    id.0.domain_hash() as i64
}

#[pg_extern(immutable, parallel_safe, strict, name = "siq_domain_hash")]
fn siq_domain_hash_of_domain(domain: &str) -> i64 {
    siq_core::domain_hash(domain).or_raise() as i64
}

#[pg_extern(
    immutable,
    parallel_safe,
    strict,
    sql = r#"
CREATE FUNCTION siq_parts(id siq,
    OUT ticks bigint, OUT "time" timestamptz, OUT shard int, OUT domain_hash bigint,
    OUT kind text, OUT serial int, OUT low16 int)
RETURNS record IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'siq_parts_wrapper';
"#
)]
fn siq_parts(id: Siq, fcinfo: pg_sys::FunctionCallInfo) -> OutRecord {
    let id = id.0;
    out_record(
        fcinfo,
        &[
            (id.ticks() as i64).into_datum(),
            backend::timestamp(id.unix_micros()).into_datum(),
            (id.shard() as i32).into_datum(),
            (id.domain_hash() as i64).into_datum(),
            id.kind().map(Kind::name).into_datum(),
            (id.serial() as i32).into_datum(),
            (id.low16() as i32).into_datum(),
        ],
    )
}

#[pg_extern(immutable, parallel_safe, strict, name = "siq_from_parts")]
fn siq_from_parts_ticks(ticks: i64, shard: i32, domain_hash: i64, kind: &str, serial: i32) -> Siq {
    Siq(siq_core::Siq::from_parts(ticks, shard, domain_hash, kind_named(kind), serial).or_raise())
}

#[pg_extern(immutable, parallel_safe, strict, name = "siq_from_parts")]
fn siq_from_parts_time(
    time: TimestampWithTimeZone,
    shard: i32,
    domain_hash: i64,
    kind: &str,
    serial: i32,
) -> Siq {
    siq_from_parts_ticks(ticks_at(time), shard, domain_hash, kind, serial)
}

#[pg_extern(immutable, parallel_safe, strict)]
fn siq_to_hex(id: Siq) -> String {
    id.0.to_hex()
}

#[pg_extern(immutable, parallel_safe, strict)]
fn siq_from_hex(hex: &str) -> Siq {
    Siq(siq_core::Siq::from_hex(hex).or_raise())
}

#[pg_extern(immutable, parallel_safe, strict)]
fn siq_to_base64(id: Siq) -> String {
    id.0.to_base64()
}

#[pg_extern(immutable, parallel_safe, strict)]
fn siq_to_did(id: Siq) -> String {
    id.0.to_did()
}

#[pg_extern(immutable, parallel_safe, strict)]
fn siq_to_numeric(id: Siq) -> AnyNumeric {
    numeric_of(id.0.to_u128())
}

#[pg_extern(immutable, parallel_safe, strict)]
fn siq_from_numeric(value: AnyNumeric) -> Siq {
    let integer = integer_of(&value, "siq", siq_core::MAX_VALUE, siq_core::VALUE_RANGE);
    Siq(siq_core::Siq::from_u128(integer).or_raise())
}

pgrx::extension_sql!(
    r#"
CREATE CAST (siq AS numeric) WITH FUNCTION siq_to_numeric(siq);
CREATE CAST (numeric AS siq) WITH FUNCTION siq_from_numeric(numeric);
"#,
    name = "siq_numeric_casts",
    requires = ["flake_types", siq_to_numeric, siq_from_numeric]
);

/// The SIQ generator's sequencers (one per kind used), for
/// `pg_flake_generator_state()`.
pub fn generator_states() -> Vec<StateRow> {
    generator_state::rows("siq", &GENERATOR)
}

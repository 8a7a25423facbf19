//! SQL surface of `siq` (docs/formats/siq.md): the type (its SQL in
//! `sql/siq.sql`), its text forms, decoding, construction, the
//! per-kind generator and its settings.

use super::format::Format;
use crate::generation::Generator;
use crate::node::format_setting::format_node_setting;
use crate::node::{Identity, NodeField, Source};
use crate::plumbing::backend::errors::OrRaise;
use crate::plumbing::fmgr::c_function::{c_function, sql_file, Call};
use crate::plumbing::fmgr::native_type::{native_type, FromBinary};
use crate::plumbing::fmgr::numeric::{integer_of, numeric_of};
use crate::plumbing::fmgr::record::{column, out_record};
use crate::plumbing::fmgr::timestamptz;
use crate::plumbing::settings::derived::Derived;
use crate::plumbing::settings::{self, Definition, Rejection, TextSetting};
use flake_core::siq::{self as siq_core, Kind, SiqGenerator};
use flake_core::FlakeId;
use pgrx::guc::{GucContext, GucFlags, GucSetting};
use pgrx::prelude::*;
use std::ffi::CString;
use std::sync::atomic::{AtomicU32, Ordering};

native_type!(
    Siq,
    siq_core::Siq,
    siq,
    [
        siq_in_wrapper,
        siq_out_wrapper,
        siq_recv_wrapper,
        siq_send_wrapper,
        siq_eq_wrapper,
        siq_ne_wrapper,
        siq_lt_wrapper,
        siq_le_wrapper,
        siq_gt_wrapper,
        siq_ge_wrapper,
        siq_cmp_wrapper,
        siq_smaller_wrapper,
        siq_larger_wrapper,
        siq_hash_wrapper,
        siq_hash_extended_wrapper,
        siq_sortsupport_wrapper,
        siq_minmax_multi_distance_wrapper,
        siq_skipsupport_wrapper,
        siq_to_bytea_wrapper,
        siq_from_bytea_wrapper,
    ]
);

/// `bytea::siq` also takes the 16-byte form the reference's ORM columns hold.
impl FromBinary for siq_core::Siq {
    fn from_bytea(bytes: &[u8]) -> flake_core::Result<Self> {
        siq_core::Siq::from_slice_lenient(bytes)
    }
}

sql_file!(
    "../../sql/siq.sql",
    name = "siq",
    creates = [Type(Siq)],
    requires = ["sno"]
);

pub static GENERATOR: Generator<SiqGenerator> = Generator::new(&NODE);

/// The format's name, as its SQL type, marks file and settings say it.
const NAME: &str = <siq_core::Siq as FlakeId>::TYPE_NAME;

pub static FORMAT: Format = Format {
    name: NAME,
    init: define_settings,
    generators: &[&GENERATOR],
    nodes: &[&NODE],
    generate: &["siq_generate('user')", "siq_generate('message')"],
};

/// The domain hash's top byte: this server's node (docs/operations.md "Several servers").
pub static NODE: NodeField = NodeField::new(NAME, 8, Some(SIQ_NODE.field()));

// --- settings ------------------------------------------------------------------

static SIQ_DOMAIN: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(Some(c""));
format_node_setting! {
    /// `pg_flake.siq_node`, which overrides `pg_flake.node` where set.
    static SIQ_NODE = "pg_flake.siq_node", max 255,
    "This server's node number in SIQ: replaces the top byte of the domain hash when non-zero.",
    "Overrides pg_flake.node for SIQ where set (1-255; 0 keeps the domain hash's byte).",
}

/// SHA-256-derived hash of `pg_flake.siq_domain`, computed when the setting
/// changes rather than for every ID.
static SIQ_DOMAIN_HASH: AtomicU32 = AtomicU32::new(0);

/// The 32 domain bits of generated SIQs: the domain's hash with the node in
/// the top byte. `pg_flake.siq_node` keeps 0.1.0's rule (a node of 0 keeps
/// the hash's byte); a node from `pg_flake.node` or Citus always replaces
/// it, 0 included, so that node 0 cannot meet a node whose number equals
/// the hash's byte.
///
/// A primary works them out once per change of the settings or of Citus's
/// catalog (`derived::identity_changed`), a server in recovery for every
/// ID, as `NodeField::generating_node` does.
fn domain_bits() -> u32 {
    if !crate::node::recovery_in_progress() {
        if let Some(bits) = DOMAIN_BITS.get() {
            return bits;
        }
    }
    let hash = SIQ_DOMAIN_HASH.load(Ordering::Relaxed);
    let (identity, in_recovery) = NODE
        .identity_for_generation()
        .unwrap_or_else(|e| GENERATOR.refuse(e));
    let bits = match identity.source {
        Source::FormatSetting(_) => siq_core::apply_node(hash, identity.node as u8),
        Source::Node | Source::Citus => hash & 0x00FF_FFFF | identity.node << 24,
        Source::Default => hash,
    };
    // Where the domain's hash keeps its own top byte (no node, or 0.1.0's
    // pg_flake.siq_node = 0), that byte is the node in the IDs: it must not
    // be one reserved for leases either (docs/sql-reference.md "Leases").
    if bits >> 24 != identity.node {
        let hashed = Identity {
            node: bits >> 24,
            source: Source::FormatSetting("the hash of pg_flake.siq_domain"),
        };
        NODE.check_reserved(hashed)
            .unwrap_or_else(|e| GENERATOR.refuse(e));
    }
    // The byte that goes into the IDs is the node others must not use
    // (docs/operations.md "Standbys and failover").
    NODE.announce(bits >> 24, in_recovery)
        .unwrap_or_else(|e| GENERATOR.refuse(e));
    if !in_recovery {
        DOMAIN_BITS.keep(bits);
    }
    bits
}

/// [`domain_bits`] of a primary, until a setting changes.
static DOMAIN_BITS: Derived = Derived::new();

struct DomainSetting;

impl TextSetting for DomainSetting {
    fn check(text: &[u8]) -> Result<(), Rejection> {
        if text.is_ascii() {
            Ok(())
        } else {
            Err(Rejection::Detail(
                "A SIQ domain must be ASCII: give the punycode (IDNA) form, e.g. xn--bcher-kva.example."
                    .into(),
            ))
        }
    }

    fn assign(text: &[u8]) {
        // The check admitted only ASCII, for which hashing cannot fail.
        let text = std::str::from_utf8(text).unwrap_or("");
        let hash = siq_core::domain_hash(text).unwrap_or(0);
        SIQ_DOMAIN_HASH.store(hash, Ordering::Relaxed);
        crate::plumbing::settings::derived::identity_changed();
    }
}

fn define_settings() {
    settings::define_text::<DomainSetting>(
        Definition {
            name: c"pg_flake.siq_domain",
            short: c"Domain hashed into the 32 domain bits of generated SIQs.",
            long: c"ASCII (punycode for international names); '' and '0' give 0. Superuser-only: without a node setting its hash's top byte is the node in the IDs.",
            // Superuser-only (0.4.0), as the node settings: where no node is
            // set, the hash's top byte is the server's node in its IDs, and
            // a role that picks its domain picks that node (another
            // server's, a standby's, one a lease holds).
            context: GucContext::Suset,
            flags: GucFlags::default(),
        },
        &SIQ_DOMAIN,
    );
    SIQ_NODE.define();
}

// --- functions -----------------------------------------------------------------

fn kind_named(name: &str) -> Kind {
    Kind::from_name(name).or_raise()
}

fn ticks_at(time: TimestampWithTimeZone) -> i64 {
    let micros = timestamptz::unix_micros(time, NAME, siq_core::TIME_RANGE);
    siq_core::ticks_at(micros).or_raise() as i64
}

/// What a call site of `siq_generate` keeps in its `fn_extra`: a query
/// passes the same name row after row, and one comparison is cheaper than
/// reading the text and matching it against every kind.
#[derive(Clone, Copy)]
struct KindSite {
    /// Whether the argument is the same value at every call of the site (a
    /// constant or a parameter, `get_fn_expr_arg_stable`): then its datum,
    /// a pointer, names the kind without the text being read.
    stable: bool,
    last: Option<LastKind>,
}

/// The last kind name the site saw.
#[derive(Clone, Copy)]
struct LastKind {
    datum: pg_sys::Datum,
    len: usize,
    name: [u8; 16],
    kind: Kind,
}

/// The kind named by argument 0 of a `siq_generate` call.
fn kind_arg(call: Call<'_>) -> Kind {
    let datum = call.datum(0);
    call.site_cache(|site: &mut Option<KindSite>| {
        let site = site.get_or_insert_with(|| KindSite {
            stable: call.argument_is_stable(0),
            last: None,
        });
        if let Some(last) = &site.last {
            if site.stable && last.datum == datum {
                return last.kind;
            }
        }
        let name = call.bytes(0);
        if let Some(last) = &site.last {
            if last.name.get(..last.len) == Some(name) {
                return last.kind;
            }
        }
        let kind = match std::str::from_utf8(name) {
            Ok(name) => kind_named(name),
            Err(_) => kind_named(&String::from_utf8_lossy(name)),
        };
        if name.len() <= 16 {
            let mut last = LastKind {
                datum,
                len: name.len(),
                name: [0; 16],
                kind,
            };
            last.name[..name.len()].copy_from_slice(name);
            site.last = Some(last);
        }
        kind
    })
}

c_function! {
    /// `siq_generate(kind text) → siq`
    siq_generate_wrapper,
    |call| {
        let kind = kind_arg(call);
        let domain = domain_bits();
        GENERATOR.generate_datum::<siq_core::Siq>(|generator, clock, limits| generator.try_generate_key(clock, limits, kind, domain))
    }
}

c_function! {
    /// Cannot fail: LEAKPROOF in `sql/siq.sql`.
    siq_timestamp_wrapper,
    |call| {
        let Siq(id) = call.value(0);
        timestamptz::timestamp(id.unix_micros()).into_datum().unwrap_or(pg_sys::Datum::from(0usize))
    }
}

#[doc(alias = "siq_from_time_wrapper")]
#[pg_extern(sql = false)]
fn siq_from_time(time: TimestampWithTimeZone) -> Siq {
    let micros = timestamptz::unix_micros(time, NAME, siq_core::TIME_RANGE);
    Siq(siq_core::Siq::from_time(micros).or_raise())
}

/// NULL for an unassigned suffix.
#[doc(alias = "siq_kind_wrapper")]
#[pg_extern(sql = false)]
fn siq_kind(id: Siq) -> Option<&'static str> {
    id.0.kind().map(Kind::name)
}

#[doc(alias = "siq_serial_wrapper")]
#[pg_extern(sql = false)]
fn siq_serial(id: Siq) -> i32 {
    id.0.serial() as i32
}

#[doc(alias = "siq_shard_wrapper")]
#[pg_extern(sql = false)]
fn siq_shard(id: Siq) -> i32 {
    id.0.shard() as i32
}

#[doc(alias = "siq_domain_hash_of_id_wrapper")]
#[pg_extern(sql = false)]
fn siq_domain_hash_of_id(id: Siq) -> i64 {
    id.0.domain_hash() as i64
}

/// The hash of a domain name. 0.1.0 called it `siq_domain_hash(text)`, an
/// overload that an untyped literal ID resolved to (docs/operations.md "Versions").
#[doc(alias = "siq_domain_hash_of_domain_wrapper")]
#[pg_extern(sql = false)]
fn siq_domain_hash_of_domain(domain: &str) -> i64 {
    siq_core::domain_hash(domain).or_raise() as i64
}

c_function! {
    siq_parts_wrapper,
    |call| {
        let Siq(id) = call.value(0);
        out_record(
            call,
            &[
                column("ticks", id.ticks() as i64),
                column("time", timestamptz::timestamp(id.unix_micros())),
                column("shard", id.shard() as i32),
                column("domain_hash", id.domain_hash() as i64),
                column("kind", id.kind().map(Kind::name)),
                column("serial", id.serial() as i32),
                column("low16", id.low16() as i32),
            ],
        )
    }
}

/// `siq_from_parts` from ticks. 0.1.0 called it `siq_from_parts(bigint, …)`,
/// an overload that made `siq_from_parts('2023-…', …)` ambiguous.
#[doc(alias = "siq_from_parts_ticks_wrapper")]
#[pg_extern(sql = false)]
fn siq_from_parts_ticks(ticks: i64, shard: i32, domain_hash: i64, kind: &str, serial: i32) -> Siq {
    Siq(siq_core::Siq::from_parts(ticks, shard, domain_hash, kind_named(kind), serial).or_raise())
}

#[doc(alias = "siq_from_parts_time_wrapper")]
#[pg_extern(sql = false)]
fn siq_from_parts_time(
    time: TimestampWithTimeZone,
    shard: i32,
    domain_hash: i64,
    kind: &str,
    serial: i32,
) -> Siq {
    siq_from_parts_ticks(ticks_at(time), shard, domain_hash, kind, serial)
}

#[doc(alias = "siq_to_hex_wrapper")]
#[pg_extern(sql = false)]
fn siq_to_hex(id: Siq) -> String {
    id.0.to_hex()
}

#[doc(alias = "siq_from_hex_wrapper")]
#[pg_extern(sql = false)]
fn siq_from_hex(hex: &str) -> Siq {
    Siq(siq_core::Siq::from_hex(hex).or_raise())
}

#[doc(alias = "siq_to_base64_wrapper")]
#[pg_extern(sql = false)]
fn siq_to_base64(id: Siq) -> String {
    id.0.to_base64()
}

#[doc(alias = "siq_to_did_wrapper")]
#[pg_extern(sql = false)]
fn siq_to_did(id: Siq) -> String {
    id.0.to_did()
}

#[doc(alias = "siq_to_numeric_wrapper")]
#[pg_extern(sql = false)]
fn siq_to_numeric(id: Siq) -> AnyNumeric {
    numeric_of(id.0.to_u128())
}

#[doc(alias = "siq_from_numeric_wrapper")]
#[pg_extern(sql = false)]
fn siq_from_numeric(value: AnyNumeric) -> Siq {
    let integer = integer_of(&value, NAME, siq_core::MAX_VALUE, siq_core::VALUE_RANGE);
    Siq(siq_core::Siq::from_u128(integer).or_raise())
}

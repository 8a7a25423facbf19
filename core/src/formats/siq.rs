//! SIQ (SUOU `suou.iding` 0.14.0): 112 bits = 56-bit ticks of 1/65536 s since
//! the Unix epoch, an 8-bit shard, a 32-bit domain hash and 16 bits holding a
//! kind-specific serial and the kind's suffix.
//! Text form: the reference's DID body, 29 base32 characters carrying a CRC-32.

use crate::clock::Clock;
use crate::codec::Alphabet;
use crate::error::{field_in_range, Error, Result};
use crate::flake_id::FlakeId;
use crate::generator::{SequencerRow, SlotGenerator};
use crate::sequencer::{
    until_issued, Limits, Regression, Sequenced, Sequencer, SequencerState, Step, Timeline,
};
use crate::slot::{SlotAssignment, SlotRule};
use sha2::{Digest, Sha256};
use std::fmt;
use std::str::FromStr;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Siq([u8; 14]);

// Shard and domain hash: one server's, between the ticks and the serial.
crate::flake_id::fixed_id!(
    Siq,
    14,
    "siq",
    abbreviation = crate::sortkey::Abbreviation::FromBase(crate::sortkey::ServerField {
        shift: 16,
        width: 40
    })
);

const TYPE_NAME: &str = "siq";

pub const TICKS_PER_SECOND: i128 = 65_536;
pub const MAX_TICKS: u64 = (1 << 56) - 1;
/// Every instant whose tick fits 56 bits; the last one rounds down to
/// 00:36:15.999984, the start of the last tick.
pub const TIME_RANGE: &str = "1970-01-01 00:00:00+00 to 36812-02-20 00:36:15.999999+00";
pub const MAX_VALUE: u128 = (1 << 112) - 1;
pub const VALUE_RANGE: &str = "0 to 5192296858534827628530496329220095";

/// The shard is the process field of the slot rule; the sequence field is the
/// kind's serial, so each kind has its own rule (see [`Kind::slot_rule`]).
pub const SHARD_BITS: u32 = 8;

pub const DID_PREFIX: &str = "did:siq:";
pub const TEXT_LEN: usize = 29;
pub const HEX_LEN: usize = 28;
pub const BASE64_LEN: usize = 20;

const EXPECTED_TEXT: &str =
    "29 base32 characters (a-z, 2-7) with a valid checksum, optionally prefixed by \"did:siq:\"";
const EXPECTED_HEX: &str = "1 to 28 hexadecimal digits";
const EXPECTED_BASE64: &str = "20 URL-safe base64 characters";

const BASE32: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
const BASE64URL: Alphabet =
    Alphabet::new(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_");
const HEX: &[u8; 16] = b"0123456789abcdef";

/// Character → value, 0xFF outside the alphabet. Base32 input is case-insensitive.
const BASE32_DECODE: [u8; 256] = {
    let mut table = [0xFFu8; 256];
    let mut i = 0;
    while i < 32 {
        table[BASE32[i] as usize] = i as u8;
        table[BASE32[i].to_ascii_uppercase() as usize] = i as u8;
        i += 1;
    }
    table
};

// --- kinds -------------------------------------------------------------------

/// The kind qualifier in the low bits of `low16`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    User,
    Application,
    Event,
    Premium,
    Group,
    Collection,
    Invite,
    Tag,
    Channel,
    Thread,
    Message,
    Ternary,
    ManyToMany,
    Multi,
    Content,
}

/// Kind names for the error message of an unknown kind.
pub const KIND_NAMES: &str = "user, application, event, premium, group, collection, invite, \
                              tag, channel, thread, message, ternary, manytomany, multi, content";

impl Kind {
    pub const ALL: [Kind; 15] = [
        Kind::User,
        Kind::Application,
        Kind::Event,
        Kind::Premium,
        Kind::Group,
        Kind::Collection,
        Kind::Invite,
        Kind::Tag,
        Kind::Channel,
        Kind::Thread,
        Kind::Message,
        Kind::Ternary,
        Kind::ManyToMany,
        Kind::Multi,
        Kind::Content,
    ];

    /// (name, suffix, suffix width) as in docs/formats/siq.md#kinds.
    const fn spec(self) -> (&'static str, u16, u32) {
        match self {
            Kind::User => ("user", 0b00000, 5),
            Kind::Application => ("application", 0b10000, 5),
            Kind::Event => ("event", 0b01000, 5),
            Kind::Premium => ("premium", 0b11000, 5),
            Kind::Group => ("group", 0b00100, 5),
            Kind::Collection => ("collection", 0b10100, 5),
            Kind::Invite => ("invite", 0b01100, 5),
            Kind::Tag => ("tag", 0b00010, 5),
            Kind::Channel => ("channel", 0b01010, 5),
            Kind::Thread => ("thread", 0b0110, 4),
            Kind::Message => ("message", 0b1110, 4),
            Kind::Ternary => ("ternary", 0b001, 3),
            Kind::ManyToMany => ("manytomany", 0b101, 3),
            Kind::Multi => ("multi", 0b011, 3),
            Kind::Content => ("content", 0b111, 3),
        }
    }

    pub const fn name(self) -> &'static str {
        self.spec().0
    }

    pub const fn suffix(self) -> u16 {
        self.spec().1
    }

    pub const fn suffix_bits(self) -> u32 {
        self.spec().2
    }

    pub const fn serial_bits(self) -> u32 {
        16 - self.suffix_bits()
    }

    pub const fn max_serial(self) -> u16 {
        ((1u32 << self.serial_bits()) - 1) as u16
    }

    /// Position in [`Kind::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The slot rule of this kind's generator: shard = process field, serial =
    /// sequence field.
    pub const fn slot_rule(self) -> SlotRule {
        SlotRule::new(SHARD_BITS, self.serial_bits())
    }

    /// `low16` of this kind with `serial` (which must fit `serial_bits`).
    pub const fn low16(self, serial: u16) -> u16 {
        serial << self.suffix_bits() | self.suffix()
    }

    /// The kind named `name`, case-insensitively (22023 otherwise).
    pub fn from_name(name: &str) -> Result<Kind> {
        Kind::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| Error::InvalidParameter {
                message: format!("unknown SIQ kind \"{name}\"; accepted kinds: {KIND_NAMES}"),
            })
    }

    /// The kind encoded in `low16`, `None` for the unassigned 5-bit suffixes.
    pub fn from_low16(low16: u16) -> Option<Kind> {
        let bits = suffix_bits_of(low16);
        let suffix = low16 & ((1 << bits) - 1);
        Kind::ALL
            .into_iter()
            .find(|k| k.suffix_bits() == bits && k.suffix() == suffix)
    }
}

/// Suffix width of any `low16`, read from the least significant end: a final
/// `1` is a 3-bit suffix, a final `110` a 4-bit one, anything else 5 bits.
pub const fn suffix_bits_of(low16: u16) -> u32 {
    if low16 & 1 == 1 {
        3
    } else if low16 & 0b111 == 0b110 {
        4
    } else {
        5
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Kind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Kind> {
        Kind::from_name(s)
    }
}

// --- time and domain ---------------------------------------------------------

fn time_out_of_range() -> Error {
    Error::TimeOutOfRange {
        type_name: TYPE_NAME,
        range: TIME_RANGE,
    }
}

/// The tick containing `since_epoch` units of `per_second` (truncating, as
/// the reference does).
fn ticks_of(since_epoch: i128, per_second: i128) -> Result<u64> {
    if since_epoch < 0 {
        return Err(time_out_of_range());
    }
    let ticks = since_epoch * TICKS_PER_SECOND / per_second;
    if ticks > MAX_TICKS as i128 {
        return Err(time_out_of_range());
    }
    Ok(ticks as u64)
}

/// The tick containing `unix_micros`: floor(µs × 65536 / 10^6).
pub fn ticks_at(unix_micros: i64) -> Result<u64> {
    ticks_of(unix_micros as i128, 1_000_000)
}

/// The tick containing `unix_nanos`: floor(ns × 65536 / 10^9).
pub fn ticks_at_nanos(unix_nanos: i128) -> Result<u64> {
    // Far outside the range anyway; keeps the multiplication from overflowing.
    if unix_nanos > i128::from(i64::MAX) * 1_000 {
        return Err(time_out_of_range());
    }
    ticks_of(unix_nanos, 1_000_000_000)
}

/// Start of tick `ticks` in microseconds, rounded down: floor(ticks × 10^6 / 65536).
pub fn ticks_to_micros(ticks: u64) -> i64 {
    (ticks as i128 * 1_000_000 / TICKS_PER_SECOND) as i64
}

/// `siq_domain_hash(text)`: the last 4 bytes of SHA-256 of the domain,
/// big-endian; `""` and `"0"` mean "no domain" and give 0.
pub fn domain_hash(domain: &str) -> Result<u32> {
    if !domain.is_ascii() {
        return Err(Error::InvalidParameter {
            message: format!(
                "SIQ domain \"{domain}\" is not ASCII; pass the punycode (IDNA) form of the domain"
            ),
        });
    }
    if domain.is_empty() || domain == "0" {
        return Ok(0);
    }
    let digest = Sha256::digest(domain.as_bytes());
    Ok(u32::from_be_bytes([
        digest[28], digest[29], digest[30], digest[31],
    ]))
}

/// The domain hash of generated IDs: a non-zero `node` (`pg_flake.siq_node`)
/// replaces the top byte, also for an empty domain, so that nodes without a
/// domain still differ.
pub const fn apply_node(hash: u32, node: u8) -> u32 {
    if node == 0 {
        hash
    } else {
        (node as u32) << 24 | (hash & 0x00FF_FFFF)
    }
}

// --- the value ---------------------------------------------------------------

impl Siq {
    /// Only callers that have range-checked `ticks` may use this.
    #[inline]
    fn assemble(ticks: u64, shard: u8, domain_hash: u32, low16: u16) -> Siq {
        Siq::from_key(Siq::key_of_fields(ticks, shard, domain_hash, low16))
    }

    /// The [`FlakeId::key`] of the SIQ with these fields.
    #[inline(always)]
    fn key_of_fields(ticks: u64, shard: u8, domain_hash: u32, low16: u16) -> u128 {
        debug_assert!(ticks <= MAX_TICKS);
        u128::from(ticks) << 56
            | u128::from(shard) << 48
            | u128::from(domain_hash) << 16
            | u128::from(low16)
    }

    /// `siq_from_parts`: every field range-checked (22003).
    pub fn from_parts(
        ticks: i64,
        shard: i32,
        domain_hash: i64,
        kind: Kind,
        serial: i32,
    ) -> Result<Siq> {
        let serial = field_in_range(
            TYPE_NAME,
            "serial",
            serial.into(),
            0,
            kind.max_serial().into(),
        )?;
        Siq::from_parts_low16(ticks, shard, domain_hash, kind.low16(serial as u16).into())
    }

    /// Like [`Siq::from_parts`] with the raw 16 low bits instead of kind and
    /// serial (any suffix, including unassigned ones).
    pub fn from_parts_low16(ticks: i64, shard: i32, domain_hash: i64, low16: i32) -> Result<Siq> {
        let ticks = field_in_range(TYPE_NAME, "ticks", ticks.into(), 0, MAX_TICKS.into())?;
        let shard = field_in_range(TYPE_NAME, "shard", shard.into(), 0, 255)?;
        let domain_hash = field_in_range(
            TYPE_NAME,
            "domain_hash",
            domain_hash.into(),
            0,
            u32::MAX.into(),
        )?;
        let low16 = field_in_range(TYPE_NAME, "low16", low16.into(), 0, u16::MAX.into())?;
        Ok(Siq::assemble(
            ticks as u64,
            shard as u8,
            domain_hash as u32,
            low16 as u16,
        ))
    }

    /// The smallest SIQ at `unix_micros` (every other field zero; an instant
    /// inside a tick rounds down).
    pub fn from_time(unix_micros: i64) -> Result<Siq> {
        Ok(Siq::assemble(ticks_at(unix_micros)?, 0, 0, 0))
    }

    pub fn ticks(&self) -> u64 {
        let mut b = [0u8; 8];
        b[1..].copy_from_slice(&self.0[..7]);
        u64::from_be_bytes(b)
    }

    /// Start of the value's tick in microseconds since the Unix epoch,
    /// rounded down.
    pub fn unix_micros(&self) -> i64 {
        ticks_to_micros(self.ticks())
    }

    pub fn shard(&self) -> u8 {
        self.0[7]
    }

    pub fn domain_hash(&self) -> u32 {
        u32::from_be_bytes([self.0[8], self.0[9], self.0[10], self.0[11]])
    }

    pub fn low16(&self) -> u16 {
        u16::from_be_bytes([self.0[12], self.0[13]])
    }

    /// `None` for an unassigned suffix.
    pub fn kind(&self) -> Option<Kind> {
        Kind::from_low16(self.low16())
    }

    /// The bits of `low16` above the suffix (5 bits for unassigned suffixes).
    pub fn serial(&self) -> u16 {
        let low16 = self.low16();
        low16 >> suffix_bits_of(low16)
    }

    pub fn to_u128(&self) -> u128 {
        self.key()
    }

    /// The value of a 112-bit number (22003 from 2^112 on).
    pub fn from_u128(value: u128) -> Result<Siq> {
        if value > MAX_VALUE {
            return Err(Error::ValueOutOfRange {
                type_name: TYPE_NAME,
                input: value.to_string(),
                range: VALUE_RANGE,
            });
        }
        Ok(Siq::from_key(value))
    }

    /// `bytea::siq`: the 14 bytes, or 16 whose first two are zero (the
    /// reference's ORM columns).
    pub fn from_slice_lenient(bytes: &[u8]) -> Result<Siq> {
        match bytes {
            [0, 0, rest @ ..] if rest.len() == 14 => Ok(Siq::assemble_from(rest)),
            _ if bytes.len() == 14 => Ok(Siq::assemble_from(bytes)),
            _ => Err(Error::InvalidBinary {
                type_name: TYPE_NAME,
                expected: "14, or 16 of which the first two are zero",
                actual: bytes.len(),
            }),
        }
    }

    fn assemble_from(fourteen: &[u8]) -> Siq {
        let mut b = [0u8; 14];
        b.copy_from_slice(fourteen);
        Siq(b)
    }

    // --- text forms ----------------------------------------------------------

    /// Two zero bytes, the CRC-32 of the 14 bytes, then the 14 bytes: what
    /// the reference base32-encodes.
    fn framed(&self) -> [u8; 20] {
        let mut f = [0u8; 20];
        f[2..6].copy_from_slice(&crc32fast::hash(&self.0).to_be_bytes());
        f[6..].copy_from_slice(&self.0);
        f
    }

    /// The 29-character canonical text (no allocation).
    pub fn encode(&self) -> [u8; TEXT_LEN] {
        let framed = self.framed();
        let mut all = [0u8; 32];
        // 20 bytes = four 40-bit groups of eight base32 characters each.
        for (group, chars) in framed.chunks_exact(5).zip(all.chunks_exact_mut(8)) {
            let mut v = [0u8; 8];
            v[3..].copy_from_slice(group);
            let n = u64::from_be_bytes(v);
            for (i, c) in chars.iter_mut().enumerate() {
                *c = BASE32[(n >> (35 - 5 * i) & 31) as usize];
            }
        }
        let mut out = [0u8; TEXT_LEN];
        // The first 15 bits are zero: the reference drops their "aaa".
        out.copy_from_slice(&all[3..]);
        out
    }

    /// Decodes the canonical text, in any case and with or without
    /// `did:siq:`; `None` if malformed or the checksum does not match.
    pub fn decode(text: &[u8]) -> Option<Siq> {
        let body = strip_did_prefix(text);
        if body.len() != TEXT_LEN {
            return None;
        }
        let mut values = [0u8; 32];
        for (v, &c) in values[3..].iter_mut().zip(body) {
            *v = BASE32_DECODE[c as usize];
            if *v == 0xFF {
                return None;
            }
        }
        let mut framed = [0u8; 20];
        for (group, chars) in framed.chunks_exact_mut(5).zip(values.chunks_exact(8)) {
            let n = chars.iter().fold(0u64, |n, &v| n << 5 | v as u64);
            group.copy_from_slice(&n.to_be_bytes()[3..]);
        }
        // Bit 15 (top bit of the first character) belongs to the zero prefix.
        if framed[..2] != [0, 0] {
            return None;
        }
        let id = Siq::assemble_from(&framed[6..]);
        (framed[2..6] == crc32fast::hash(&id.0).to_be_bytes()).then_some(id)
    }

    /// `siq_to_did`: `did:siq:` and the canonical text.
    pub fn to_did(&self) -> String {
        format!("{DID_PREFIX}{self}")
    }

    /// `siq_to_hex`: 28 lower-case digits.
    pub fn to_hex(&self) -> String {
        let mut out = String::with_capacity(HEX_LEN);
        for b in self.0 {
            out.push(HEX[(b >> 4) as usize] as char);
            out.push(HEX[(b & 15) as usize] as char);
        }
        out
    }

    /// `siq_from_hex`: 1 to 28 hexadecimal digits in any case.
    pub fn from_hex(text: &str) -> Result<Siq> {
        let bad = || Error::invalid_text(TYPE_NAME, text, EXPECTED_HEX);
        if text.is_empty() || text.len() > HEX_LEN {
            return Err(bad());
        }
        let mut n: u128 = 0;
        for c in text.chars() {
            n = n << 4 | c.to_digit(16).ok_or_else(bad)? as u128;
        }
        Siq::from_u128(n)
    }

    /// `siq_to_base64`: URL-safe base64 of a zero byte and the 14 bytes
    /// (120 bits, so exactly 20 characters and no padding).
    pub fn to_base64(&self) -> String {
        let text: [u8; BASE64_LEN] = BASE64URL.encode(self.to_u128(), 120);
        text.iter().map(|&c| c as char).collect()
    }

    /// The inverse of [`Siq::to_base64`]: 20 URL-safe characters (22P02
    /// otherwise) whose first byte is zero (22003 otherwise).
    pub fn from_base64(text: &str) -> Result<Siq> {
        let value = BASE64URL
            .decode::<BASE64_LEN>(text.as_bytes(), 120)
            .ok_or_else(|| Error::invalid_text(TYPE_NAME, text, EXPECTED_BASE64))?;
        Siq::from_u128(value).map_err(|_| Error::ValueOutOfRange {
            type_name: TYPE_NAME,
            input: text.to_owned(),
            range: VALUE_RANGE,
        })
    }
}

fn strip_did_prefix(text: &[u8]) -> &[u8] {
    let n = DID_PREFIX.len();
    match text.get(..n) {
        Some(head) if head.eq_ignore_ascii_case(DID_PREFIX.as_bytes()) => &text[n..],
        _ => text,
    }
}

impl fmt::Display for Siq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.encode();
        // The alphabet is ASCII, so the buffer is always valid UTF-8.
        f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

impl FromStr for Siq {
    type Err = Error;
    fn from_str(s: &str) -> Result<Siq> {
        Siq::decode(s.as_bytes()).ok_or_else(|| Error::invalid_text(TYPE_NAME, s, EXPECTED_TEXT))
    }
}

// --- generator ---------------------------------------------------------------

fn clock_ticks(unix_nanos: i64) -> Result<u64> {
    // Per generated ID: whole seconds and the rest separately keep the
    // arithmetic in 64 bits (the general i128 path calls a software division).
    const NANOS: u64 = 1_000_000_000;
    let Ok(nanos) = u64::try_from(unix_nanos) else {
        return Err(time_out_of_range());
    };
    let ticks =
        nanos / NANOS * TICKS_PER_SECOND as u64 + nanos % NANOS * TICKS_PER_SECOND as u64 / NANOS;
    if ticks > MAX_TICKS {
        return Err(time_out_of_range());
    }
    Ok(ticks)
}

/// SIQ's time units: ticks of 1/65536 s since 1970.
#[derive(Debug, Clone, Copy, Default)]
pub struct SiqTimeline;

impl Timeline for SiqTimeline {
    fn name(&self) -> &'static str {
        TYPE_NAME
    }
    fn unit_at(&self, unix_nanos: i64) -> Result<u64> {
        clock_ticks(unix_nanos)
    }
    /// The first nanosecond whose tick is `unit`.
    fn start_of(&self, unit: u64) -> i128 {
        (unit as i128 * 1_000_000_000 + TICKS_PER_SECOND - 1) / TICKS_PER_SECOND
    }
}

/// A per-process (or, in shared mode, per-server) SIQ generator: one
/// sequencer per kind, each created on the kind's first use above the
/// generator's floor.
#[derive(Debug, Clone, Copy)]
pub struct SiqGenerator {
    slot: u32,
    nslots: u32,
    floor: u64,
    sequencers: [Option<Sequencer>; 15],
    /// The highest unit any of the sequencers has used, kept as they step:
    /// [`SlotGenerator::last_unit`] is asked after every ID, and reading it
    /// here spares a walk over fifteen sequencers (docs/BENCHMARKS.md
    /// "Generation profile").
    highest_used: u64,
}

impl SiqGenerator {
    /// A generator for slot `slot` of `nslots` that never uses the tick
    /// `floor` or one below it. Fails (22023) if the slots do not fit,
    /// checked against the narrowest serial (11 bits) so that every kind's
    /// sequencer can later be created.
    pub fn new(slot: u32, nslots: u32, floor: u64) -> Result<Self> {
        Kind::User.slot_rule().assign(slot, nslots)?;
        Ok(SiqGenerator {
            slot,
            nslots,
            floor,
            sequencers: Default::default(),
            highest_used: 0,
        })
    }

    /// A generator whose floor is the clock's current tick (which it will
    /// not use): for applications that keep no durable mark.
    pub fn starting_now<C: Clock>(slot: u32, nslots: u32, clock: &mut C) -> Result<Self> {
        SiqGenerator::new(slot, nslots, SiqTimeline.unit_at(clock.now_nanos())?)
    }

    /// What this generator's IDs of `kind` carry in shard and serial.
    pub fn assignment(&self, kind: Kind) -> Result<SlotAssignment> {
        kind.slot_rule().assign(self.slot, self.nslots)
    }

    pub fn shard(&self) -> u8 {
        (self.slot % (1 << SHARD_BITS)) as u8
    }

    /// The next SIQ of `kind`, waiting while a tick's serials are used up.
    /// `domain_hash` already has the node byte applied (see [`apply_node`]).
    pub fn generate<C: Clock>(
        &mut self,
        clock: &mut C,
        kind: Kind,
        domain_hash: u32,
    ) -> Result<Siq> {
        until_issued(clock, |clock| {
            self.try_generate(clock, &Limits::NO_MARK, kind, domain_hash)
        })
    }

    /// One attempt without waiting (see [`Sequencer::try_next`]).
    #[inline]
    pub fn try_generate<C: Clock>(
        &mut self,
        clock: &mut C,
        limits: &Limits,
        kind: Kind,
        domain_hash: u32,
    ) -> Result<Step<Siq>> {
        Ok(self
            .try_generate_key(clock, limits, kind, domain_hash)?
            .map(Siq::from_key))
    }

    /// [`try_generate`](Self::try_generate) with the ID as its
    /// [`FlakeId::key`], the form the generation path carries it in.
    #[inline]
    pub fn try_generate_key<C: Clock>(
        &mut self,
        clock: &mut C,
        limits: &Limits,
        kind: Kind,
        domain_hash: u32,
    ) -> Result<Step<u128>> {
        // The slot rule's process field is the shard (both SHARD_BITS wide):
        // the assignment (two divisions) is needed only for a new sequencer.
        let shard = self.shard();
        let assemble = |s: Sequenced| {
            Siq::key_of_fields(s.unit, shard, domain_hash, kind.low16(s.sequence() as u16))
        };
        if let Some(sequencer) = &mut self.sequencers[kind.index()] {
            let step = sequencer.try_next(clock, &SiqTimeline, limits)?;
            self.highest_used = self.highest_used.max(sequencer.highest());
            return Ok(step.map(assemble));
        }
        Ok(self.first_of_kind(clock, limits, kind)?.map(assemble))
    }

    /// The attempt of a kind's first ID: its sequencer exists once it has
    /// issued one, so that an attempt that waits or fails leaves no trace.
    #[cold]
    #[inline(never)]
    fn first_of_kind<C: Clock>(
        &mut self,
        clock: &mut C,
        limits: &Limits,
        kind: Kind,
    ) -> Result<Step<Sequenced>> {
        let range = kind.slot_rule().assign(self.slot, self.nslots)?.range;
        let mut sequencer = Sequencer::new(Regression::Logical, range, self.floor);
        let step = sequencer.try_next(clock, &SiqTimeline, limits)?;
        if let Step::Issued(_) = step {
            self.highest_used = self.highest_used.max(sequencer.highest());
            self.sequencers[kind.index()] = Some(sequencer);
        }
        Ok(step)
    }

    /// The state of `kind`'s sequencer, if that kind has been used.
    pub fn state(&self, kind: Kind) -> Option<SequencerState> {
        self.sequencers[kind.index()].as_ref().map(Sequencer::state)
    }

    /// The state of every kind used so far, in [`Kind::ALL`] order.
    pub fn states(&self) -> Vec<(Kind, SequencerState)> {
        Kind::ALL
            .into_iter()
            .filter_map(|k| self.state(k).map(|s| (k, s)))
            .collect()
    }
}

impl SlotGenerator for SiqGenerator {
    fn name() -> &'static str {
        TYPE_NAME
    }

    fn for_slot(slot: u32, nslots: u32, floor: u64) -> Result<Self> {
        SiqGenerator::new(slot, nslots, floor)
    }

    fn unit_at(unix_nanos: i64) -> Result<u64> {
        SiqTimeline.unit_at(unix_nanos)
    }

    fn start_of(unit: u64) -> i128 {
        SiqTimeline.start_of(unit)
    }

    fn raise_floor(&mut self, floor: u64) {
        self.floor = self.floor.max(floor);
        for sequencer in self.sequencers.iter_mut().flatten() {
            sequencer.raise_floor(floor);
        }
    }

    #[inline]
    fn last_unit(&self) -> u64 {
        // A raised floor moves a sequencer up to it, never further.
        self.highest_used.max(self.floor)
    }

    fn sequencers(&self) -> Vec<SequencerRow> {
        self.states()
            .into_iter()
            .filter_map(|(kind, state)| {
                Some(SequencerRow {
                    kind: Some(kind.name()),
                    assignment: self.assignment(kind).ok()?,
                    state,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn clock_ticks_agrees_with_the_general_conversion(nanos in any::<i64>()) {
            prop_assert_eq!(
                clock_ticks(nanos).map_err(|e| e.kind()),
                ticks_at_nanos(nanos.into()).map_err(|e| e.kind())
            );
        }
    }
}

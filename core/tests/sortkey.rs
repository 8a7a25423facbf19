//! Abbreviated keys never contradict the order of the values (a sort or an
//! index built with them would be corrupt otherwise), and keep values near
//! the base apart.

use flake_core::distributed_id::DistributedId;
use flake_core::flaxid::FlaxId;
use flake_core::kuid::Kuid96;
use flake_core::siq::Siq;
use flake_core::sno::Sno;
use flake_core::sortkey::{
    abbreviation, abbreviation_of, distance_code, key_of, leading_bits, leading_shift,
    Abbreviation, Abbreviator, ServerField,
};
use flake_core::FlakeId;
use proptest::prelude::*;

fn monotone(a: u128, b: u128, base: u128) {
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    assert!(
        abbreviation(lo, base) <= abbreviation(hi, base),
        "{lo:#x} <= {hi:#x} but abbreviations disagree (base {base:#x})"
    );
}

#[test]
fn edges() {
    let points = [
        0,
        1,
        (1 << 56) - 1,
        1 << 56,
        (1 << 56) + 1,
        (1 << 57) - 1,
        1 << 57,
        1 << 63,
        1 << 64,
        (1 << 112) - 1,
        u128::MAX - 1,
        u128::MAX,
    ];
    for &base in &points {
        for &a in &points {
            for &b in &points {
                monotone(a, b, base);
                monotone(a, b.wrapping_add(base), base);
            }
        }
        assert_eq!(abbreviation(base, base), 1 << 63);
    }
    assert!(distance_code(u128::MAX) < 73 << 56);
    assert_eq!(distance_code(1 << 56), 1 << 56);
}

#[test]
fn within_2_pow_56_the_code_is_the_difference_and_joins_the_general_code() {
    // Bases with room for ±2^57 (a value that wraps is far, not near).
    for base in [1 << 57, 1 << 100, u128::MAX - (1 << 58)] {
        for d in [
            -(1i128 << 56),
            -(1 << 56) + 1,
            -1,
            0,
            1,
            (1 << 56) - 1,
            1 << 56,
        ] {
            let value = base.wrapping_add(d as u128);
            assert_eq!(
                abbreviation(value, base),
                (1u64 << 63).wrapping_add(d as u64),
                "base {base:#x}, d {d}"
            );
        }
        // Across the edge the codes go on increasing.
        for d in [(1i128 << 56) - 1, 1 << 56, (1 << 56) + 1, (1 << 57) + 3] {
            monotone(
                base.wrapping_add(d as u128),
                base.wrapping_add(d as u128 + 1),
                base,
            );
            monotone(
                base.wrapping_sub(d as u128 + 1),
                base.wrapping_sub(d as u128),
                base,
            );
        }
    }
}

proptest! {
    #[test]
    fn a_key_is_the_bytes_as_one_big_endian_integer(bytes in proptest::collection::vec(any::<u8>(), 0..=16)) {
        let mut wide = [0u8; 16];
        wide[16 - bytes.len()..].copy_from_slice(&bytes);
        prop_assert_eq!(key_of(&bytes), u128::from_be_bytes(wide));
    }

    /// The generators hand an ID on as its key (`FlakeId::key`): the key
    /// and back is the same value, for every type of 9 to 16 bytes.
    #[test]
    fn a_value_goes_to_its_key_and_back(bytes in proptest::array::uniform16(any::<u8>())) {
        key_and_back::<Sno>(&bytes)?;
        key_and_back::<Siq>(&bytes)?;
        key_and_back::<Kuid96>(&bytes)?;
        key_and_back::<FlaxId>(&bytes)?;
    }
}

fn key_and_back<T: FlakeId>(bytes: &[u8; 16]) -> Result<(), TestCaseError> {
    let id = T::from_slice(&bytes[..T::LEN]).expect("every byte string of LEN is a value");
    prop_assert_eq!(id.key(), key_of(id.bytes()));
    let back = T::from_key(id.key());
    prop_assert_eq!(back.bytes(), id.bytes());
    Ok(())
}

proptest! {
    #[test]
    fn order_is_kept(a in any::<u128>(), b in any::<u128>(), base in any::<u128>()) {
        monotone(a, b, base);
    }

    #[test]
    fn order_is_kept_near_the_base(base in any::<u128>(), d1 in any::<u64>(), d2 in any::<u64>(),
                                   shift in 0u32..64) {
        let a = base.wrapping_add((d1 as u128) << shift);
        let b = base.wrapping_sub((d2 as u128) << shift);
        monotone(a, b, base);
        monotone(a, base, base);
        monotone(b, base, base);
    }

    #[test]
    fn near_values_stay_apart(base in 0u128..(1 << 112), d1 in 0u64..(1 << 56), d2 in 0u64..(1 << 56)) {
        prop_assume!(d1 != d2);
        prop_assert_ne!(abbreviation(base + d1 as u128, base), abbreviation(base + d2 as u128, base));
        if base >= 1 << 56 {
            prop_assert_ne!(abbreviation(base - d1 as u128, base), abbreviation(base - d2 as u128, base));
        }
    }
}

fn monotone_with(a: u128, b: u128, base: u128, field: Option<ServerField>) {
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    assert!(
        abbreviation_of(lo, base, field) <= abbreviation_of(hi, base, field),
        "{lo:#x} <= {hi:#x} but abbreviations disagree (base {base:#x}, {field:?})"
    );
}

/// Any field of at least 2 bits, anywhere with room above it.
fn any_field() -> impl Strategy<Value = ServerField> {
    (2u32..=64, 0u32..=125).prop_map(|(width, shift)| ServerField {
        width,
        shift: shift.min(127 - width),
    })
}

/// The server field of a format abbreviated relative to the base.
fn field_of<T: FlakeId>() -> Option<ServerField> {
    match T::ABBREVIATION {
        Abbreviation::FromBase(field) => Some(field),
        Abbreviation::LeadingBits => None,
    }
}

/// The formats' own fields, with the formats' widths in bytes.
fn format_fields() -> [(&'static str, Option<ServerField>, usize); 3] {
    [
        ("siq", field_of::<Siq>(), Siq::LEN),
        ("sno", field_of::<Sno>(), Sno::LEN),
        ("kuid96", field_of::<Kuid96>(), Kuid96::LEN),
    ]
}

#[test]
fn format_fields_lie_inside_their_values() {
    for (name, field, len) in format_fields() {
        let field = field.unwrap_or_else(|| panic!("{name} declares its server field"));
        assert!(field.width >= 2, "{name}");
        let bits = 8 * len as u32;
        assert!(
            field.shift + field.width < bits,
            "{name}: the time lies above the field"
        );
        // What the abbreviator's 64-bit path of a value near the base needs.
        assert!(
            bits - field.shift - field.width <= 64,
            "{name}: the bits above the field fit in 64"
        );
        assert!(field.shift < 54, "{name}: room for the distance");
    }
    assert_eq!(field_of::<FlaxId>(), None);
    assert_eq!(field_of::<DistributedId>(), None);
}

/// The abbreviator of a format relative to the base gives what
/// `abbreviation_of` gives (its 64-bit path for values of the base's
/// server near it included), for a base and a value of `T`'s width.
fn abbreviator_agrees<T: FlakeId>(base: u128, value: u128) -> Result<(), TestCaseError> {
    let width_mask = u128::MAX >> (128 - 8 * T::LEN);
    let (base, value) = (base & width_mask, value & width_mask);
    prop_assert_eq!(
        Abbreviator::<T>::new(base).abbreviate(value),
        abbreviation_of(value, base, field_of::<T>()),
        "{} base {:#x} value {:#x}",
        T::TYPE_NAME,
        base,
        value
    );
    Ok(())
}

/// `value` moved to `base`'s server field, and within about 2^(bits + 1)
/// of it by `offset`: the values the 64-bit path takes, and its edges.
fn near_with_field<T: FlakeId>(base: u128, offset: i128, bits: u32) -> u128 {
    let field = field_of::<T>().expect("a format with a server field");
    let mask = ((1u128 << field.width) - 1) << field.shift;
    let offset = offset >> (127 - bits.min(126));
    let moved = base.wrapping_add(offset as u128);
    (moved & !mask) | (base & mask)
}

/// Values of the base's server at the edge of the 64-bit path's reach
/// (2^(54 − shift) above the field, and farther; the bits below it at
/// their extremes),
/// on both sides of the base: where a random value rarely lands.
fn agrees_at_the_reach<T: FlakeId>() {
    let field = field_of::<T>().expect("a format with a server field");
    let width_mask = u128::MAX >> (128 - 8 * T::LEN);
    let above_shift = field.shift + field.width;
    let reach = 1i128 << (54 - field.shift);
    let below_mask = (1u128 << field.shift) - 1;
    for base_below in [0, below_mask / 2, below_mask] {
        // Room on both sides of the base above the field: the middle of
        // the bits there.
        let middle = 1u128 << (8 * T::LEN as u32 - above_shift - 1);
        let base = middle << above_shift | 0x5a5a << field.shift | base_below;
        // (Up to 2^57 a distance's code is still the distance itself, so
        // only from twice the reach would a wider path go wrong.)
        let aboves = [
            0,
            1,
            reach - 1,
            reach,
            reach + 1,
            2 * reach - 1,
            2 * reach,
            2 * reach + 1,
            4 * reach,
        ];
        for above in aboves.into_iter().flat_map(|a| [a, -a]) {
            for below in [0, 1, below_mask - 1, below_mask] {
                let moved = base.wrapping_add((above << above_shift) as u128);
                let value = (moved & !below_mask | below) & width_mask;
                abbreviator_agrees::<T>(base, value).unwrap();
            }
        }
    }
}

#[test]
fn the_abbreviators_agree_at_the_edge_of_their_64_bit_path() {
    agrees_at_the_reach::<Siq>();
    agrees_at_the_reach::<Sno>();
    agrees_at_the_reach::<Kuid96>();
}

/// Leading bits of values of `T`'s width never contradict their order.
fn leading_bits_keep_the_order<T: FlakeId>(
    a: u128,
    b: u128,
    base: u128,
) -> Result<(), TestCaseError> {
    let width_mask = u128::MAX >> (128 - 8 * T::LEN);
    let (a, b, base) = (a & width_mask, b & width_mask, base & width_mask);
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    let abbreviator = Abbreviator::<T>::new(base);
    prop_assert!(
        abbreviator.abbreviate(lo) <= abbreviator.abbreviate(hi),
        "{} {:#x} <= {:#x} (base {:#x})",
        T::TYPE_NAME,
        lo,
        hi,
        base
    );
    Ok(())
}

proptest! {
    #[test]
    fn the_abbreviators_agree_with_the_general_code(base in any::<u128>(), value in any::<u128>(),
                                                   offset in any::<i128>(), bits in 0u32..80) {
        abbreviator_agrees::<Siq>(base, value)?;
        abbreviator_agrees::<Sno>(base, value)?;
        abbreviator_agrees::<Kuid96>(base, value)?;
        abbreviator_agrees::<Siq>(base, near_with_field::<Siq>(base, offset, bits))?;
        abbreviator_agrees::<Sno>(base, near_with_field::<Sno>(base, offset, bits))?;
        abbreviator_agrees::<Kuid96>(base, near_with_field::<Kuid96>(base, offset, bits))?;
    }

    #[test]
    fn leading_bits_never_contradict_the_order(a in any::<u128>(), b in any::<u128>(),
                                               base in any::<u128>(), small in any::<bool>()) {
        // A base below 2^64 keeps the last 64 bits, others the first.
        let base = if small { base >> 64 } else { base };
        leading_bits_keep_the_order::<FlaxId>(a, b, base)?;
        leading_bits_keep_the_order::<DistributedId>(a, b, base)?;
        leading_bits_keep_the_order::<DistributedId>(a >> 64, b, base)?;
    }
}

#[test]
fn leading_bits_are_the_first_64_or_the_last_64() {
    assert_eq!(leading_shift(1 << 64, 12), 32);
    assert_eq!(leading_shift((1 << 64) - 1, 12), 0);
    assert_eq!(leading_shift(u128::MAX, 16), 64);
    assert_eq!(leading_bits(u128::MAX >> 32, 32), u64::MAX);
    assert_eq!(leading_bits(1 << 64, 0), u64::MAX);
    assert_eq!(leading_bits((1 << 64) - 1, 0), u64::MAX);
    assert_eq!(leading_bits(12345, 0), 12345);
}

/// FlaxIDs of one millisecond keep 24 of their random bits, as uuid v4 keeps
/// 64: two of them tie only if those agree.
#[test]
fn flaxids_of_one_millisecond_stay_apart() {
    let millis: u128 = 372_000_000_000; // 2026, since 2015
    let id = |random: u128| millis << 56 | random;
    let abbreviator = Abbreviator::<FlaxId>::new(id(0x00ab_cdef_0123_4567));
    let a = abbreviator.abbreviate(id(0x0012_3456_0000_0000));
    let b = abbreviator.abbreviate(id(0x0012_3457_0000_0000));
    assert!(a < b);
    let next_millisecond = abbreviator.abbreviate((millis + 1) << 56);
    assert!(b < next_millisecond);
}

/// A distributed_id column of small numbers (cast from a bigint key, say)
/// keeps every value apart rather than tying in a first 8 bytes of zeros.
#[test]
fn small_distributed_ids_stay_apart() {
    let abbreviator = Abbreviator::<DistributedId>::new(500);
    let codes: Vec<u64> = (0..1000u128).map(|v| abbreviator.abbreviate(v)).collect();
    assert!(codes.windows(2).all(|w| w[0] < w[1]));
    // Generated ones (a time in its first bits) keep their first 8 bytes.
    let generated: u128 = 0x03a4_6bca_8774_d61c_a42e_7fd4;
    let abbreviator = Abbreviator::<DistributedId>::new(generated);
    assert_eq!(abbreviator.abbreviate(generated), (generated >> 32) as u64);
}

proptest! {
    #[test]
    fn collapsing_keeps_the_order(a in any::<u128>(), b in any::<u128>(), base in any::<u128>(),
                                  field in any_field()) {
        monotone_with(a, b, base, Some(field));
    }

    /// Values that share the bits above the field, or the field itself with
    /// the base, are where the classes meet: the random cases above rarely
    /// land there.
    #[test]
    fn collapsing_keeps_the_order_at_the_seams(base in any::<u128>(), field in any_field(),
                                               x in any::<u128>(), y in any::<u128>(),
                                               same_field in any::<bool>()) {
        let mask = ((1u128 << field.width) - 1) << field.shift;
        let above = !((1u128 << (field.shift + field.width)) - 1);
        let mut a = (base & above) | (x & !above);
        let mut b = (base & above) | (y & !above);
        if same_field {
            a = (a & !mask) | (base & mask);
            b = (b & !mask) | (base & mask);
        }
        monotone_with(a, b, base, Some(field));
        monotone_with(a, base, base, Some(field));
    }

    /// The IDs of the base's server keep their sequence: a sort of one
    /// server's SIQs over a minute, 2^22 ticks, never falls back to the
    /// full comparison.
    #[test]
    fn one_servers_siqs_stay_apart(base_ticks in 0u128..(1 << 50), node in any::<u64>(),
                                   t1 in 0u128..(1 << 22), t2 in 0u128..(1 << 22),
                                   s1 in any::<u16>(), s2 in any::<u16>()) {
        prop_assume!((t1, s1) != (t2, s2));
        let field = field_of::<Siq>();
        let node = u128::from(node) & ((1 << 40) - 1);
        let id = |t: u128, s: u16| (base_ticks + t) << 56 | node << 16 | u128::from(s);
        let base = id(0, 0);
        prop_assert_ne!(abbreviation_of(id(t1, s1), base, field),
                        abbreviation_of(id(t2, s2), base, field));
        monotone_with(id(t1, s1), id(t2, s2), base, field);
    }

    /// Without the collapse, those SIQs tie within a tick.
    #[test]
    fn siqs_tie_within_a_tick_without_it(base_ticks in 0u128..(1 << 50), node in 1u128..(1 << 40),
                                         t in (1u128 << 20)..(1 << 22), s1 in any::<u16>(), s2 in any::<u16>()) {
        let id = |t: u128, s: u16| (base_ticks + t) << 56 | node << 16 | u128::from(s);
        prop_assert_eq!(abbreviation(id(t, s1), id(0, 0)), abbreviation(id(t, s2), id(0, 0)));
    }
}

//! Abbreviated keys never contradict the order of the values (a sort or an
//! index built with them would be corrupt otherwise), and keep values near
//! the base apart.

use flake_core::sortkey::{abbreviation, distance_code};
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

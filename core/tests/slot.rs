use flake_core::slot::SlotRule;
use flake_core::sno;

fn assert_disjoint(rule: SlotRule, nslots: u32) {
    let all: Vec<_> = (0..nslots)
        .map(|s| rule.assign(s, nslots).unwrap())
        .collect();
    for (i, a) in all.iter().enumerate() {
        assert!(a.process < 1 << rule.process_bits);
        assert!(a.range.last < (1u64 << rule.sequence_bits) as u32 || rule.sequence_bits == 32);
        for b in &all[i + 1..] {
            assert!(
                a.process != b.process || !a.range.overlaps(&b.range),
                "slots share process {} and overlapping ranges {:?} {:?}",
                a.process,
                a.range,
                b.range
            );
        }
    }
}

#[test]
fn slot_rule_gives_disjoint_ranges() {
    for nslots in [1, 100, 256, 257, 1000] {
        for rule in [
            sno::SLOT_RULE,
            SlotRule::new(8, 11), // siq, 5-bit kinds
            SlotRule::new(5, 12), // snowflake
            SlotRule::new(0, 14), // kuid
        ] {
            assert_disjoint(rule, nslots);
        }
    }
}

#[test]
fn defaults_give_every_backend_the_whole_space() {
    for s in 0..100 {
        let a = sno::SLOT_RULE.assign(s, 100).unwrap();
        assert_eq!((a.process, a.range.first, a.range.last), (s, 0, 65535));
    }
    let a = sno::SLOT_RULE.assign(256, 257).unwrap();
    assert_eq!((a.process, a.range.first, a.range.last), (0, 32768, 65535));
}

#[test]
fn too_many_slots_is_an_error_not_an_empty_range() {
    assert!(SlotRule::new(0, 14).assign(0, 20_000).is_err());
    assert!(SlotRule::new(0, 14).assign(5, 5).is_err());
}

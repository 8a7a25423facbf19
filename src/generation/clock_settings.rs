//! The settings every generator reads (docs/sql-reference.md "Settings"):
//! how far IDs may run ahead of the clock, and how far the clock may be set
//! ahead at once.

use crate::plumbing::settings::{self, Definition, Plain};
use pgrx::guc::{GucContext, GucFlags, GucSetting};

/// `pg_flake.max_clock_lag`: how far (ms) IDs may run ahead of the clock.
static MAX_CLOCK_LAG: GucSetting<i32> = GucSetting::<i32>::new(60_000);

/// `pg_flake.max_clock_jump`: how far (ms) the real-time clock may be set
/// ahead at once before generation refuses to move a mark with it (docs/guarantees.md
/// "Restarts, crashes and the clock"); 0 turns the check off. The default
/// equals `max_clock_lag`'s: a step that is accepted can be undone without
/// generation stopping (logical time absorbs it), and NTP's steps of a
/// synchronised clock are far below it.
static MAX_CLOCK_JUMP: GucSetting<i32> = GucSetting::<i32>::new(60_000);

/// Defines the settings of every generator (from `_PG_init`).
pub fn define_settings() {
    settings::define_int::<Plain>(
        Definition {
            name: c"pg_flake.max_clock_jump",
            short: c"How far the clock may be set ahead at once before generation stops rather than move the marks with it.",
            long: c"A real-time clock that moved this much further than the monotonic clock since the last mark was set forward; generation raises an error instead of recording a mark that far ahead. 0 turns the check off (docs/guarantees.md \"Restarts, crashes and the clock\").",
            context: GucContext::Suset,
            flags: GucFlags::UNIT_MS,
        },
        &MAX_CLOCK_JUMP,
        0,
        i32::MAX,
    );
    settings::define_int::<Plain>(
        Definition {
            name: c"pg_flake.max_clock_lag",
            short: c"How far the clock may be behind the IDs already issued before generation stops.",
            long: c"While the clock is behind, IDs go on in logical time above the last ones, at most this far ahead of the clock; beyond, generation raises an error (docs/guarantees.md \"Guarantees\").",
            context: GucContext::Suset,
            flags: GucFlags::UNIT_MS,
        },
        &MAX_CLOCK_LAG,
        0,
        i32::MAX,
    );
}

pub(super) fn max_lead_nanos() -> i64 {
    settings::int_value(&MAX_CLOCK_LAG) as i64 * 1_000_000
}

pub(super) fn max_jump_nanos() -> i64 {
    settings::int_value(&MAX_CLOCK_JUMP) as i64 * 1_000_000
}

//! The `pg_flake.*` settings (`sql-api.md` §3). Server identities (node
//! numbers) are superuser-only: an ordinary role that could change them could
//! forge another node's IDs or collide with it.

use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};
use pgrx::pg_sys;
use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::atomic::{AtomicI64, AtomicU32, Ordering};

pub static SNO_NODE: GucSetting<i32> = GucSetting::<i32>::new(0);
pub static SIQ_NODE: GucSetting<i32> = GucSetting::<i32>::new(0);
static SIQ_DOMAIN: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(Some(c""));
static KUID_NODE: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(Some(c""));
static KUID_INTERVAL: GucSetting<i32> =
    GucSetting::<i32>::new(flake_core::kuid::DEFAULT_INTERVAL as i32);
pub static SNOWFLAKE_WORKER: GucSetting<i32> = GucSetting::<i32>::new(0);
/// Text, because integer settings are 32-bit; the check hook admits only an
/// integer in `snowflake::EPOCH_RANGE_MS`.
static SNOWFLAKE_EPOCH: GucSetting<Option<CString>> =
    GucSetting::<Option<CString>>::new(Some(c"1420070400000"));

/// Fingerprint of `pg_flake.kuid_node` and the parsed
/// `pg_flake.snowflake_epoch`, computed when the setting changes.
static KUID_NODE_FINGERPRINT: AtomicU32 = AtomicU32::new(0);
static SNOWFLAKE_EPOCH_MS: AtomicI64 = AtomicI64::new(flake_core::snowflake::DEFAULT_EPOCH_MILLIS);

/// SHA-256-derived hash of `pg_flake.siq_domain`, computed when the setting
/// changes rather than for every ID.
static SIQ_DOMAIN_HASH: AtomicU32 = AtomicU32::new(0);

/// The 32 domain bits of generated SIQs: the domain's hash with the node
/// number (when non-zero) in the top byte.
pub fn siq_domain_bits() -> u32 {
    let node = SIQ_NODE.get() as u8;
    flake_core::siq::apply_node(SIQ_DOMAIN_HASH.load(Ordering::Relaxed), node)
}

/// The node of generated kuid96s: `kuid_node_fingerprint(pg_flake.kuid_node)`.
pub fn kuid_node() -> u32 {
    KUID_NODE_FINGERPRINT.load(Ordering::Relaxed)
}

/// `pg_flake.kuid_interval`, which the setting keeps within 5–10.
pub fn kuid_interval() -> u32 {
    KUID_INTERVAL.get() as u32
}

/// `pg_flake.snowflake_epoch` in milliseconds since the Unix epoch.
pub fn snowflake_epoch() -> i64 {
    SNOWFLAKE_EPOCH_MS.load(Ordering::Relaxed)
}

fn setting_text<'a>(value: *const c_char) -> &'a [u8] {
    if value.is_null() {
        b""
    } else {
        // SAFETY: PostgreSQL passes a NUL-terminated string.
        unsafe { CStr::from_ptr(value) }.to_bytes()
    }
}

unsafe extern "C-unwind" fn check_siq_domain(
    newval: *mut *mut c_char,
    _extra: *mut *mut c_void,
    _source: pg_sys::GucSource::Type,
) -> bool {
    // SAFETY: newval points at the proposed value.
    let text = setting_text(unsafe { *newval });
    text.is_ascii()
        || check_failed(
            "A SIQ domain must be ASCII: give the punycode (IDNA) form, e.g. xn--bcher-kva.example.",
        )
}

/// Rejects a proposed value with `detail` as the error's detail line.
fn check_failed(detail: &str) -> bool {
    let detail = CString::new(detail).unwrap_or_default();
    // SAFETY: PostgreSQL reads this detail after a failed check; pstrdup
    // copies it into its memory.
    unsafe { pg_sys::GUC_check_errdetail_string = pg_sys::pstrdup(detail.as_ptr()) };
    false
}

unsafe extern "C-unwind" fn assign_siq_domain(newval: *const c_char, _extra: *mut c_void) {
    // The check hook admitted only ASCII, for which hashing cannot fail.
    let text = std::str::from_utf8(setting_text(newval)).unwrap_or("");
    let hash = flake_core::siq::domain_hash(text).unwrap_or(0);
    SIQ_DOMAIN_HASH.store(hash, Ordering::Relaxed);
}

unsafe extern "C-unwind" fn assign_kuid_node(newval: *const c_char, _extra: *mut c_void) {
    let name = String::from_utf8_lossy(setting_text(newval));
    KUID_NODE_FINGERPRINT.store(flake_core::kuid::node_fingerprint(&name), Ordering::Relaxed);
}

fn parse_snowflake_epoch(text: &[u8]) -> Option<i64> {
    let epoch = std::str::from_utf8(text).ok()?.trim().parse().ok()?;
    crate::snowflake::check_epoch(epoch).ok()
}

unsafe extern "C-unwind" fn check_snowflake_epoch(
    newval: *mut *mut c_char,
    _extra: *mut *mut c_void,
    _source: pg_sys::GucSource::Type,
) -> bool {
    // SAFETY: newval points at the proposed value.
    parse_snowflake_epoch(setting_text(unsafe { *newval })).is_some()
        || check_failed(crate::snowflake::EPOCH_ACCEPTED)
}

unsafe extern "C-unwind" fn assign_snowflake_epoch(newval: *const c_char, _extra: *mut c_void) {
    // The check hook admitted only values that parse.
    let epoch = parse_snowflake_epoch(setting_text(newval))
        .unwrap_or(flake_core::snowflake::DEFAULT_EPOCH_MILLIS);
    SNOWFLAKE_EPOCH_MS.store(epoch, Ordering::Relaxed);
}

pub fn define() {
    GucRegistry::define_int_guc(
        c"pg_flake.sno_node",
        c"High byte of the sno partition: this server's node number.",
        c"Give every server that generates sno values its own number (0-255).",
        &SNO_NODE,
        0,
        255,
        GucContext::Suset,
        GucFlags::default(),
    );
    // SAFETY: the hooks never raise errors or panic.
    unsafe {
        GucRegistry::define_string_guc_with_hooks(
            c"pg_flake.siq_domain",
            c"Domain hashed into the 32 domain bits of generated SIQs.",
            c"ASCII (punycode for international names); '' and '0' give 0.",
            &SIQ_DOMAIN,
            GucContext::Userset,
            GucFlags::default(),
            Some(check_siq_domain),
            Some(assign_siq_domain),
            None,
        );
    }
    GucRegistry::define_int_guc(
        c"pg_flake.siq_node",
        c"This server's node number in SIQ: replaces the top byte of the domain hash when non-zero.",
        c"Give every server that generates SIQs for one domain its own number (1-255).",
        &SIQ_NODE,
        0,
        255,
        GucContext::Suset,
        GucFlags::default(),
    );
    // SAFETY: the hook never raises errors or panics.
    unsafe {
        GucRegistry::define_string_guc_with_hooks(
            c"pg_flake.kuid_node",
            c"This server's node name: its fingerprint goes into generated kuid96 values.",
            c"Give every server that generates kuid96 values its own name, e.g. uid@host.example.",
            &KUID_NODE,
            GucContext::Suset,
            GucFlags::default(),
            None,
            Some(assign_kuid_node),
            None,
        );
    }
    GucRegistry::define_int_guc(
        c"pg_flake.kuid_interval",
        c"kuid96 neighborhood interval I: the node sits above the low I bits of the seconds.",
        c"Every reader must use the interval the value was generated with (5-10).",
        &KUID_INTERVAL,
        flake_core::kuid::MIN_INTERVAL as i32,
        flake_core::kuid::MAX_INTERVAL as i32,
        GucContext::Userset,
        GucFlags::default(),
    );
    // SAFETY: the hooks never raise errors or panic.
    unsafe {
        GucRegistry::define_string_guc_with_hooks(
            c"pg_flake.snowflake_epoch",
            c"Snowflake epoch in milliseconds since 1970-01-01 00:00:00 UTC.",
            c"The default 1420070400000 is 2015-01-01 00:00:00 UTC, Discord's epoch.",
            &SNOWFLAKE_EPOCH,
            GucContext::Userset,
            GucFlags::default(),
            Some(check_snowflake_epoch),
            Some(assign_snowflake_epoch),
            None,
        );
    }
    GucRegistry::define_int_guc(
        c"pg_flake.snowflake_worker",
        c"Worker field of generated snowflakes: this server's number.",
        c"Give every server that generates snowflakes its own number (0-31).",
        &SNOWFLAKE_WORKER,
        0,
        flake_core::snowflake::MAX_WORKER as i32,
        GucContext::Suset,
        GucFlags::default(),
    );
    // SAFETY: called once from _PG_init with a static string.
    unsafe { pgrx::pg_sys::MarkGUCPrefixReserved(c"pg_flake".as_ptr()) };
}

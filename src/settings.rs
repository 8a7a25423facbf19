//! The `pg_flake.*` settings (`sql-api.md` §3). Server identities (node
//! numbers) are superuser-only: an ordinary role that could change them could
//! forge another node's IDs or collide with it. The public-identity key is
//! superuser-only and hidden from every other role.

use flake_core::public_id::PublicIdKey;
use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};
use pgrx::pg_sys;
use std::cell::RefCell;
use std::ffi::{c_char, c_void, CStr, CString};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, Ordering};

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

/// `pg_flake.public_id_key`: base64 text, unset (NULL or '') by default.
/// Nothing in this module ever puts its value into a message.
static PUBLIC_ID_KEY: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);

thread_local! {
    /// The key of `pg_flake.public_id_key`, expanded when the setting
    /// changes (the assign hook), not per call; wiped when replaced.
    static PUBLIC_ID_CIPHER: RefCell<Option<Rc<PublicIdKey>>> = const { RefCell::new(None) };
}

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

/// Whether the library was loaded by `shared_preload_libraries`.
static PRELOADED: AtomicBool = AtomicBool::new(false);

/// The key of `pg_flake.public_id_key`, None while it is unset.
pub fn public_id_key() -> Option<Rc<PublicIdKey>> {
    PUBLIC_ID_CIPHER.with_borrow(Option::clone)
}

/// Whether pg_flake is in `shared_preload_libraries`. Only then are its
/// settings defined in every backend before any SQL runs: otherwise a
/// backend that has not loaded pg_flake yet holds `pg_flake.public_id_key`
/// as an ordinary placeholder, which every role can `SHOW`.
pub fn preloaded() -> bool {
    PRELOADED.load(Ordering::Relaxed)
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

/// A copy of `text` in PostgreSQL's memory, for a failed check's message.
fn check_string(text: &str) -> *mut c_char {
    let text = CString::new(text).unwrap_or_default();
    // SAFETY: pstrdup copies the NUL-terminated string into the current
    // memory context, where PostgreSQL reads it after a failed check.
    unsafe { pg_sys::pstrdup(text.as_ptr()) }
}

/// Rejects a proposed value with `detail` as the error's detail line.
fn check_failed(detail: &str) -> bool {
    // SAFETY: a plain global that PostgreSQL reads after a failed check.
    unsafe { pg_sys::GUC_check_errdetail_string = check_string(detail) };
    false
}

/// Rejects a proposed value with a message of our own: PostgreSQL's default
/// message quotes the value, which must not happen for a secret.
fn check_failed_hiding_value(message: &str, detail: &str) -> bool {
    // SAFETY: as in check_failed.
    unsafe { pg_sys::GUC_check_errmsg_string = check_string(message) };
    check_failed(detail)
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

/// The key of a `pg_flake.public_id_key` text; None for unset (NULL or '').
fn parse_public_id_key(text: &[u8]) -> Option<flake_core::Result<PublicIdKey>> {
    if text.is_empty() {
        return None;
    }
    // Text that is not UTF-8 is not base64 either, lossy or not.
    Some(PublicIdKey::from_base64(&String::from_utf8_lossy(text)))
}

unsafe extern "C-unwind" fn check_public_id_key(
    newval: *mut *mut c_char,
    _extra: *mut *mut c_void,
    _source: pg_sys::GucSource::Type,
) -> bool {
    // SAFETY: newval points at the proposed value. The messages below say
    // what is wrong (base64, length) and never show the value.
    match parse_public_id_key(setting_text(unsafe { *newval })) {
        None | Some(Ok(_)) => true,
        Some(Err(error)) => check_failed_hiding_value(
            "invalid value for parameter \"pg_flake.public_id_key\" (value not shown)",
            &format!("{error}. Give the standard base64 of a random key, e.g. from: openssl rand -base64 32"),
        ),
    }
}

unsafe extern "C-unwind" fn assign_public_id_key(newval: *const c_char, _extra: *mut c_void) {
    // The check hook admitted only unset values and valid keys.
    let key = parse_public_id_key(setting_text(newval)).and_then(Result::ok);
    PUBLIC_ID_CIPHER.set(key.map(Rc::new));
}

pub fn define() {
    // SAFETY: a plain global, true while the postmaster loads the preloaded
    // libraries (backends inherit the result).
    PRELOADED.store(
        unsafe { pg_sys::process_shared_preload_libraries_in_progress },
        Ordering::Relaxed,
    );
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
    // SAFETY: the hooks never raise errors or panic.
    unsafe {
        GucRegistry::define_string_guc_with_hooks(
            c"pg_flake.public_id_key",
            c"Default key of the public_id_* functions: base64 of 16, 24 or 32 bytes (AES-128/192/256).",
            c"Superuser-only and hidden from other roles; the functions use it without revealing it.",
            &PUBLIC_ID_KEY,
            GucContext::Suset,
            GucFlags::SUPERUSER_ONLY | GucFlags::NO_SHOW_ALL,
            Some(check_public_id_key),
            Some(assign_public_id_key),
            None,
        );
    }
    // SAFETY: called once from _PG_init with a static string.
    unsafe { pgrx::pg_sys::MarkGUCPrefixReserved(c"pg_flake".as_ptr()) };
}

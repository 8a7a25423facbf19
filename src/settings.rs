//! The `pg_flake.*` settings (`sql-api.md` §3). Server identities (node
//! numbers) are superuser-only: an ordinary role that could change them could
//! forge another node's IDs or collide with it.

use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};
use pgrx::pg_sys;
use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::atomic::{AtomicU32, Ordering};

pub static SNO_NODE: GucSetting<i32> = GucSetting::<i32>::new(0);
pub static SIQ_NODE: GucSetting<i32> = GucSetting::<i32>::new(0);
static SIQ_DOMAIN: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(Some(c""));

/// SHA-256-derived hash of `pg_flake.siq_domain`, computed when the setting
/// changes rather than for every ID.
static SIQ_DOMAIN_HASH: AtomicU32 = AtomicU32::new(0);

/// The 32 domain bits of generated SIQs: the domain's hash with the node
/// number (when non-zero) in the top byte.
pub fn siq_domain_bits() -> u32 {
    let node = SIQ_NODE.get() as u8;
    flake_core::siq::apply_node(SIQ_DOMAIN_HASH.load(Ordering::Relaxed), node)
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
    if text.is_ascii() {
        return true;
    }
    // SAFETY: PostgreSQL reads this detail after a failed check.
    unsafe {
        pg_sys::GUC_check_errdetail_string = pg_sys::pstrdup(
            c"A SIQ domain must be ASCII: give the punycode (IDNA) form, e.g. xn--bcher-kva.example."
                .as_ptr(),
        );
    }
    false
}

unsafe extern "C-unwind" fn assign_siq_domain(newval: *const c_char, _extra: *mut c_void) {
    // The check hook admitted only ASCII, for which hashing cannot fail.
    let text = std::str::from_utf8(setting_text(newval)).unwrap_or("");
    let hash = flake_core::siq::domain_hash(text).unwrap_or(0);
    SIQ_DOMAIN_HASH.store(hash, Ordering::Relaxed);
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
    // SAFETY: called once from _PG_init with a static string.
    unsafe { pgrx::pg_sys::MarkGUCPrefixReserved(c"pg_flake".as_ptr()) };
}

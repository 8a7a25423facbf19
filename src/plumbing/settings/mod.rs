//! What every format's settings share (docs/sql-reference.md "Settings"): the
//! `pg_flake.` prefix, how a setting's check hook rejects a value, and
//! whether pg_flake was preloaded. Each format defines its own settings in
//! its module; `_PG_init` calls them through the registry.
//!
//! Settings that identify a server (node numbers and names) are
//! superuser-only: an ordinary role that could change them could forge
//! another node's IDs or collide with it.
//!
//! The room of settings also holds what they feed: [`derived`] (values
//! worked out from settings and catalog readings, kept until one changes)
//! and [`log_secret`] (a secret setting's value kept out of the server log).

pub mod derived;
pub mod log_secret;

use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};
use pgrx::pg_sys;
use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether the library was loaded by `shared_preload_libraries`.
static PRELOADED: AtomicBool = AtomicBool::new(false);

/// Whether pg_flake is in `shared_preload_libraries`. Only then are its
/// settings defined in every backend before any SQL runs: otherwise a
/// backend that has not loaded pg_flake yet holds `pg_flake.public_id_key`
/// as an ordinary placeholder, which every role can `SHOW`.
pub fn preloaded() -> bool {
    PRELOADED.load(Ordering::Relaxed)
}

/// Records whether this load is the preloading one (from `_PG_init`, before
/// any setting is defined).
pub fn note_preloading() {
    // SAFETY: a plain global, true while the postmaster loads the preloaded
    // libraries (backends inherit the result).
    PRELOADED.store(
        unsafe { pg_sys::process_shared_preload_libraries_in_progress },
        Ordering::Relaxed,
    );
}

/// Reserves the `pg_flake.` prefix, so that a misspelt setting is an error
/// (from `_PG_init`, after every setting is defined).
pub fn reserve_prefix() {
    // SAFETY: called once from _PG_init with a static string.
    unsafe { pg_sys::MarkGUCPrefixReserved(c"pg_flake".as_ptr()) };
}

/// The text of a string setting's value (NULL is '').
fn setting_text<'a>(value: *const c_char) -> &'a [u8] {
    if value.is_null() {
        b""
    } else {
        // SAFETY: PostgreSQL passes a NUL-terminated string.
        unsafe { CStr::from_ptr(value) }.to_bytes()
    }
}

/// A copy of `text` in the current memory context: a failed check's message, a
/// message replaced in the log.
pub(super) fn pstrdup_of(text: &str) -> *mut c_char {
    let text = CString::new(text).unwrap_or_default();
    // SAFETY: pstrdup copies the NUL-terminated string into the current
    // memory context, where PostgreSQL reads it.
    unsafe { pg_sys::pstrdup(text.as_ptr()) }
}

/// Rejects a proposed value with `detail` as the error's detail line
/// (a check hook's `false`).
fn check_failed(detail: &str) -> bool {
    // SAFETY: a plain global that PostgreSQL reads after a failed check.
    unsafe { pg_sys::GUC_check_errdetail_string = pstrdup_of(detail) };
    false
}

/// Rejects a proposed value with a message of our own: PostgreSQL's default
/// message quotes the value, which must not happen for a secret.
fn check_failed_hiding_value(message: &str, detail: &str) -> bool {
    // SAFETY: as in check_failed.
    unsafe { pg_sys::GUC_check_errmsg_string = pstrdup_of(message) };
    check_failed(detail)
}

// --- defining a setting -------------------------------------------------------------

/// What PostgreSQL shows of a setting: its name, descriptions, who may set
/// it and its flags.
pub struct Definition {
    pub name: &'static CStr,
    pub short: &'static CStr,
    pub long: &'static CStr,
    pub context: GucContext,
    pub flags: GucFlags,
}

/// Why a proposed value is refused, for the user.
pub enum Rejection {
    /// PostgreSQL's message (which quotes the value) with this detail line.
    Detail(String),
    /// A message of our own, for a secret whose value must not be shown.
    HidingValue { message: String, detail: String },
}

/// A text setting: [`check`](Self::check) parses a proposed value (the
/// check hook), [`assign`](Self::assign) stores what the value stands for
/// where the code reads it (the assign hook, also on `RESET` and rollback).
/// Neither may raise an error. Both see the value's text, `''` for NULL.
pub trait TextSetting: 'static {
    fn check(_text: &[u8]) -> Result<(), Rejection> {
        Ok(())
    }
    fn assign(_text: &[u8]) {}
    /// A format's own node setting, which records whether it is set.
    fn tracked() -> Option<&'static FormatSetting> {
        None
    }
}

/// An integer setting (PostgreSQL keeps it within its bounds): what
/// [`TextSetting`] is for text.
pub trait IntSetting: 'static {
    fn assign(_value: i32) {}
    /// A format's own node setting, which records whether it is set.
    fn tracked() -> Option<&'static FormatSetting> {
        None
    }
}

/// A setting whose value the code reads where it needs it: no hook.
pub struct Plain;

impl IntSetting for Plain {}

/// Defines a text setting with the hooks of `S` (from `_PG_init`).
pub fn define_text<S: TextSetting>(
    definition: Definition,
    value: &'static GucSetting<Option<CString>>,
) {
    // SAFETY: called from _PG_init; the hooks never raise errors or panic.
    unsafe {
        GucRegistry::define_string_guc_with_hooks(
            definition.name,
            definition.short,
            definition.long,
            value,
            definition.context,
            definition.flags,
            Some(check_text::<S>),
            Some(assign_text::<S>),
            None,
        );
    }
}

/// The current value of an integer setting, read without pgrx's check that
/// the caller is the backend's thread (`GucSetting::get`), a thread-local
/// access on every call: generation reads `pg_flake.max_clock_lag` for every
/// ID (docs/BENCHMARKS.md "Generation profile").
#[inline]
pub fn int_value(setting: &'static GucSetting<i32>) -> i32 {
    // SAFETY: the variable PostgreSQL assigns the setting's value to, on the
    // backend's one thread, the only one pg_flake's code runs on
    // (src/plumbing/backend/local.rs).
    unsafe { *setting.as_ptr() }
}

/// Defines an integer setting in `min ..= max` with the hooks of `S`.
pub fn define_int<S: IntSetting>(
    definition: Definition,
    value: &'static GucSetting<i32>,
    min: i32,
    max: i32,
) {
    // SAFETY: called from _PG_init; the hooks never raise errors or panic.
    unsafe {
        GucRegistry::define_int_guc_with_hooks(
            definition.name,
            definition.short,
            definition.long,
            value,
            min,
            max,
            definition.context,
            definition.flags,
            Some(check_int::<S>),
            Some(assign_int::<S>),
            None,
        );
    }
}

unsafe extern "C-unwind" fn check_text<S: TextSetting>(
    newval: *mut *mut c_char,
    extra: *mut *mut c_void,
    source: pg_sys::GucSource::Type,
) -> bool {
    // SAFETY: newval points at the proposed value.
    match S::check(setting_text(unsafe { *newval })) {
        Ok(()) => S::tracked().is_none_or(|_| FormatSetting::check(source, extra)),
        Err(Rejection::Detail(detail)) => check_failed(&detail),
        Err(Rejection::HidingValue { message, detail }) => {
            check_failed_hiding_value(&message, &detail)
        }
    }
}

unsafe extern "C-unwind" fn assign_text<S: TextSetting>(newval: *const c_char, extra: *mut c_void) {
    S::assign(setting_text(newval));
    if let Some(tracked) = S::tracked() {
        tracked.assign(extra);
    }
}

unsafe extern "C-unwind" fn check_int<S: IntSetting>(
    _newval: *mut i32,
    extra: *mut *mut c_void,
    source: pg_sys::GucSource::Type,
) -> bool {
    S::tracked().is_none_or(|_| FormatSetting::check(source, extra))
}

unsafe extern "C-unwind" fn assign_int<S: IntSetting>(newval: i32, extra: *mut c_void) {
    S::assign(newval);
    if let Some(tracked) = S::tracked() {
        tracked.assign(extra);
    }
}

/// A format's own node setting (0.1.0's), with whether it is set: its check
/// hook records the source of each value, and PostgreSQL hands that back to
/// the assign hook with the value, also on `RESET` and rollback.
pub struct FormatSetting {
    pub name: &'static str,
    explicit: AtomicBool,
}

impl FormatSetting {
    pub const fn new(name: &'static str) -> Self {
        FormatSetting {
            name,
            explicit: AtomicBool::new(false),
        }
    }

    /// Whether the setting has a value other than its built-in default.
    pub fn is_set(&self) -> bool {
        self.explicit.load(Ordering::Relaxed)
    }

    /// For the check hook: whether a value from `source` counts as set,
    /// as the `extra` PostgreSQL keeps with the value, allocated as
    /// PostgreSQL frees it (PostgreSQL 16+: guc_malloc, in its own memory
    /// context; before: malloc). `extra` is the check hook's argument.
    fn check(source: pg_sys::GucSource::Type, extra: *mut *mut c_void) -> bool {
        // SAFETY: PostgreSQL frees `extra` with guc_free() (16+) or free();
        // `extra` is the check hook's own argument.
        unsafe {
            #[cfg(guc_malloc)]
            let flag = pg_sys::guc_malloc(pg_sys::LOG as i32, 1).cast::<bool>();
            #[cfg(not(guc_malloc))]
            let flag = libc::malloc(1).cast::<bool>();
            if flag.is_null() {
                return false;
            }
            *flag = source > pg_sys::GucSource::PGC_S_DYNAMIC_DEFAULT;
            *extra = flag.cast();
        }
        true
    }

    /// For the assign hook: `extra` is its argument, made by
    /// [`check`](Self::check).
    fn assign(&self, extra: *mut c_void) {
        // SAFETY: made by check: null or one bool.
        let set = !extra.is_null() && unsafe { *extra.cast::<bool>() };
        self.explicit.store(set, Ordering::Relaxed);
        derived::identity_changed();
    }
}

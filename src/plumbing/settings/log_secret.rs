//! A secret setting's value kept out of the server log
//! (docs/sql-reference.md "Settings": `pg_flake.public_id_key`).

use super::pstrdup_of;
use pgrx::pg_sys;
use std::ffi::{c_char, CStr};
use std::sync::OnceLock;

/// The setting whose value never reaches the server log.
static SECRET: OnceLock<&'static str> = OnceLock::new();

static mut PREVIOUS_EMIT_LOG_HOOK: pg_sys::emit_log_hook_type = None;

/// Keeps the value of setting `name` out of the server log (from
/// `_PG_init`; one secret setting: `pg_flake.public_id_key`).
pub fn hide_from_log(name: &'static str) {
    if SECRET.set(name).is_err() {
        return;
    }
    // SAFETY: _PG_init runs once per process, before any message is emitted
    // through the hook; the previous hook is kept and called.
    unsafe {
        PREVIOUS_EMIT_LOG_HOOK = pg_sys::emit_log_hook;
        pg_sys::emit_log_hook = Some(hide_secret);
    }
}

/// Whether a C string mentions the secret setting (names are
/// case-insensitive).
///
/// # Safety
/// `text` is null or a NUL-terminated string.
unsafe fn mentions(text: *const c_char, name: &str) -> bool {
    !text.is_null()
        && unsafe { CStr::from_ptr(text) }
            .to_bytes()
            .windows(name.len())
            .any(|w| w.eq_ignore_ascii_case(name.as_bytes()))
}

/// Whether C string `haystack` contains C string `needle` (both non-null).
///
/// # Safety
/// Both are NUL-terminated strings.
unsafe fn contains(haystack: *const c_char, needle: *const c_char) -> bool {
    let (haystack, needle) = unsafe {
        (
            CStr::from_ptr(haystack).to_bytes(),
            CStr::from_ptr(needle).to_bytes(),
        )
    };
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}

/// Keeps PostgreSQL's own messages from writing the secret's value to the
/// log: the postmaster's "parameter … changed to …" line after a reload,
/// and for a statement that names the setting, every line quoting the
/// statement (`log_statement`, `log_min_duration_statement`, with their
/// bind parameters) and the statement line under an error
/// (`log_min_error_statement`).
unsafe extern "C-unwind" fn hide_secret(edata: *mut pg_sys::ErrorData) {
    // SAFETY: PostgreSQL passes the message being emitted, in ErrorContext
    // (the current memory context), where a replacement message belongs.
    unsafe {
        if let (Some(e), Some(name)) = (edata.as_mut(), SECRET.get()) {
            let query = pg_sys::debug_query_string;
            let statement = mentions(query, name);
            if statement {
                e.hide_stmt = true;
            }
            let reload = !e.message_id.is_null()
                && CStr::from_ptr(e.message_id).to_bytes() == b"parameter \"%s\" changed to \"%s\""
                && mentions(e.message, name);
            if reload {
                e.message = pstrdup_of(&format!("parameter \"{name}\" changed (value not shown)"));
            } else if statement && !e.message.is_null() && contains(e.message, query) {
                e.message = pstrdup_of(&format!("statement: (not shown: it names {name})"));
                e.detail = std::ptr::null_mut();
            }
        }
        if let Some(previous) = PREVIOUS_EMIT_LOG_HOOK {
            previous(edata);
        }
    }
}

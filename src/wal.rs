//! Marks in the WAL (README "Guarantees"): with pg_flake preloaded on
//! PostgreSQL 15+, every mark a generator records is also a WAL record of
//! pg_flake's own resource manager, flushed (and, under synchronous
//! replication, confirmed by the synchronous standbys) before any ID above
//! the previous mark is issued. A streaming standby replays it into its
//! shared memory and its own marks file, so a promoted standby continues
//! above every mark its old primary recorded, whatever its clock says.
//! Crash recovery replays it too.
//!
//! Without preloading there is no resource manager (PostgreSQL registers
//! them only while loading `shared_preload_libraries`): marks then live in
//! the data directory only, which a restart and a crash respect but a
//! standby does not see.

use pgrx::pg_sys;
use std::sync::atomic::{AtomicBool, Ordering};

/// pg_flake's resource manager id, in the range PostgreSQL leaves to
/// extensions (128–255; 128 is for experiments). Another extension that
/// registers the same id makes the server refuse to start with both
/// preloaded: PostgreSQL names the clash in its log.
pub const RESOURCE_MANAGER_ID: u8 = 188;

/// The one kind of record: a generator's mark. Main data: the format's name,
/// a NUL, and the mark as 8 little-endian bytes.
const XLOG_PG_FLAKE_MARK: u8 = 0x10;

/// Whether the resource manager is registered in this server.
static REGISTERED: AtomicBool = AtomicBool::new(false);

/// What redo does with a replayed mark: `(format, mark, node)`, the node
/// where the record carries one (0.2.0's records do not).
pub type Learn = fn(&[u8], u64, Option<u32>);

/// The redo action `register` was given.
static LEARN: std::sync::OnceLock<Learn> = std::sync::OnceLock::new();

/// Registers the resource manager (from `_PG_init`, while preloading); a
/// replayed mark goes to `learn`.
#[cfg(not(any(feature = "pg13", feature = "pg14")))]
pub fn register(learn: Learn) {
    let _ = LEARN.set(learn);
    static RESOURCE_MANAGER: std::sync::OnceLock<Manager> = std::sync::OnceLock::new();
    let manager = RESOURCE_MANAGER.get_or_init(|| {
        Manager(pg_sys::RmgrData {
            rm_name: c"pg_flake".as_ptr(),
            rm_redo: Some(redo),
            rm_desc: Some(describe),
            rm_identify: Some(identify),
            ..Default::default()
        })
    });
    // SAFETY: called while the postmaster loads shared_preload_libraries;
    // PostgreSQL keeps the pointer, which lives as long as the library.
    unsafe { pg_sys::RegisterCustomRmgr(RESOURCE_MANAGER_ID, &manager.0 as *const _ as *mut _) };
    REGISTERED.store(true, Ordering::Relaxed);
}

#[cfg(any(feature = "pg13", feature = "pg14"))]
pub fn register(_learn: Learn) {}

/// `RmgrData` holds C string pointers to statics: safe to share.
struct Manager(pg_sys::RmgrData);
unsafe impl Sync for Manager {}
unsafe impl Send for Manager {}

/// Writes `mark` of `format` to the WAL and waits until it is flushed (and
/// confirmed by synchronous standbys, where there are any). Nothing to do
/// without the resource manager, or on a standby (which cannot write WAL; a
/// standby generating with its own `pg_flake.node` keeps its marks in its
/// data directory).
///
/// `node` is the node the primary generates `format` with (README
/// "Standbys and failover"): a standby that replays it knows its primary's
/// node and refuses to generate with it.
pub fn log_mark(format: &str, mark: u64, node: Option<u32>) {
    if !REGISTERED.load(Ordering::Relaxed) {
        return;
    }
    log(&record(format, mark, node));
}

/// Whether marks reach the WAL (and so a standby): pg_flake preloaded on
/// PostgreSQL 15+, where the resource manager is registered.
pub fn registered() -> bool {
    REGISTERED.load(Ordering::Relaxed)
}

use flake_core::lineage::{mark_record as record, parse_mark_record as parse};

#[cfg(not(any(feature = "pg13", feature = "pg14")))]
fn log(data: &[u8]) {
    // SAFETY: the standard sequence for a record without buffers; the data
    // lives until XLogInsert has copied it.
    unsafe {
        if !pg_sys::XLogInsertAllowed() {
            return;
        }
        pg_sys::XLogBeginInsert();
        #[cfg(not(any(feature = "pg15", feature = "pg16", feature = "pg17")))]
        pg_sys::XLogRegisterData(data.as_ptr().cast(), data.len() as u32);
        #[cfg(any(feature = "pg15", feature = "pg16", feature = "pg17"))]
        pg_sys::XLogRegisterData(data.as_ptr() as *mut _, data.len() as i32);
        let lsn = pg_sys::XLogInsert(RESOURCE_MANAGER_ID, XLOG_PG_FLAKE_MARK);
        pg_sys::XLogFlush(lsn);
        // SyncRepWaitForLSN expects interrupts held, as at commit: a cancel
        // ends the wait with a warning, like a commit's.
        pg_sys::InterruptHoldoffCount += 1;
        pg_sys::SyncRepWaitForLSN(lsn, false);
        pg_sys::InterruptHoldoffCount -= 1;
    }
}

#[cfg(any(feature = "pg13", feature = "pg14"))]
fn log(_data: &[u8]) {}

/// The main data of the record being replayed or described.
///
/// # Safety
/// `record` must be a decoded record of pg_flake's resource manager.
#[cfg(not(any(feature = "pg13", feature = "pg14")))]
unsafe fn main_data<'a>(record: *mut pg_sys::XLogReaderState) -> &'a [u8] {
    unsafe {
        let decoded = (*record).record;
        std::slice::from_raw_parts(
            (*decoded).main_data.cast::<u8>(),
            (*decoded).main_data_len as usize,
        )
    }
}

/// Redo: the mark goes to what `register` was given (the generator of the
/// record's format learns it, in shared memory and in this server's marks
/// file).
#[cfg(not(any(feature = "pg13", feature = "pg14")))]
#[pgrx::pg_guard]
unsafe extern "C-unwind" fn redo(record: *mut pg_sys::XLogReaderState) {
    // SAFETY: PostgreSQL replays one of our records.
    let Some((format, mark, node)) = parse(unsafe { main_data(record) }) else {
        pgrx::error!("pg_flake: malformed mark record in the WAL");
    };
    if let Some(learn) = LEARN.get() {
        learn(format, mark, node);
    }
}

#[cfg(not(any(feature = "pg13", feature = "pg14")))]
#[pgrx::pg_guard]
unsafe extern "C-unwind" fn describe(
    buf: pg_sys::StringInfo,
    record: *mut pg_sys::XLogReaderState,
) {
    // SAFETY: as in redo; the description is appended to PostgreSQL's buffer.
    unsafe {
        let text = match parse(main_data(record)) {
            Some((format, mark, node)) => {
                let format = String::from_utf8_lossy(format);
                match node {
                    Some(node) => format!("format {format} mark {mark} node {node}"),
                    None => format!("format {format} mark {mark}"),
                }
            }
            None => "malformed".to_string(),
        };
        let text = std::ffi::CString::new(text).unwrap_or_default();
        pg_sys::appendStringInfoString(buf, text.as_ptr());
    }
}

#[cfg(not(any(feature = "pg13", feature = "pg14")))]
unsafe extern "C-unwind" fn identify(info: u8) -> *const std::ffi::c_char {
    if info & !(pg_sys::XLR_INFO_MASK as u8) == XLOG_PG_FLAKE_MARK {
        c"MARK".as_ptr()
    } else {
        std::ptr::null()
    }
}

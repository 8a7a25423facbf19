//! Marks in the WAL (docs/guarantees.md "Guarantees"): with pg_flake preloaded on
//! PostgreSQL 15+, every mark a generator records is also a WAL record of
//! pg_flake's own resource manager, flushed (and, under synchronous
//! replication, confirmed by the synchronous standbys, whatever the
//! session's `synchronous_commit`) before any ID above the previous mark is
//! issued. A streaming standby replays it into its
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

/// A generator's mark. Main data: the format's name, a NUL, the mark as 8
/// little-endian bytes, and the node as 4 where there is one. Replay only
/// raises: marks grow.
const XLOG_PG_FLAKE_MARK: u8 = 0x10;

/// An operator's `pg_flake_set_mark` (0.4.0): the same main data, and
/// replay sets the mark to exactly this, up or down (docs/guarantees.md
/// "Restarts, crashes and the clock"), so that a lowered mark holds after
/// crash recovery and on the standbys. A library of 0.3.0 replays it as a
/// mark record: it raises the mark, never lowers it (safe, not lowered).
const XLOG_PG_FLAKE_SET: u8 = 0x20;

/// What a replayed record asks of the mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replayed {
    /// Raise it to at least the record's mark.
    Mark,
    /// Set it to exactly the record's mark (`pg_flake_set_mark`).
    Set,
}

/// Whether the resource manager is registered in this server.
static REGISTERED: AtomicBool = AtomicBool::new(false);

/// What redo does with a replayed mark: `(format, mark, node, kind)`, the
/// node where the record carries one (0.2.0's records do not).
pub type Learn = fn(&[u8], u64, Option<u32>, Replayed);

/// The redo action `register` was given.
static LEARN: std::sync::OnceLock<Learn> = std::sync::OnceLock::new();

/// Registers the resource manager (from `_PG_init`, while preloading); a
/// replayed mark goes to `learn`.
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
    super::primary::watch_checkpoints();
    REGISTERED.store(true, Ordering::Relaxed);
}

/// `RmgrData` holds C string pointers to statics: safe to share.
struct Manager(pg_sys::RmgrData);
unsafe impl Sync for Manager {}
unsafe impl Send for Manager {}

/// Writes `mark` of `format` to the WAL and waits until it is flushed and,
/// where `synchronous_standby_names` names synchronous standbys, confirmed
/// flushed by them — whatever the session's `synchronous_commit`, which any
/// user may lower (docs/operations.md "Standbys and failover"). The wait ends only with
/// the confirmation or with an interrupt: a cancel or `statement_timeout`
/// raises 57014, a terminate ends the backend, and the caller then uses
/// nothing above its previous mark. Nothing to do without the resource
/// manager, or on a standby (which cannot write WAL; a standby generating
/// with its own `pg_flake.node` keeps its marks in its data directory).
///
/// `node` is the node the primary generates `format` with (docs/operations.md
/// "Standbys and failover"): a standby that replays it knows its primary's
/// node and refuses to generate with it.
pub fn log_mark(format: &str, mark: u64, node: Option<u32>) {
    if !REGISTERED.load(Ordering::Relaxed) {
        return;
    }
    log(XLOG_PG_FLAKE_MARK, &record(format, mark, node));
}

/// Writes `pg_flake_set_mark`'s new `mark` of `format` to the WAL, which
/// replay applies exactly (crash recovery, standbys), and waits as
/// [`log_mark`] does. The caller has put the new marks file in place
/// first: a failure before this record leaves the standbys above it, never
/// below the primary.
pub fn log_set(format: &str, mark: u64, node: Option<u32>) {
    if !REGISTERED.load(Ordering::Relaxed) {
        return;
    }
    log(XLOG_PG_FLAKE_SET, &record(format, mark, node));
}

/// Whether marks reach the WAL (and so a standby): pg_flake preloaded on
/// PostgreSQL 15+, where the resource manager is registered.
pub fn registered() -> bool {
    REGISTERED.load(Ordering::Relaxed)
}

use flake_core::lineage::{mark_record as record, parse_mark_record as parse};

fn log(info: u8, data: &[u8]) {
    // SAFETY: the standard sequence for a record without buffers; the data
    // lives until XLogInsert has copied it.
    let lsn = unsafe {
        if !pg_sys::XLogInsertAllowed() {
            return;
        }
        pg_sys::XLogBeginInsert();
        // The pointer is `char *` before 18 and the length `int` on 15:
        // both casts take whatever the version's signature says.
        pg_sys::XLogRegisterData(data.as_ptr() as _, data.len() as _);
        let lsn = pg_sys::XLogInsert(RESOURCE_MANAGER_ID, info);
        pg_sys::XLogFlush(lsn);
        lsn
    };
    wait_for_synchronous_standbys(lsn);
}

/// Waits until the synchronous standbys have confirmed `lsn` flushed.
///
/// Not `SyncRepWaitForLSN`: it returns at once when the session's
/// `synchronous_commit` is `local` or `off`, and a cancel or terminate ends
/// its wait with a mere WARNING (a commit cannot be undone), so the caller
/// could not tell a confirmed mark from an interrupted wait. This loop polls
/// the position the walsenders publish for the synchronous standbys
/// (`WalSndCtl->lsn[SYNC_REP_WAIT_FLUSH]`, which they move whether or not
/// anyone waits) and sleeps on the latch (1 ms, doubling to 10 ms) between
/// looks, so a cancel, `statement_timeout` or terminate ends it at once
/// through `CHECK_FOR_INTERRUPTS` (57014, or FATAL for terminate). Marks
/// wait here, and so do lease grants and renewals before they answer
/// (src/leases.rs, `pg_flake_lease_promise`).
pub fn wait_for_synchronous_standbys(lsn: pg_sys::XLogRecPtr) {
    let mut sleep_ms: std::ffi::c_long = 1;
    loop {
        // SAFETY: the backend's own latch.
        unsafe { pg_sys::ResetLatch(pg_sys::MyLatch) };
        if confirmed(lsn) {
            return;
        }
        pgrx::check_for_interrupts!();
        // SAFETY: a timed wait on the backend's own latch, which cancel,
        // statement_timeout and terminate set; it shows in pg_stat_activity
        // as SyncRep, like a commit's wait.
        unsafe {
            pg_sys::WaitLatch(
                pg_sys::MyLatch,
                (pg_sys::WL_LATCH_SET | pg_sys::WL_TIMEOUT | pg_sys::WL_EXIT_ON_PM_DEATH) as i32,
                sleep_ms,
                pg_sys::WaitEventIPC::WAIT_EVENT_SYNC_REP,
            );
        }
        sleep_ms = (sleep_ms * 2).min(10);
    }
}

/// Whether `lsn` needs no more waiting: the synchronous standbys confirmed
/// it flushed, or there are none (as `SyncRepWaitForLSN` decides, less its
/// test of `synchronous_commit`).
fn confirmed(lsn: pg_sys::XLogRecPtr) -> bool {
    // SAFETY: WalSndCtl is shared memory set up with the server; its fields
    // read here are a byte and an aligned 8-byte position, which a read sees
    // whole. Reading them without SyncRepLock may see an older position, which
    // only means one more look.
    unsafe {
        let ctl = pg_sys::WalSndCtl;
        if ctl.is_null() || pg_sys::max_wal_senders == 0 {
            return true;
        }
        let status = std::ptr::read_volatile(&raw const (*ctl).sync_standbys_status) as u32;
        std::sync::atomic::fence(Ordering::Acquire);
        let flushed =
            std::ptr::read_volatile(&raw const (*ctl).lsn[pg_sys::SYNC_REP_WAIT_FLUSH as usize]);
        if lsn <= flushed {
            return true;
        }
        if status & pg_sys::SYNC_STANDBY_INIT != 0 {
            status & pg_sys::SYNC_STANDBY_DEFINED == 0
        } else {
            // The checkpointer has not published the setting yet: this
            // backend's own value of synchronous_standby_names decides.
            let names = pg_sys::SyncRepStandbyNames;
            names.is_null() || *names == 0
        }
    }
}

/// The main data of the record being replayed or described.
///
/// # Safety
/// `record` must be a decoded record of pg_flake's resource manager.
unsafe fn main_data<'a>(record: *mut pg_sys::XLogReaderState) -> &'a [u8] {
    unsafe {
        let decoded = (*record).record;
        std::slice::from_raw_parts(
            (*decoded).main_data.cast::<u8>(),
            (*decoded).main_data_len as usize,
        )
    }
}

/// The kind of the record being replayed or described.
///
/// # Safety
/// `record` must be a decoded record of pg_flake's resource manager.
unsafe fn kind(record: *mut pg_sys::XLogReaderState) -> Replayed {
    // SAFETY: as in `main_data`.
    let info = unsafe { (*(*record).record).header.xl_info } & !(pg_sys::XLR_INFO_MASK as u8);
    if info == XLOG_PG_FLAKE_SET {
        Replayed::Set
    } else {
        Replayed::Mark
    }
}

/// Redo: the mark goes to what `register` was given (the generator of the
/// record's format learns it, or is set to it, in shared memory and in this
/// server's marks file).
#[pgrx::pg_guard]
unsafe extern "C-unwind" fn redo(record: *mut pg_sys::XLogReaderState) {
    // SAFETY: PostgreSQL replays one of our records.
    let Some((format, mark, node)) = parse(unsafe { main_data(record) }) else {
        crate::plumbing::backend::errors::internal("pg_flake: malformed mark record in the WAL");
    };
    if let Some(learn) = LEARN.get() {
        learn(format, mark, node, unsafe { kind(record) });
    }
    // Written by a primary that preloads pg_flake (docs/operations.md
    // "Standbys and failover").
    super::primary::record_replayed();
}

#[pgrx::pg_guard]
unsafe extern "C-unwind" fn describe(
    buf: pg_sys::StringInfo,
    record: *mut pg_sys::XLogReaderState,
) {
    // SAFETY: as in redo; the description is appended to PostgreSQL's buffer.
    unsafe {
        let set = if kind(record) == Replayed::Set {
            " (set)"
        } else {
            ""
        };
        let text = match parse(main_data(record)) {
            Some((format, mark, node)) => {
                let format = String::from_utf8_lossy(format);
                match node {
                    Some(node) => format!("format {format} mark {mark}{set} node {node}"),
                    None => format!("format {format} mark {mark}{set}"),
                }
            }
            None => "malformed".to_string(),
        };
        let text = std::ffi::CString::new(text).unwrap_or_default();
        pg_sys::appendStringInfoString(buf, text.as_ptr());
    }
}

unsafe extern "C-unwind" fn identify(info: u8) -> *const std::ffi::c_char {
    let info = info & !(pg_sys::XLR_INFO_MASK as u8);
    if info == XLOG_PG_FLAKE_MARK {
        c"MARK".as_ptr()
    } else if info == XLOG_PG_FLAKE_SET {
        c"SET".as_ptr()
    } else {
        std::ptr::null()
    }
}

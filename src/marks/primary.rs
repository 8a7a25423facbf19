//! Whether a standby's primary preloads pg_flake (docs/operations.md
//! "Standbys and failover", issue 36 item 8). Only a preloaded primary
//! writes mark records, and only they carry its nodes to the standby: the
//! lineage a base backup copies from a primary that does not preload
//! pg_flake is never brought up to date, so a later change of the
//! primary's node would never reach the standby. A standby therefore
//! generates only while it knows that the primary's current run preloads
//! pg_flake: it has replayed a record of pg_flake's resource manager since
//! the primary's run began.
//!
//! Every run of a primary begins after a record of its own in the WAL: a
//! clean shutdown ends the previous run with a shutdown checkpoint, a
//! crash's recovery ends with an end-of-recovery checkpoint (also a
//! shutdown checkpoint record), and a promotion writes an end-of-recovery
//! record (a new timeline). Redo of those clears the knowledge, redo of any
//! pg_flake record sets it. PostgreSQL offers no hook on another resource
//! manager's records, so the XLOG resource manager's redo is wrapped
//! ([`watch_checkpoints`]): the original first, then one comparison.
//!
//! The knowledge is a file, `pg_flake/pgsql_tmp_primary_preloaded`, so that
//! it outlives a restart of the standby (which replays from its last
//! restartpoint: the file then says what it said at a later point of the
//! same WAL, which replay walks through again). `pg_basebackup` leaves
//! `pgsql_tmp*` files out: a new standby (or a clone of a standby) learns
//! it from a record written after its base backup began, as the primary
//! generates (a mark record about every half second per format, or the
//! announcement before its first ID of a format in a run).

use pgrx::pg_sys;
use std::cell::Cell;
use std::io;
use std::sync::OnceLock;

/// The file whose presence says the primary's current run preloads pg_flake.
const KNOWN: &str = "pg_flake/pgsql_tmp_primary_preloaded";

thread_local! {
    /// What this startup process last wrote (None: not yet), so that redo
    /// touches the file only when the knowledge changes.
    static WRITTEN: Cell<Option<bool>> = const { Cell::new(None) };
}

/// Whether this server, in recovery, knows its primary's current run
/// preloads pg_flake. Read for every ID a standby generates (one `stat`).
pub fn preloaded() -> bool {
    std::fs::metadata(KNOWN).is_ok()
}

/// Redo of a pg_flake record: its primary preloads pg_flake. A failure to
/// record it only leaves the standby refusing, so it is logged, not raised
/// (which would stop the standby), and tried again at the next record.
pub fn record_replayed() {
    if WRITTEN.get() == Some(true) {
        return;
    }
    match set(true) {
        Ok(()) => WRITTEN.set(Some(true)),
        Err(e) => pgrx::warning!("pg_flake: could not create \"{KNOWN}\": {e}"),
    }
}

/// Redo of a record that ends a primary's run: whether the next run
/// preloads pg_flake is not known. The file must go: a failure raises (the
/// startup process stops, as it does when a marks file cannot be written).
fn run_ends() {
    if WRITTEN.get() == Some(false) {
        return;
    }
    if let Err(e) = set(false) {
        crate::plumbing::backend::errors::internal(format!(
            "pg_flake: could not remove \"{KNOWN}\": {e}; remove it by hand"
        ));
    }
    WRITTEN.set(Some(false));
}

/// Creates or removes [`KNOWN`], durably (the directory `fsync`'d: a
/// removal lost to a crash would bring back knowledge the WAL before the
/// standby's restartpoint had taken away).
fn set(known: bool) -> io::Result<()> {
    let done = if known {
        std::fs::create_dir_all("pg_flake")
            .and_then(|()| std::fs::File::create(KNOWN))
            .map(drop)
    } else {
        match std::fs::remove_file(KNOWN) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            done => done,
        }
    };
    done?;
    // SAFETY: a plain global of the server's configuration.
    if unsafe { pg_sys::enableFsync } {
        std::fs::File::open("pg_flake")?.sync_all()?;
    }
    Ok(())
}

type Redo = unsafe extern "C-unwind" fn(*mut pg_sys::XLogReaderState);

/// The XLOG resource manager's own redo.
static XLOG_REDO: OnceLock<Redo> = OnceLock::new();

/// Wraps the XLOG resource manager's redo (from `_PG_init`, while
/// preloading, before any redo: the startup process inherits the table).
pub fn watch_checkpoints() {
    // SAFETY: RmgrTable is PostgreSQL's writable table of resource
    // managers (RegisterCustomRmgr writes it too), read by GetRmgr at every
    // record; the postmaster writes it here before forking any process.
    unsafe {
        let xlog = (&raw mut pg_sys::RmgrTable)
            .cast::<pg_sys::RmgrData>()
            .add(pg_sys::RmgrIds::RM_XLOG_ID as usize);
        if let Some(original) = (*xlog).rm_redo {
            if XLOG_REDO.set(original).is_ok() {
                (*xlog).rm_redo = Some(xlog_redo);
            }
        }
    }
}

/// The XLOG resource manager's redo, then [`run_ends`] after a record that
/// ends a primary's run. Holds nothing to drop while the original runs (an
/// ERROR there is FATAL in the startup process).
unsafe extern "C-unwind" fn xlog_redo(record: *mut pg_sys::XLogReaderState) {
    if let Some(original) = XLOG_REDO.get() {
        // SAFETY: the record PostgreSQL replays, to the redo it was meant for.
        unsafe { original(record) };
    }
    // SAFETY: a decoded record being replayed.
    let info = unsafe { (*(*record).record).header.xl_info } & !(pg_sys::XLR_INFO_MASK as u8);
    if info == pg_sys::XLOG_CHECKPOINT_SHUTDOWN as u8 || info == pg_sys::XLOG_END_OF_RECOVERY as u8
    {
        observed_run_end();
    }
}

#[pgrx::pg_guard]
extern "C-unwind" fn observed_run_end() {
    run_ends();
}

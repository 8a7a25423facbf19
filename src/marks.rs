//! Durable marks (README "Guarantees"): for each coordination-based format,
//! the highest time unit its generators may have used, kept in the data
//! directory so that a restarted server, whatever its clock says, never uses
//! such a unit again.
//!
//! One file per format, `pg_flake/<format>.marks` under the data directory
//! (a backend's working directory), all numbers little-endian:
//!
//! | offset | field |
//! |---|---|
//! | 0 | magic `PGFLAKE1` |
//! | 8 | the run: the postmaster's pid |
//! | 16 | the run: the postmaster's start time |
//! | 24 | the global mark: no unit above it has been used, in any run |
//! | 32 | the run floor: the global mark when this run began |
//! | 40 | per-backend mode: the run's clock reference (see `RUN_CLOCK`) |
//! | 48 | the lineage: how many nodes follow (u32, at most 3) |
//! | 52 | the lineage nodes (u32 each), least recently seen first ([`Marks::nodes`]) |
//! | 64 + 16·slot | per-backend mode: a unit, then the pid of the backend holding the slot (0: it left cleanly); the unit, while it holds the slot, is the highest it may use (its mark), once it left cleanly the last it used |
//!
//! Every access holds `flock` on the file (a generating backend waits for
//! it cancellably, [`Marks::lock_interruptible`]); a global mark is made durable
//! (`fsync`, unless `fsync = off`) before any unit above the previous one is
//! used. Nothing here raises an ERROR while the lock is held: errors come
//! back as `io::Error`, and the lock goes with the file.
//!
//! Per-backend mode (README "Guarantees"): a backend's generator starts
//! above the run floor (so a restarted server continues above everything
//! its previous run issued) and above what its slot's previous holder used:
//! the exact unit it left at a clean exit, or the mark it held if it did not
//! leave cleanly (it crashed, and may have used any unit up to that mark).
//! Not the global mark: after a crash every slot was left uncleanly, and
//! each new holder raises the global mark a lease above where it starts, so
//! holders starting above the global mark would each start a lease further
//! ahead of the clock.
//! Shared mode: the server-wide generator starts above the global mark.

use flake_core::clock::ClockReference;
use pgrx::pg_sys;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;

const DIRECTORY: &str = "pg_flake";
const MAGIC: &[u8; 8] = b"PGFLAKE1";
const RUN_PID: u64 = 8;
const RUN_START: u64 = 16;
const GLOBAL_MARK: u64 = 24;
const RUN_FLOOR: u64 = 32;
/// Per-backend mode: the run's reference for clock steps (README "Restarts,
/// crashes and the clock"), the offset of the real-time clock from the
/// monotonic one in nanoseconds; 0 (also in files of earlier versions) for
/// none yet. An offset of exactly 0 would mean a boot at 1970-01-01.
const RUN_CLOCK: u64 = 40;
const LINEAGE_COUNT: u64 = 48;
const LINEAGE_NODES: u64 = 52;
/// Lineage nodes the header holds: beyond, the least recently seen goes (a
/// node the WAL line no longer generates with cannot meet its new IDs,
/// README "Standbys and failover").
const LINEAGE_MAX: usize = 3;
const SLOTS: u64 = 64;
const SLOT_SIZE: u64 = 16;

/// The marks of one format, locked for as long as it lives.
pub struct Marks {
    file: File,
}

/// Where a backend's generator starts, and the mark it may use up to.
#[derive(Debug, Clone, Copy)]
pub struct Claim {
    pub floor: u64,
    pub mark: u64,
}

impl Marks {
    /// Opens (creating it if needed) and locks the marks of `format`,
    /// waiting for the lock as long as another process holds it. For
    /// processes that must not be interrupted here: the postmaster, the
    /// startup process's redo, exit callbacks.
    pub fn lock(format: &str) -> io::Result<Marks> {
        let file = open(format)?;
        // SAFETY: flock on a descriptor we own; it is released when the
        // file is closed.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Marks::locked(file)
    }

    /// As [`lock`](Self::lock), for a backend generating IDs: while another
    /// process holds the lock (for its file I/O and `fsync`), it sleeps 1 ms
    /// at a time on its latch and honours cancel, `statement_timeout` and
    /// terminate (README "Standbys and failover"): nothing holds it waiting
    /// uncancellably. Only before the lock is taken: an interrupt raises
    /// with nothing locked.
    pub fn lock_interruptible(format: &str) -> io::Result<Marks> {
        let file = open(format)?;
        loop {
            // SAFETY: as in `lock`.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
                return Marks::locked(file);
            }
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::WouldBlock {
                return Err(error);
            }
            pgrx::check_for_interrupts!();
            // SAFETY: a timed wait on the backend's own latch.
            unsafe {
                pg_sys::WaitLatch(
                    pg_sys::MyLatch,
                    (pg_sys::WL_LATCH_SET | pg_sys::WL_TIMEOUT | pg_sys::WL_EXIT_ON_PM_DEATH)
                        as i32,
                    1,
                    pg_sys::PG_WAIT_EXTENSION,
                );
                pg_sys::ResetLatch(pg_sys::MyLatch);
            }
        }
    }

    /// The marks in `file`, locked: with its magic written if it is new.
    fn locked(file: File) -> io::Result<Marks> {
        let marks = Marks { file };
        if marks.read_bytes::<8>(0)? != *MAGIC {
            marks.file.write_all_at(MAGIC, 0)?;
            marks.sync()?;
        }
        Ok(marks)
    }

    fn read_bytes<const N: usize>(&self, at: u64) -> io::Result<[u8; N]> {
        let mut bytes = [0u8; N];
        let mut read = 0;
        while read < N {
            match self.file.read_at(&mut bytes[read..], at + read as u64)? {
                0 => break, // past the end: zeros
                n => read += n,
            }
        }
        Ok(bytes)
    }

    fn read(&self, at: u64) -> io::Result<u64> {
        self.read_bytes::<8>(at).map(u64::from_le_bytes)
    }

    fn write(&self, at: u64, value: u64) -> io::Result<()> {
        self.file.write_all_at(&value.to_le_bytes(), at)
    }

    /// `fsync` of the file, unless the server runs with `fsync = off`.
    fn sync(&self) -> io::Result<()> {
        // SAFETY: a plain global of the server's configuration.
        if unsafe { pg_sys::enableFsync } {
            self.file.sync_data()?;
        }
        Ok(())
    }

    /// The global mark.
    pub fn global(&self) -> io::Result<u64> {
        self.read(GLOBAL_MARK)
    }

    /// Records that units up to `mark` may be used, durably. Returns the
    /// global mark, which another process may have moved further already.
    pub fn extend(&self, mark: u64) -> io::Result<u64> {
        let global = self.global()?;
        if mark <= global {
            return Ok(global);
        }
        self.write(GLOBAL_MARK, mark)?;
        self.sync()?;
        Ok(mark)
    }

    /// Shared mode, at a clean shutdown: every unit above `last` is unused,
    /// so the next start need not begin above the lease.
    pub fn shrink_to(&self, last: u64) -> io::Result<()> {
        if last < self.global()? {
            self.write(GLOBAL_MARK, last)?;
            self.sync()?;
        }
        Ok(())
    }

    /// The lineage nodes (README "Standbys and failover"): the nodes this
    /// data directory's WAL line has generated the format with, announced by
    /// its primaries, replayed from the WAL or copied with a base backup,
    /// and the nodes a standby generated with itself; least recently seen
    /// first.
    pub fn nodes(&self) -> io::Result<Vec<u32>> {
        let count =
            (u32::from_le_bytes(self.read_bytes::<4>(LINEAGE_COUNT)?) as usize).min(LINEAGE_MAX);
        let bytes = self.read_bytes::<{ 4 * LINEAGE_MAX }>(LINEAGE_NODES)?;
        Ok(bytes
            .chunks_exact(4)
            .take(count)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }

    /// Adds `node` to the lineage nodes as the most recent, durably; when
    /// they are full the least recent goes (a node seen again, in every
    /// mark record its primary writes, moves to the end, so the one it
    /// generates with stays). Returns whether it was not there yet.
    pub fn add_node(&self, node: u32) -> io::Result<bool> {
        let mut nodes = self.nodes()?;
        let (changed, new) = flake_core::lineage::add(&mut nodes, node, LINEAGE_MAX);
        if !changed {
            return Ok(false);
        }
        let mut bytes = [0u8; 4 + 4 * LINEAGE_MAX];
        bytes[..4].copy_from_slice(&(nodes.len() as u32).to_le_bytes());
        for (i, n) in nodes.iter().enumerate() {
            bytes[4 + 4 * i..8 + 4 * i].copy_from_slice(&n.to_le_bytes());
        }
        self.file.write_all_at(&bytes, LINEAGE_COUNT)?;
        self.sync()?;
        Ok(new)
    }

    /// Per-backend mode: a backend takes `slot`. The first backend of a new
    /// run (a restarted server) records the run and its floor.
    pub fn claim(&self, slot: u32) -> io::Result<Claim> {
        let global = self.global()?;
        let (pid, start) = run();
        if self.read(RUN_PID)? != pid || self.read(RUN_START)? != start {
            self.write(RUN_FLOOR, global)?;
            // The monotonic clock of an earlier run may be another boot's.
            self.write(RUN_CLOCK, 0)?;
            self.write(RUN_PID, pid)?;
            self.write(RUN_START, start)?;
            self.sync()?;
        }
        let run_floor = self.read(RUN_FLOOR)?;
        let at = slot_at(slot);
        // The last unit of a holder that left cleanly, or the mark of one
        // that did not: above whatever it used.
        let previous = self.read(at)?;
        // The new holder may use units up to the global mark at once.
        self.write(at, global)?;
        self.write(at + 8, backend_pid() as u64)?;
        Ok(Claim {
            floor: run_floor.max(previous),
            mark: global,
        })
    }

    /// Per-backend mode: the run's reference for clock steps, shared by
    /// every backend (recorded in this run: [`claim`](Self::claim) resets it
    /// when a new run begins).
    pub fn clock_reference(&self) -> io::Result<ClockReference> {
        let offset = self.read(RUN_CLOCK)? as i64;
        Ok(ClockReference::from_offset((offset != 0).then_some(offset)))
    }

    /// Per-backend mode: records the run's reference for clock steps. No
    /// `fsync`: it matters within a run only.
    pub fn set_clock_reference(&self, reference: ClockReference) -> io::Result<()> {
        self.write(RUN_CLOCK, reference.offset().unwrap_or(0) as u64)
    }

    /// Per-backend mode: the holder of `slot` may use units up to `mark`
    /// (recorded with [`extend`](Self::extend) first). No `fsync`: the slots
    /// matter within a run, and a restarted server starts above the global
    /// mark, which is durable.
    pub fn hold(&self, slot: u32, mark: u64) -> io::Result<()> {
        self.write(slot_at(slot), mark)
    }

    /// Per-backend mode: a backend leaves `slot` cleanly, having used units
    /// up to `last`. No `fsync`: if the write is lost, the slot still shows
    /// the holder's mark, which its successor starts above instead.
    pub fn release(&self, slot: u32, last: u64) -> io::Result<()> {
        let at = slot_at(slot);
        self.write(at, last)?;
        self.write(at + 8, 0)
    }
}

/// Where `slot`'s holder and unit are: the unit, then the pid.
fn slot_at(slot: u32) -> u64 {
    SLOTS + slot as u64 * SLOT_SIZE
}

/// Opens the marks file of `format`, creating it if needed.
fn open(format: &str) -> io::Result<File> {
    let path = format!("{DIRECTORY}/{format}.marks");
    match OpenOptions::new().read(true).write(true).open(&path) {
        Ok(file) => Ok(file),
        Err(e) if e.kind() == io::ErrorKind::NotFound => create(&path),
        Err(e) => Err(e),
    }
}

/// Creates the marks file (and its directory), durably.
fn create(path: &str) -> io::Result<File> {
    match std::fs::create_dir(DIRECTORY) {
        Ok(()) => sync_directory(".")?,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)?;
    sync_directory(DIRECTORY)?;
    Ok(file)
}

fn sync_directory(path: &str) -> io::Result<()> {
    // SAFETY: as in Marks::sync.
    if unsafe { pg_sys::enableFsync } {
        File::open(path)?.sync_all()?;
    }
    Ok(())
}

/// This run of the server: the postmaster's pid and start time.
fn run() -> (u64, u64) {
    // SAFETY: plain globals set by the postmaster and inherited by its
    // children.
    unsafe { (pg_sys::PostmasterPid as u64, pg_sys::PgStartTime as u64) }
}

fn backend_pid() -> u32 {
    // SAFETY: a plain global of the backend.
    unsafe { pg_sys::MyProcPid as u32 }
}

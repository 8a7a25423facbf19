//! Durable marks (docs/guarantees.md "Guarantees"): for each coordination-based format,
//! the highest time unit its generators may have used, kept in the data
//! directory so that a restarted server, whatever its clock says, never uses
//! such a unit again.
//!
//! One file per format, `pg_flake/<format>.marks` under the data directory
//! (a backend's working directory): two checksummed copies of its header
//! (`flake_core::marks_file`: the global mark, the run, the lineage nodes),
//! then, from byte 512, the per-backend slots: per slot a unit, then the
//! pid of the backend holding it (0: it left cleanly); the unit, while it
//! holds the slot, is the highest it may use (its mark), once it left
//! cleanly the last it used. `pg_flake/formats` lists the formats whose
//! marks files exist, so that a missing one is noticed (`list.rs`).
//!
//! A file is never trusted blindly (docs/guarantees.md "Restarts, crashes and the
//! clock"): a damaged, truncated, empty or foreign file, or a missing file
//! of a format `pg_flake/formats` lists, yields no mark but an error
//! ([`MarksError`]) that the generator raises (XX001) until an operator
//! sets the mark deliberately (`pg_flake_set_mark`), or until replay of the
//! WAL recovers it ([`Marks::recover`]). Every header write goes to the copy
//! that does not hold the current header and is `fsync`'d (unless
//! `fsync = off`); a failed `fsync` is a PANIC, as PostgreSQL treats its own
//! files: the unsynced value is never used.
//!
//! Every access holds `flock` on the file (a generating backend waits for
//! it cancellably, [`Marks::lock_interruptible`]); a global mark is made
//! durable before any unit above the previous one is used. Nothing here raises an ERROR while the lock is held: errors come
//! back as `io::Error`, and the lock goes with the file.
//!
//! Per-backend mode (docs/guarantees.md "Guarantees"): a backend's generator starts
//! above the run floor (so a restarted server continues above everything
//! its previous run issued) and above what its slot's previous holder used:
//! the exact unit it left at a clean exit, or the mark it held if it did not
//! leave cleanly (it crashed, and may have used any unit up to that mark).
//! Not the global mark: after a crash every slot was left uncleanly, and
//! each new holder raises the global mark a lease above where it starts, so
//! holders starting above the global mark would each start a lease further
//! ahead of the clock.
//! Shared mode: the server-wide generator starts above the global mark.

use flake_core::marks_file::{self, Decoded, Header, COPY_SIZE, SLOTS_OFFSET};
use pgrx::pg_sys;
use std::cell::{Cell, RefCell};
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

// `pg_flake/formats`, the list of the formats whose marks files exist.
mod disk;
mod failure;
mod file;
mod list;
pub mod primary;
pub mod wal;

pub use disk::run;
use disk::{exclusive, fsync_failed, read_at_most};
pub use failure::{beside_earlier_library, failed, failure, MarksError};
use file::{create_file, open, path_of, still_current, SLOT_SIZE};

/// The marks of one format, locked for as long as it lives.
pub struct Marks {
    file: File,
    format: String,
    header: RefCell<Header>,
    /// The copy (0 or 1) that holds `header`.
    copy: Cell<usize>,
}

impl Marks {
    /// Opens (creating it if the format never had one) and locks the marks
    /// of `format`, waiting for the lock as long as another process holds
    /// it. For processes that must not be interrupted here: the postmaster,
    /// the startup process's redo, exit callbacks.
    pub fn lock(format: &str) -> io::Result<Marks> {
        loop {
            let file = open(format)?;
            exclusive(&file, false)?;
            if still_current(&file, format)? {
                return Marks::locked(file, format);
            }
        }
    }

    /// As [`lock`](Self::lock), for a backend generating IDs: while another
    /// process holds the lock (for its file I/O and `fsync`), it sleeps 1 ms
    /// at a time on its latch and honours cancel, `statement_timeout` and
    /// terminate (docs/operations.md "Standbys and failover"): nothing holds it waiting
    /// uncancellably. Only before the lock is taken: an interrupt raises
    /// with nothing locked.
    pub fn lock_interruptible(format: &str) -> io::Result<Marks> {
        loop {
            let file = open(format)?;
            exclusive(&file, true)?;
            if still_current(&file, format)? {
                return Marks::locked(file, format);
            }
        }
    }

    /// The marks in the locked `file`, read and checked: a header of 0.2.0
    /// is written again in this version's layout.
    fn locked(file: File, format: &str) -> io::Result<Marks> {
        let mut bytes = vec![0u8; 2 * COPY_SIZE];
        let len = read_at_most(&file, &mut bytes, 0)?;
        bytes.truncate(len);
        match marks_file::decode(format, &bytes) {
            Decoded::Valid { header, copy } => Ok(Marks::new(file, format, header, copy)),
            Decoded::Version1(header) => {
                // 0.2.0 writes its run at 8 and 16 only per backend (15 and
                // 16 without preloading): a run of this server is a 0.2.0
                // library generating now, whose slots these are.
                let run_of_file = (field_at(&bytes, 8), field_at(&bytes, 16));
                if run_of_file == run() {
                    return Err(MarksError::EarlierLibraryRun.into_io());
                }
                let marks = Marks::new(file, format, header, 1);
                // 0.2.0's slots overlap the copies, and its run is over.
                marks.file.set_len(SLOTS_OFFSET)?;
                marks
                    .file
                    .write_all_at(&[0u8; COPY_SIZE], COPY_SIZE as u64)?;
                marks.store()?;
                Ok(marks)
            }
            Decoded::Damaged(damage) => Err(MarksError::Damaged {
                path: path_of(format),
                damage,
            }
            .into_io()),
        }
    }

    fn new(file: File, format: &str, header: Header, copy: usize) -> Marks {
        Marks {
            file,
            format: format.to_string(),
            header: RefCell::new(header),
            copy: Cell::new(copy),
        }
    }

    /// Replay of the WAL (crash recovery, a standby): the marks of `format`,
    /// made again from `mark` where the file is missing or damaged — a
    /// replayed mark record is the format's latest mark, since marks only
    /// grow in the WAL (docs/guarantees.md "Restarts, crashes and the clock").
    pub fn recover(format: &str, mark: u64) -> io::Result<Marks> {
        match Marks::lock(format) {
            Err(e) if MarksError::of(&e).is_some() => {
                pgrx::log!(
                    "pg_flake: {e}; it is made again from the mark {mark} replayed from the WAL"
                );
                Marks::replace(format, mark, Vec::new())?;
                Marks::lock(format)
            }
            done => done,
        }
    }

    /// Writes a new marks file for `format` whose global mark and run floor
    /// are `mark`, with `nodes` as its lineage, in place of whatever is
    /// there: for an operator's deliberate `pg_flake_set_mark` and for
    /// recovery from the WAL.
    pub fn replace(format: &str, mark: u64, nodes: Vec<u32>) -> io::Result<()> {
        let header = Header {
            sequence: 1,
            global_mark: mark,
            run_floor: mark,
            nodes,
            ..Header::default()
        };
        create_file(format, &header)?;
        list::add(format)
    }

    fn read(&self, at: u64) -> io::Result<u64> {
        let mut bytes = [0u8; 8];
        // Past the end: zeros (a slot not used in this run).
        read_at_most(&self.file, &mut bytes, at)?;
        Ok(u64::from_le_bytes(bytes))
    }

    /// Writes the header to the copy that does not hold the current one,
    /// durably: a write torn by a crash leaves the current one whole.
    fn store(&self) -> io::Result<()> {
        let copy = marks_file::next_copy(self.copy.get());
        let encoded = {
            let mut header = self.header.borrow_mut();
            header.sequence += 1;
            marks_file::encode(&self.format, &header)
        };
        self.file
            .write_all_at(&encoded, (copy * COPY_SIZE) as u64)?;
        self.sync();
        self.copy.set(copy);
        Ok(())
    }

    /// `fsync` of the file, unless the server runs with `fsync = off`; a
    /// failure is a PANIC ([`fsync_failed`]).
    fn sync(&self) {
        // SAFETY: a plain global of the server's configuration.
        if unsafe { pg_sys::enableFsync } {
            if let Err(e) = self.file.sync_data() {
                fsync_failed(&path_of(&self.format), e);
            }
        }
    }

    /// The global mark.
    pub fn global(&self) -> io::Result<u64> {
        Ok(self.header.borrow().global_mark)
    }

    /// Records that units up to `mark` may be used, durably. Returns the
    /// global mark, which another process may have moved further already.
    pub fn extend(&self, mark: u64) -> io::Result<u64> {
        let global = self.global()?;
        if mark <= global {
            return Ok(global);
        }
        self.header.borrow_mut().global_mark = mark;
        self.store()?;
        Ok(mark)
    }

    /// Shared mode, at a clean shutdown, the generator's exact last unit
    /// `last`: every unit above it is unused, so the next start need not
    /// begin above the lease. Only a mark the generator knows is lowered:
    /// `known` is the highest mark it read or recorded, and a global mark
    /// above it holds units it never heard of (docs/guarantees.md "Restarts,
    /// crashes and the clock"), which stay. A global mark below `last` (the
    /// file put back from a copy while the server ran) is raised to it.
    pub fn settle(&self, last: u64, known: u64) -> io::Result<()> {
        let global = self.global()?;
        if global < last || (last < global && global <= known) {
            self.header.borrow_mut().global_mark = last;
            self.store()?;
        }
        Ok(())
    }

    /// The lineage nodes (docs/operations.md "Standbys and failover"): the nodes this
    /// data directory's WAL line has generated the format with, announced by
    /// its primaries, replayed from the WAL or copied with a base backup,
    /// and the nodes a standby generated with itself; least recently seen
    /// first.
    pub fn nodes(&self) -> io::Result<Vec<u32>> {
        Ok(self.header.borrow().nodes.clone())
    }

    /// Adds `node` to the lineage nodes as the most recent, durably; when
    /// they are full the least recent not in `keep` goes (a node seen again,
    /// in every mark record its primary writes, moves to the end, so the one
    /// it generates with stays; `keep`: a standby's own nodes).
    pub fn add_node(&self, node: u32, keep: &[u32]) -> io::Result<flake_core::lineage::Added> {
        let added = {
            let mut header = self.header.borrow_mut();
            flake_core::lineage::add(&mut header.nodes, node, marks_file::LINEAGE_MAX, keep)
        };
        if added.changed {
            self.store()?;
        }
        Ok(added)
    }

    /// Replaces the lineage nodes, durably (a standby's, worked out by
    /// [`flake_core::lineage`]).
    pub fn set_nodes(&self, nodes: Vec<u32>) -> io::Result<()> {
        if self.header.borrow().nodes == nodes {
            return Ok(());
        }
        self.header.borrow_mut().nodes = nodes;
        self.store()
    }

    /// Whether `node` is the most recent lineage node and reached the WAL
    /// in `run` (a primary's announcement, docs/operations.md "Standbys and failover").
    pub fn announced(&self, node: u32, run: (u64, u64)) -> bool {
        let header = self.header.borrow();
        header.nodes.last() == Some(&node) && header.announced_run == run
    }

    /// Records that `node`, the most recent lineage node, reached the WAL
    /// in `run`.
    pub fn set_announced(&self, node: u32, run: (u64, u64)) -> io::Result<()> {
        if self.header.borrow().nodes.last() != Some(&node) {
            return Ok(());
        }
        self.header.borrow_mut().announced_run = run;
        self.store()
    }

    /// [`extend`](Self::extend) for the server-wide generator, which also
    /// keeps the run's floor at `mark` (docs/operations.md "Versions"): a
    /// per-backend generator of an earlier library (0.3.0 and before, on
    /// PostgreSQL 15 and 16 without preloading) that starts in this server
    /// run starts above the run's floor, so above every unit the server-wide
    /// generator may use. `None`, and nothing recorded, once such a generator
    /// has taken a slot in this run: the server-wide generator stops below
    /// it until the server restarts. A new run drops the previous run's
    /// slots, as those generators did.
    pub fn extend_shared(&self, mark: u64) -> io::Result<Option<u64>> {
        let global = self.global()?;
        let (pid, start) = run();
        let same_run = {
            let header = self.header.borrow();
            header.run_pid == pid && header.run_start == start
        };
        if same_run && self.slots_taken()? {
            return Ok(None);
        }
        let recorded = mark.max(global);
        let changed = recorded > global || !same_run || self.header.borrow().run_floor < recorded;
        if !changed {
            return Ok(Some(recorded));
        }
        {
            let mut header = self.header.borrow_mut();
            if !same_run {
                header.run_pid = pid;
                header.run_start = start;
                header.run_clock = 0;
            }
            header.global_mark = recorded;
            header.run_floor = header.run_floor.max(recorded);
        }
        if !same_run {
            self.file.set_len(SLOTS_OFFSET)?;
        }
        self.store()?;
        Ok(Some(recorded))
    }

    /// Whether a per-backend generator of an earlier library took a slot of
    /// this file in this server run: [`extend_shared`](Self::extend_shared)
    /// then records nothing, and `pg_flake_set_mark` replaces nothing
    /// (docs/operations.md "Versions").
    pub fn earlier_library_generated(&self) -> io::Result<bool> {
        let (pid, start) = run();
        let same_run = {
            let header = self.header.borrow();
            header.run_pid == pid && header.run_start == start
        };
        Ok(same_run && self.slots_taken()?)
    }

    /// Whether a per-backend generator took a slot in this run (each wrote
    /// its pid or its mark there).
    fn slots_taken(&self) -> io::Result<bool> {
        let len = self.file.metadata()?.len();
        let mut at = SLOTS_OFFSET;
        while at + SLOT_SIZE <= len {
            if self.read(at)? != 0 || self.read(at + 8)? != 0 {
                return Ok(true);
            }
            at += SLOT_SIZE;
        }
        Ok(false)
    }
}

/// The 8-byte field at `at` of `bytes`, 0 where they end before it (as
/// 0.2.0 read its own files).
fn field_at(bytes: &[u8], at: usize) -> u64 {
    bytes
        .get(at..at + 8)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

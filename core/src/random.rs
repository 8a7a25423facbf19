//! Random sources for the random-based formats.
//!
//! `OsRandom` is a ChaCha12 CSPRNG seeded from the operating system. It
//! remembers the process id it was seeded in and reseeds when that changes, so
//! processes forked from one parent (PostgreSQL backends) never share a stream.

use rand_chacha::ChaCha12Rng;
use rand_core::{OsRng, RngCore, SeedableRng};
use std::collections::VecDeque;

pub trait RandomSource {
    fn fill_bytes(&mut self, buf: &mut [u8]);
}

pub struct OsRandom {
    rng: ChaCha12Rng,
    seeded_in: u32,
    process_id: fn() -> u32,
}

impl OsRandom {
    pub fn new() -> Self {
        Self::with_process_id(std::process::id)
    }

    /// A generator that learns the current process id from `process_id`,
    /// asked on every draw: a host that keeps its process id in memory
    /// (PostgreSQL's `MyProcPid`) spares a `getpid` system call per value.
    pub fn with_process_id(process_id: fn() -> u32) -> Self {
        OsRandom {
            rng: Self::fresh(),
            seeded_in: process_id(),
            process_id,
        }
    }

    fn fresh() -> ChaCha12Rng {
        // from_rng(OsRng) only fails when the OS has no entropy source at all.
        ChaCha12Rng::from_rng(OsRng).unwrap_or_else(|e| panic!("no OS random source: {e}"))
    }
}

impl Default for OsRandom {
    fn default() -> Self {
        Self::new()
    }
}

impl RandomSource for OsRandom {
    fn fill_bytes(&mut self, buf: &mut [u8]) {
        let pid = (self.process_id)();
        if pid != self.seeded_in {
            self.rng = Self::fresh();
            self.seeded_in = pid;
        }
        self.rng.fill_bytes(buf);
    }
}

/// Scripted draws for tests: each `fill_bytes` takes the next queued byte
/// string (which must have the requested length).
#[derive(Debug, Default, Clone)]
pub struct ScriptedRandom {
    pub draws: VecDeque<Vec<u8>>,
}

impl ScriptedRandom {
    pub fn new(draws: impl IntoIterator<Item = Vec<u8>>) -> Self {
        ScriptedRandom {
            draws: draws.into_iter().collect(),
        }
    }
}

impl RandomSource for ScriptedRandom {
    fn fill_bytes(&mut self, buf: &mut [u8]) {
        let draw = self
            .draws
            .pop_front()
            .expect("scripted random source exhausted");
        assert_eq!(draw.len(), buf.len(), "scripted draw has the wrong length");
        buf.copy_from_slice(&draw);
    }
}

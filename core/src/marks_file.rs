//! The header of a marks file (docs/guarantees.md "Restarts, crashes and the clock"):
//! what a server keeps durably per coordination-based format, encoded in
//! fixed-size, checksummed copies. Pure encoding and decoding; the server
//! (`src/marks/`, its file-system operations in `src/marks/disk.rs`) does
//! the file I/O.
//!
//! The file holds two copies of the header, at offsets 0 and
//! [`COPY_SIZE`]. Each write goes to the copy the current one is not in,
//! with a higher sequence number, and is `fsync`'d before anything relies
//! on it; a reader takes the valid copy with the highest sequence. A write
//! torn by a crash therefore damages at most the copy being written, and
//! the other still holds the state before it — which is all that was
//! acknowledged. Two copies rather than a temporary file and a rename: a
//! rename needs the directory `fsync`'d each time, and the file also
//! carries the per-backend slots after the copies, which a rename would
//! have to copy along.
//!
//! A copy, all numbers little-endian:
//!
//! | offset | field |
//! |---|---|
//! | 0 | magic `PGFLAKE2` |
//! | 8 | layout version (2) |
//! | 12 | CRC-32 of the copy, computed with this field zero |
//! | 16 | sequence number of the write |
//! | 24 | the format's name, NUL-padded (16 bytes) |
//! | 40 | the global mark: no unit above it has been used, in any run |
//! | 48 | the run: the postmaster's pid |
//! | 56 | the run: the postmaster's start time |
//! | 64 | the run floor: the global mark when this run began |
//! | 72 | per-backend mode: the run's clock reference (0: none) |
//! | 80 | how many lineage nodes follow |
//! | 84 | the lineage nodes (u32 each, at most [`LINEAGE_MAX`]), least recently seen first |
//! | 148 | the run (pid, start time) in which the last lineage node was written to the WAL |
//! | 164 | zeros up to [`COPY_SIZE`] |
//!
//! Version 1 (0.2.0) had one unchecked header: magic `PGFLAKE1`, run pid at
//! 8, run start at 16, global mark at 24, run floor at 32, and the
//! per-backend slots from 64. [`decode`] reads it once, so that a data
//! directory of 0.2.0 goes on above its marks; the server then writes
//! version 2.

/// Bytes of one copy of the header.
pub const COPY_SIZE: usize = 256;
/// Where the per-backend slots begin: after both copies.
pub const SLOTS_OFFSET: u64 = 2 * COPY_SIZE as u64;
/// Lineage nodes a header holds.
pub const LINEAGE_MAX: usize = 16;

const MAGIC: &[u8; 8] = b"PGFLAKE2";
const MAGIC_V1: &[u8; 8] = b"PGFLAKE1";
const VERSION: u32 = 2;
const NAME_LEN: usize = 16;

/// The durable state of one format's marks.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Header {
    /// Sequence number of the write that made it.
    pub sequence: u64,
    pub global_mark: u64,
    pub run_pid: u64,
    pub run_start: u64,
    pub run_floor: u64,
    /// The offset of the real-time clock from the monotonic one (ns) of
    /// this run's clock reference; 0 for none.
    pub run_clock: i64,
    /// Least recently seen first.
    pub nodes: Vec<u32>,
    /// The run (postmaster pid, start time) in which the last of `nodes`
    /// reached the WAL: a primary announces its node once per run, not
    /// once per session (docs/operations.md "Standbys and failover").
    pub announced_run: (u64, u64),
}

/// What is wrong with a file's header: never a mark to use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Damage {
    /// No byte at all: created, but no header was ever written.
    Empty,
    /// Shorter than a header, not all zeros.
    Truncated { len: usize },
    /// Neither copy has the magic of any version, or a valid checksum.
    Corrupt,
    /// A valid header of another format's marks.
    Foreign { name: String },
    /// A layout version this library does not know (a later one's).
    UnknownVersion { version: u32 },
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Damage::Empty => write!(f, "it is empty"),
            Damage::Truncated { len } => write!(f, "it is truncated ({len} bytes)"),
            Damage::Corrupt => write!(f, "neither copy of its header has a valid checksum"),
            Damage::Foreign { name } => write!(f, "it holds the marks of {name}"),
            Damage::UnknownVersion { version } => {
                write!(
                    f,
                    "its layout version {version} is unknown to this pg_flake"
                )
            }
        }
    }
}

/// What a file's first bytes hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    /// A valid header; `copy` is where it is (0 or 1).
    Valid {
        header: Header,
        copy: usize,
    },
    /// A version-1 header (0.2.0's), to be written again as version 2.
    Version1(Header),
    Damaged(Damage),
}

/// Reads the header of the marks of `name` from the file's first bytes
/// (`2 * COPY_SIZE`, or fewer if the file is shorter).
pub fn decode(name: &str, bytes: &[u8]) -> Decoded {
    if bytes.is_empty() {
        return Decoded::Damaged(Damage::Empty);
    }
    if bytes.starts_with(MAGIC_V1) {
        return decode_version1(bytes);
    }
    let copies: Vec<Result<Header, Damage>> = (0..2)
        .map(|i| {
            bytes
                .get(i * COPY_SIZE..(i + 1) * COPY_SIZE)
                .map_or(Err(Damage::Corrupt), |copy| decode_copy(name, copy))
        })
        .collect();
    let best = copies
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.as_ref().ok().map(|h| (i, h)))
        .max_by_key(|(_, h)| h.sequence);
    if let Some((copy, header)) = best {
        return Decoded::Valid {
            header: header.clone(),
            copy,
        };
    }
    if bytes.len() < COPY_SIZE && bytes.iter().any(|&b| b != 0) {
        return Decoded::Damaged(Damage::Truncated { len: bytes.len() });
    }
    // The most telling reason: a foreign or newer file over a checksum.
    let damage = copies
        .into_iter()
        .filter_map(Result::err)
        .find(|d| !matches!(d, Damage::Corrupt))
        .unwrap_or(Damage::Corrupt);
    Decoded::Damaged(damage)
}

fn decode_copy(name: &str, copy: &[u8]) -> Result<Header, Damage> {
    if &copy[..8] != MAGIC {
        return Err(Damage::Corrupt);
    }
    let stored = u32_at(copy, 12);
    let mut zeroed = copy.to_vec();
    zeroed[12..16].fill(0);
    if crc32fast::hash(&zeroed) != stored {
        return Err(Damage::Corrupt);
    }
    let version = u32_at(copy, 8);
    if version != VERSION {
        return Err(Damage::UnknownVersion { version });
    }
    let stored_name = &copy[24..24 + NAME_LEN];
    let end = stored_name.iter().position(|&b| b == 0).unwrap_or(NAME_LEN);
    let stored_name = String::from_utf8_lossy(&stored_name[..end]).into_owned();
    if stored_name != name {
        return Err(Damage::Foreign { name: stored_name });
    }
    let count = u32_at(copy, 80) as usize;
    if count > LINEAGE_MAX {
        return Err(Damage::Corrupt);
    }
    Ok(Header {
        sequence: u64_at(copy, 16),
        global_mark: u64_at(copy, 40),
        run_pid: u64_at(copy, 48),
        run_start: u64_at(copy, 56),
        run_floor: u64_at(copy, 64),
        run_clock: u64_at(copy, 72) as i64,
        nodes: (0..count).map(|i| u32_at(copy, 84 + 4 * i)).collect(),
        announced_run: (u64_at(copy, 148), u64_at(copy, 156)),
    })
}

/// 0.2.0's header: its global mark and run floor carry over; its run is
/// over (the library changed, so the server restarted), and so are its
/// slots.
///
/// 0.2.0 wrote only whole 8-byte fields, and read a field past the end of
/// the file as zero: its shared mode never writes the run nor the floor, so
/// a clean shutdown leaves 32 bytes (magic, run, global mark); a file whose
/// header was made but whose first mark never reached it is 8. A length no
/// write of 0.2.0 can leave is damage (docs/operations.md "Versions").
fn decode_version1(bytes: &[u8]) -> Decoded {
    if !version1_length(bytes.len()) {
        return Decoded::Damaged(Damage::Truncated { len: bytes.len() });
    }
    Decoded::Version1(Header {
        global_mark: u64_at_or_zero(bytes, 24),
        run_floor: u64_at_or_zero(bytes, 32),
        ..Header::default()
    })
}

/// The lengths 0.2.0's writes leave (`bytes` holds at most the first
/// `2 * COPY_SIZE` bytes): the magic alone (8), up to the global mark (32),
/// up to the run floor (40), or into the per-backend slots, which begin at
/// 64 and whose two fields (unit, pid) end at 72 + 16 s and 80 + 16 s.
fn version1_length(len: usize) -> bool {
    len.is_multiple_of(8) && (matches!(len, 8 | 32 | 40) || len >= 72)
}

/// The field at `at`, zero where the file ends before it (0.2.0's reading).
fn u64_at_or_zero(bytes: &[u8], at: usize) -> u64 {
    bytes.get(at..at + 8).map_or(0, |field| u64_at(field, 0))
}

/// One copy of `header` for the marks of `name` (at most 15 bytes).
pub fn encode(name: &str, header: &Header) -> [u8; COPY_SIZE] {
    let mut copy = [0u8; COPY_SIZE];
    copy[..8].copy_from_slice(MAGIC);
    copy[8..12].copy_from_slice(&VERSION.to_le_bytes());
    copy[16..24].copy_from_slice(&header.sequence.to_le_bytes());
    let name = &name.as_bytes()[..name.len().min(NAME_LEN - 1)];
    copy[24..24 + name.len()].copy_from_slice(name);
    copy[40..48].copy_from_slice(&header.global_mark.to_le_bytes());
    copy[48..56].copy_from_slice(&header.run_pid.to_le_bytes());
    copy[56..64].copy_from_slice(&header.run_start.to_le_bytes());
    copy[64..72].copy_from_slice(&header.run_floor.to_le_bytes());
    copy[72..80].copy_from_slice(&header.run_clock.to_le_bytes());
    let nodes = &header.nodes[..header.nodes.len().min(LINEAGE_MAX)];
    copy[80..84].copy_from_slice(&(nodes.len() as u32).to_le_bytes());
    for (i, node) in nodes.iter().enumerate() {
        copy[84 + 4 * i..88 + 4 * i].copy_from_slice(&node.to_le_bytes());
    }
    copy[148..156].copy_from_slice(&header.announced_run.0.to_le_bytes());
    copy[156..164].copy_from_slice(&header.announced_run.1.to_le_bytes());
    let crc = crc32fast::hash(&copy);
    copy[12..16].copy_from_slice(&crc.to_le_bytes());
    copy
}

/// Where the next write of a header read from `copy` goes: the other copy.
pub fn next_copy(copy: usize) -> usize {
    1 - copy.min(1)
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or([0; 4]))
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(sequence: u64, mark: u64) -> Header {
        Header {
            sequence,
            global_mark: mark,
            run_pid: 42,
            run_start: 1_700_000_000,
            run_floor: mark / 2,
            run_clock: -5,
            nodes: vec![3, 7],
            announced_run: (42, 1_700_000_000),
        }
    }

    fn file(copies: [Option<&Header>; 2], name: &str) -> Vec<u8> {
        let mut bytes = vec![0u8; 2 * COPY_SIZE];
        for (i, h) in copies.iter().enumerate() {
            if let Some(h) = h {
                bytes[i * COPY_SIZE..(i + 1) * COPY_SIZE].copy_from_slice(&encode(name, h));
            }
        }
        bytes
    }

    #[test]
    fn a_header_reads_back() {
        let h = header(1, 1000);
        let bytes = file([Some(&h), None], "sno");
        assert_eq!(decode("sno", &bytes), Decoded::Valid { header: h, copy: 0 });
    }

    #[test]
    fn the_newer_valid_copy_wins() {
        let (old, new) = (header(7, 1000), header(8, 2000));
        let bytes = file([Some(&old), Some(&new)], "siq");
        assert_eq!(
            decode("siq", &bytes),
            Decoded::Valid {
                header: new.clone(),
                copy: 1
            }
        );
        assert_eq!(next_copy(1), 0);
        // The newer copy torn by a crash: the older one holds.
        let mut torn = bytes.clone();
        torn[COPY_SIZE + 44] ^= 0xff;
        assert_eq!(
            decode("siq", &torn),
            Decoded::Valid {
                header: old,
                copy: 0
            }
        );
    }

    #[test]
    fn damage_is_never_a_mark() {
        let h = header(1, 1000);
        let bytes = file([Some(&h), None], "sno");
        assert_eq!(decode("sno", &[]), Decoded::Damaged(Damage::Empty));
        assert_eq!(
            decode("sno", &bytes[..100]),
            Decoded::Damaged(Damage::Truncated { len: 100 })
        );
        let mut flipped = bytes.clone();
        flipped[41] ^= 1;
        assert_eq!(decode("sno", &flipped), Decoded::Damaged(Damage::Corrupt));
        let random: Vec<u8> = (0..600u32).map(|i| (i * 7919 % 251) as u8).collect();
        assert_eq!(decode("sno", &random), Decoded::Damaged(Damage::Corrupt));
        assert_eq!(
            decode("kuid96", &bytes),
            Decoded::Damaged(Damage::Foreign { name: "sno".into() })
        );
        // All zeros (a file whose header was never written): no copy.
        assert_eq!(
            decode("sno", &[0u8; 2 * COPY_SIZE]),
            Decoded::Damaged(Damage::Corrupt)
        );
    }

    #[test]
    fn a_later_version_is_refused() {
        let mut copy = encode("sno", &header(1, 5));
        copy[8..12].copy_from_slice(&3u32.to_le_bytes());
        copy[12..16].fill(0);
        let crc = crc32fast::hash(&copy);
        copy[12..16].copy_from_slice(&crc.to_le_bytes());
        assert_eq!(
            decode("sno", &copy),
            Decoded::Damaged(Damage::UnknownVersion { version: 3 })
        );
    }

    fn version1_file(len: usize, mark: u64, floor: u64) -> Vec<u8> {
        let mut v1 = vec![0u8; len.max(40)];
        v1[..8].copy_from_slice(MAGIC_V1);
        v1[24..32].copy_from_slice(&mark.to_le_bytes());
        v1[32..40].copy_from_slice(&floor.to_le_bytes());
        v1.truncate(len);
        v1
    }

    #[test]
    fn version_1_carries_its_marks_over() {
        match decode("sno", &version1_file(96, 12345, 12000)) {
            Decoded::Version1(h) => {
                assert_eq!((h.global_mark, h.run_floor), (12345, 12000));
                assert_eq!(h.run_pid, 0);
            }
            other => panic!("{other:?}"),
        }
    }

    /// 0.2.0's shared mode at a clean shutdown: magic, run, global mark and
    /// nothing after (issue 41: these 32 bytes were called truncated).
    #[test]
    fn version_1_of_shared_mode_keeps_its_mark() {
        match decode("sno", &version1_file(32, 133_364_662_910, 0)) {
            Decoded::Version1(h) => assert_eq!((h.global_mark, h.run_floor), (133_364_662_910, 0)),
            other => panic!("{other:?}"),
        }
        match decode("sno", &version1_file(8, 0, 0)) {
            Decoded::Version1(h) => assert_eq!(h.global_mark, 0),
            other => panic!("{other:?}"),
        }
        for len in [40, 72, 80, 88, 512] {
            assert!(
                matches!(
                    decode("sno", &version1_file(len, 7, 5)),
                    Decoded::Version1(_)
                ),
                "{len}"
            );
        }
    }

    /// Lengths no write of 0.2.0 leaves are damage, never a mark.
    #[test]
    fn version_1_of_an_impossible_length_is_refused() {
        for len in [9, 12, 16, 20, 24, 31, 33, 39, 48, 56, 64, 70, 73] {
            assert_eq!(
                decode("sno", &version1_file(len, 7, 5)),
                Decoded::Damaged(Damage::Truncated { len }),
                "{len}"
            );
        }
    }
}

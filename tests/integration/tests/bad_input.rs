//! Random and near-miss input through every native type's three ways in:
//! text input, `bytea::T` and binary COPY (the receive function). The core
//! crate is the oracle: the server must accept exactly what it accepts, as
//! the same value (canonical text and bytes), and reject the rest with the
//! same SQLSTATE, all without a crash or restart.
//!
//! `PG_FLAKE_FUZZ_SEED` replays a run (the seed is printed).

use flake_core::distributed_id::DistributedId;
use flake_core::flaxid::FlaxId;
use flake_core::kuid::Kuid96;
use flake_core::siq::Siq;
use flake_core::sno::Sno;
use flake_core::FlakeId;
use pg_flake_integration::*;
use postgres::Client;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::io::Write;
use std::time::Instant;

/// Inputs per type and way in.
const INPUTS: usize = 20_000;
/// Rows per binary COPY statement (see `copy_verdicts`).
const COPY_BATCH: usize = 128;
/// The SQLSTATEs a rejection may have: malformed text, a binary value of
/// the wrong length, and (distributed_id only: twelve bytes hold more than
/// its 10^28 − 1) a value out of range.
const REJECTIONS: [&str; 3] = ["22P02", "22P03", "22003"];

/// What an input becomes: the value's canonical text and bytes, or the
/// SQLSTATE it is rejected with.
type Verdict = Result<(String, Vec<u8>), String>;

fn verdict<T: FlakeId>(parsed: flake_core::Result<T>) -> Verdict {
    parsed
        .map(|id| (id.to_string(), id.bytes().to_vec()))
        .map_err(|e| e.kind().sqlstate().to_string())
}

fn parse<T: FlakeId>(text: &str) -> Verdict {
    verdict(text.parse::<T>())
}

fn exact<T: FlakeId>(bytes: &[u8]) -> Verdict {
    verdict(T::from_slice(bytes))
}

/// The extension's binary input for distributed_id: twelve bytes, in range.
fn checked_distributed_id(bytes: &[u8]) -> Verdict {
    verdict(
        DistributedId::from_slice(bytes)
            .and_then(|id| DistributedId::from_bytes_checked(id.to_bytes())),
    )
}

/// A native type and the core's decision for each way in.
struct Native {
    name: &'static str,
    len: usize,
    text: fn(&str) -> Verdict,
    bytea: fn(&[u8]) -> Verdict,
    wire: fn(&[u8]) -> Verdict,
}

fn native<T: FlakeId>(bytea: fn(&[u8]) -> Verdict, wire: fn(&[u8]) -> Verdict) -> Native {
    Native {
        name: T::TYPE_NAME,
        len: T::LEN,
        text: parse::<T>,
        bytea,
        wire,
    }
}

fn natives() -> [Native; 5] {
    [
        native::<Sno>(exact::<Sno>, exact::<Sno>),
        // `bytea::siq` also takes the reference's 16-byte ORM form.
        native::<Siq>(|b| verdict(Siq::from_slice_lenient(b)), exact::<Siq>),
        native::<FlaxId>(exact::<FlaxId>, exact::<FlaxId>),
        native::<Kuid96>(exact::<Kuid96>, exact::<Kuid96>),
        native::<DistributedId>(checked_distributed_id, checked_distributed_id),
    ]
}

/// SplitMix64: reproducible from the printed seed, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// Characters that look like, fold to or hide next to ASCII: full-width
/// digits and letters, case-folding oddities (the Kelvin sign and long s
/// become ASCII under Unicode case mapping), invisible and replacement
/// characters, and multi-byte ones of every UTF-8 length.
const ODD_CHARS: [char; 18] = [
    'é', 'ß', 'Ω', '€', '０', '１', 'ａ', 'Ｚ', '\u{212A}', 'ſ', 'İ', '\u{200B}', '\u{FEFF}',
    '\u{FFFD}', '\u{85}', '\u{A0}', '𝄞', '😀',
];
/// White space around a value, C's and others.
const SPACES: [&str; 8] = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\u{A0}", "  \t"];
/// Prefixes: SIQ's DID prefix in its spellings, and signs and radix marks.
const PREFIXES: [&str; 8] = [
    "did:siq:", "DID:SIQ:", "did:siq", "did:sno:", "0x", "+", "-", "\\x",
];

/// A random character: mostly from the type's alphabet, else printable
/// ASCII, a control character, an odd one or any code point (never NUL,
/// which no text value can hold).
fn random_char(rng: &mut Rng, alphabet: &[char]) -> char {
    match rng.below(10) {
        0..=3 => rng.pick(alphabet),
        4 | 5 => (0x20 + rng.below(0x5F) as u8) as char,
        6 | 7 => match rng.below(33) {
            32 => '\x7f',
            c => (c as u8 + 1) as char,
        },
        8 => rng.pick(&ODD_CHARS),
        _ => loop {
            if let Some(c) = char::from_u32(rng.below(0x11_0000) as u32).filter(|&c| c != '\0') {
                break c;
            }
        },
    }
}

/// A string near `valid` (a canonical text): itself, one edit away, another
/// length, case, white space or prefix; or random, of the alphabet only, or
/// digits (the decimal form's edges: leading zeros, 28 and 29 digits).
fn random_text(rng: &mut Rng, valid: &str, alphabet: &[char]) -> String {
    let mut chars: Vec<char> = valid.chars().collect();
    // A position inside the text, and one where a character can be inserted.
    let i = rng.below(chars.len());
    let at = rng.below(chars.len() + 1);
    match rng.below(12) {
        0 => {}
        1 | 2 => chars[i] = random_char(rng, alphabet),
        3 => chars.insert(at, random_char(rng, alphabet)),
        4 => {
            chars.remove(i);
        }
        5 => {
            let len = (chars.len() + rng.below(7)).saturating_sub(3);
            chars.resize_with(len, || rng.pick(alphabet));
        }
        6 => {
            chars = if rng.below(2) == 0 {
                valid.to_uppercase().chars().collect()
            } else {
                let flipped: Vec<char> = if chars[i].is_uppercase() {
                    chars[i].to_lowercase().collect()
                } else {
                    chars[i].to_uppercase().collect()
                };
                chars.splice(i..=i, flipped);
                chars
            };
        }
        7 => {
            let space = rng.pick(&SPACES);
            return match rng.below(3) {
                0 => format!("{space}{valid}"),
                1 => format!("{valid}{space}"),
                _ => format!("{space}{valid}{space}"),
            };
        }
        8 => return format!("{}{valid}", rng.pick(&PREFIXES)),
        9 => {
            return (0..rng.below(41))
                .map(|_| random_char(rng, alphabet))
                .collect()
        }
        10 => {
            let len = (chars.len() + rng.below(5)).saturating_sub(2);
            return (0..len).map(|_| rng.pick(alphabet)).collect();
        }
        _ => {
            let zeros = "0".repeat(rng.below(4));
            let digits: String = (0..rng.below(33))
                .map(|_| (b'0' + rng.below(10) as u8) as char)
                .collect();
            return zeros + &digits;
        }
    }
    chars.into_iter().collect()
}

/// Bytes near a valid value of `len` bytes: any length 0–40, the exact
/// length, one or two bytes off, SIQ's 16-byte form (two zero bytes first),
/// or the first byte varied around distributed_id's limit (0x20…).
fn random_bytes(rng: &mut Rng, valid: &[u8]) -> Vec<u8> {
    let len = valid.len();
    match rng.below(10) {
        0..=3 => {
            let len = rng.below(41);
            rng.bytes(len)
        }
        4 | 5 => rng.bytes(len),
        6 => valid.to_vec(),
        7 => {
            let len = (len + rng.pick(&[0, 1, 3, 4])).saturating_sub(2);
            rng.bytes(len)
        }
        8 => [&[0, 0], valid].concat(),
        _ => match rng.below(8) {
            0 => vec![0xFF; len],
            1 => vec![0; len],
            _ => {
                let mut bytes = valid.to_vec();
                bytes[0] = rng.below(0x41) as u8;
                bytes
            }
        },
    }
}

/// The bytes of a random value the type accepts.
fn valid_bytes(rng: &mut Rng, native: &Native) -> Vec<u8> {
    let mut bytes = rng.bytes(native.len);
    // Halving the first byte ends below any type's limit (distributed_id's
    // 10^28 − 1 is the only one).
    while (native.wire)(&bytes).is_err() {
        bytes[0] >>= 1;
    }
    bytes
}

fn canonical(native: &Native, bytes: &[u8]) -> String {
    (native.wire)(bytes).expect("a valid value").0
}

/// The server's verdict on each input cast from `input` to `sql_type`: a
/// temporary `flake_fuzz_{input}_{type}(inputs {input}[])` casts each input
/// in its own subtransaction and returns, in order, the value's text and
/// bytes or the SQLSTATE of the error, so one statement judges every input.
fn cast_verdicts<P>(db: &mut Client, input: &str, sql_type: &str, inputs: &P) -> Vec<Verdict>
where
    P: postgres::types::ToSql + Sync,
{
    let function = format!("flake_fuzz_{input}_{sql_type}");
    db.batch_execute(&format!(
        "CREATE OR REPLACE FUNCTION {function}(inputs {input}[])
             RETURNS TABLE (n int, out_text text, out_bytes bytea, state text)
         LANGUAGE plpgsql AS $fn$
         DECLARE v {sql_type};
         BEGIN
             FOR i IN 1 .. coalesce(array_length(inputs, 1), 0) LOOP
                 n := i;
                 BEGIN
                     v := inputs[i]::{sql_type};
                     out_text := v::text; out_bytes := v::bytea; state := NULL;
                 EXCEPTION WHEN OTHERS THEN
                     out_text := NULL; out_bytes := NULL; state := SQLSTATE;
                 END;
                 RETURN NEXT;
             END LOOP;
         END $fn$"
    ))
    .expect("create the judging function");
    let verdicts = db
        .query(
            &format!("SELECT out_text, out_bytes, state FROM {function}($1) ORDER BY n"),
            &[inputs],
        )
        .unwrap_or_else(|e| panic!("{function}: {e:?}"))
        .iter()
        .map(|row| match row.get::<_, Option<String>>(2) {
            Some(state) => Err(state),
            None => Ok((row.get(0), row.get(1))),
        })
        .collect();
    db.batch_execute(&format!("DROP FUNCTION {function}({input}[])"))
        .expect("drop the judging function");
    verdicts
}

/// A binary COPY stream of `(n int4, v bytes)` rows.
fn copy_stream<'a>(rows: impl Iterator<Item = (usize, &'a [u8])>) -> Vec<u8> {
    let mut stream = b"PGCOPY\n\xff\r\n\0".to_vec();
    stream.extend(0i32.to_be_bytes()); // flags
    stream.extend(0i32.to_be_bytes()); // header extension length
    for (n, bytes) in rows {
        stream.extend(2i16.to_be_bytes());
        stream.extend(4i32.to_be_bytes());
        stream.extend((n as i32).to_be_bytes());
        stream.extend((bytes.len() as i32).to_be_bytes());
        stream.extend(bytes);
    }
    stream.extend((-1i16).to_be_bytes());
    stream
}

fn copy_rows(
    db: &mut Client,
    table: &str,
    rows: &[usize],
    inputs: &[Vec<u8>],
) -> Result<u64, postgres::Error> {
    let stream = copy_stream(rows.iter().map(|&n| (n, inputs[n].as_slice())));
    let mut writer = db.copy_in(&format!("COPY {table} (n, v) FROM STDIN (FORMAT binary)"))?;
    // One write is buffered whole and sent by `finish`, which reports the
    // server's error.
    writer
        .write_all(&stream)
        .expect("COPY data is buffered until finish");
    writer.finish()
}

/// The COPY row (1-based) an error names in its context, `COPY t, line 3,
/// column v: …`.
fn failed_line(error: &postgres::Error) -> usize {
    error
        .as_db_error()
        .and_then(|e| e.where_())
        .and_then(|context| context.split("line ").nth(1))
        .and_then(|rest| rest.split(',').next())
        .and_then(|line| line.parse().ok())
        .unwrap_or_else(|| panic!("a COPY error names its row: {error:?}"))
}

/// Every input as one row of a binary COPY into a `(n int, v T)` table.
/// Rows go in batches: an error names its row, which is rejected with its
/// SQLSTATE; the rows before it passed the receive function but were rolled
/// back, so they are sent again at the end, where every one must be
/// accepted. Returns the verdicts (accepted values read back from the
/// table) and the number of COPY statements.
fn copy_verdicts(db: &mut Client, sql_type: &str, inputs: &[Vec<u8>]) -> (Vec<Verdict>, usize) {
    let table = format!("flake_fuzz_copy_{sql_type}");
    db.batch_execute(&format!(
        "DROP TABLE IF EXISTS {table}; CREATE TABLE {table} (n int, v {sql_type})"
    ))
    .expect("create the COPY table");
    let mut rejected: Vec<Option<String>> = vec![None; inputs.len()];
    let mut again = Vec::new();
    let mut statements = 0;
    let mut start = 0;
    while start < inputs.len() {
        let batch: Vec<usize> = (start..(start + COPY_BATCH).min(inputs.len())).collect();
        statements += 1;
        match copy_rows(db, &table, &batch, inputs) {
            Ok(rows) => {
                assert_eq!(rows as usize, batch.len(), "rows copied");
                start += batch.len();
            }
            Err(e) => {
                let line = failed_line(&e);
                assert!((1..=batch.len()).contains(&line), "{e:?}");
                let failed = start + line - 1;
                again.extend(start..failed);
                rejected[failed] = Some(
                    e.code()
                        .map_or_else(|| format!("no SQLSTATE: {e:?}"), |c| c.code().to_string()),
                );
                start = failed + 1;
            }
        }
    }
    for rows in again.chunks(COPY_BATCH) {
        statements += 1;
        copy_rows(db, &table, rows, inputs).unwrap_or_else(|e| {
            panic!("rows the receive function accepted once are refused the second time: {e:?}")
        });
    }
    let mut accepted: HashMap<usize, (String, Vec<u8>)> = db
        .query(&format!("SELECT n, v::text, v::bytea FROM {table}"), &[])
        .expect("read the copied rows")
        .iter()
        .map(|row| (row.get::<_, i32>(0) as usize, (row.get(1), row.get(2))))
        .collect();
    let verdicts = rejected
        .into_iter()
        .enumerate()
        .map(|(n, state)| match (state, accepted.remove(&n)) {
            (Some(state), None) => Err(state),
            (None, Some(value)) => Ok(value),
            (state, value) => panic!("row {n}: rejected with {state:?} and stored as {value:?}"),
        })
        .collect();
    assert!(
        accepted.is_empty(),
        "rows stored twice or unknown: {accepted:?}"
    );
    db.batch_execute(&format!("DROP TABLE {table}"))
        .expect("drop the COPY table");
    (verdicts, statements)
}

/// Compares the server's verdicts with the core's for one type and way in,
/// prints the figures and returns the disagreements.
fn compare<I: Debug>(
    what: &str,
    inputs: &[I],
    oracle: impl Fn(&I) -> Verdict,
    server: &[Verdict],
    started: Instant,
) -> Vec<String> {
    assert_eq!(server.len(), inputs.len(), "{what}: one verdict per input");
    let mut accepted = 0;
    let mut rejected = BTreeMap::new();
    let mut disagreements = Vec::new();
    for (input, got) in inputs.iter().zip(server) {
        match got {
            Ok(_) => accepted += 1,
            Err(state) => *rejected.entry(state.clone()).or_insert(0) += 1,
        }
        let expected = oracle(input);
        if *got != expected {
            disagreements.push(format!(
                "{what} {input:?}: server {got:?}, core {expected:?}"
            ));
        }
    }
    println!(
        "bad input, {what}: {} tried, {accepted} accepted, rejected: {} ({:.2} s)",
        inputs.len(),
        by_sqlstate(&rejected),
        started.elapsed().as_secs_f64()
    );
    let unexpected: Vec<&String> = rejected
        .keys()
        .filter(|s| !REJECTIONS.contains(&s.as_str()))
        .collect();
    assert!(
        unexpected.is_empty(),
        "{what}: rejections with {unexpected:?}"
    );
    disagreements
}

#[test]
fn random_input_through_every_native_type() {
    let seed = std::env::var("PG_FLAKE_FUZZ_SEED")
        .map(|s| s.parse().expect("PG_FLAKE_FUZZ_SEED is a u64"))
        .unwrap_or_else(|_| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .expect("the clock is after 1970")
                .as_nanos() as u64
        });
    println!("bad input: seed {seed} (PG_FLAKE_FUZZ_SEED={seed} replays this run)");
    let mut rng = Rng(seed);
    let mut db = connect();
    // Some 100 000 expected errors would fill the server log; a crash is
    // still logged (by the postmaster, and PANIC is above FATAL).
    db.batch_execute("SET log_min_messages = fatal; SET log_min_error_statement = panic")
        .expect("quiet the expected errors");
    let watch = ServerWatch::start(&mut db);
    let started = Instant::now();
    let mut disagreements = Vec::new();
    for native in natives() {
        let samples: Vec<Vec<u8>> = (0..64).map(|_| valid_bytes(&mut rng, &native)).collect();
        let mut alphabet: Vec<char> = samples
            .iter()
            .flat_map(|b| canonical(&native, b).chars().collect::<Vec<_>>())
            .collect();
        alphabet.sort_unstable();
        alphabet.dedup();

        let texts: Vec<String> = (0..INPUTS)
            .map(|_| {
                let valid = canonical(&native, &samples[rng.below(samples.len())]);
                random_text(&mut rng, &valid, &alphabet)
            })
            .collect();
        let clock = Instant::now();
        let server = cast_verdicts(&mut db, "text", native.name, &texts);
        disagreements.extend(compare(
            &format!("{} text input", native.name),
            &texts,
            |t| (native.text)(t),
            &server,
            clock,
        ));

        let arrays: Vec<Vec<u8>> = (0..INPUTS)
            .map(|_| {
                let valid = &samples[rng.below(samples.len())];
                random_bytes(&mut rng, valid)
            })
            .collect();
        let clock = Instant::now();
        let server = cast_verdicts(&mut db, "bytea", native.name, &arrays);
        disagreements.extend(compare(
            &format!("{} bytea::{}", native.name, native.name),
            &arrays,
            |b| (native.bytea)(b),
            &server,
            clock,
        ));

        let clock = Instant::now();
        let (server, statements) = copy_verdicts(&mut db, native.name, &arrays);
        disagreements.extend(compare(
            &format!("{} binary COPY ({statements} statements)", native.name),
            &arrays,
            |b| (native.wire)(b),
            &server,
            clock,
        ));
    }
    let shown = disagreements.len().min(20);
    assert!(
        disagreements.is_empty(),
        "{} inputs where server and core disagree (seed {seed}), the first {shown}:\n{}",
        disagreements.len(),
        disagreements[..shown].join("\n")
    );
    println!(
        "bad input: {} inputs, server and core agree on every one; {} ({:.1} s)",
        natives().len() * INPUTS * 3,
        watch.assert_no_crash(&mut db),
        started.elapsed().as_secs_f64()
    );
}

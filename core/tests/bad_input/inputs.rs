//! The inputs: a fast generator of proptest inputs, the mixes of good,
//! near-miss and hostile texts and bytes fed to every decoder, and the
//! helpers the formats' seeds (makers of accepted texts) share.

use crate::oracle::C_SPACE;
use flake_core::distributed_id128::DistributedId128;
use proptest::prelude::*;
use proptest::strategy::{NewTree, ValueTree};
use proptest::test_runner::TestRunner;
use std::fmt::Debug;
use std::marker::PhantomData;

/// A text form: characters its texts are made of (repeats weight the draw),
/// its canonical length, and a maker of accepted texts (canonical or a
/// lenient variant) from 32 random bytes.
pub struct Form {
    pub alphabet: &'static str,
    pub len: usize,
    pub seed: fn(&[u8; 32]) -> String,
}

const CONTROLS: [char; 41] = [
    '\0', '\x01', '\x02', '\x03', '\x04', '\x05', '\x06', '\x07', '\x08', '\t', '\n', '\x0b',
    '\x0c', '\r', '\x0e', '\x0f', '\x10', '\x11', '\x12', '\x13', '\x14', '\x15', '\x16', '\x17',
    '\x18', '\x19', '\x1a', '\x1b', '\x1c', '\x1d', '\x1e', '\x1f', '\x7f', '\u{80}', '\u{85}',
    '\u{9f}', '\u{a0}', '\u{200b}', '\u{2028}', '\u{feff}', '\u{fffd}',
];

/// Random choices for the generators: SplitMix64, seeded for each case from
/// the runner's RNG. Proptest's own combinators cost tens of microseconds
/// per case in the debug profile; this keeps 100 000 cases per decoder cheap.
pub struct Dice(u64);

impl Dice {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ z >> 30).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ z >> 27).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ z >> 31
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.below(from.len())]
    }

    /// An index into `weights`, drawn in proportion to them.
    pub fn weighted(&mut self, weights: &[usize]) -> usize {
        let mut roll = self.below(weights.iter().sum());
        weights
            .iter()
            .position(|&w| {
                let hit = roll < w;
                roll = roll.saturating_sub(w);
                hit
            })
            .expect("roll below the total")
    }

    pub fn bytes(&mut self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for chunk in out.chunks_exact_mut(8) {
            chunk.copy_from_slice(&self.next().to_le_bytes());
        }
        out
    }

    /// Any char, biased towards ASCII, Latin-1, controls and the edges of
    /// the planes.
    pub fn char(&mut self) -> char {
        let code = match self.below(8) {
            0..=2 => self.below(0x80) as u32,
            3 => 0x80 + self.below(0x80) as u32,
            4 => return self.pick(&CONTROLS),
            5 => self.below(0x1_0000) as u32,
            6 => self.below(0x11_0000) as u32,
            _ => self.pick(&[0xD7FF, 0xE000, 0xFFFF, 0x1_0000, 0x10_FFFF, 0x130, 0x212A]),
        };
        char::from_u32(code).unwrap_or('\u{fffd}')
    }

    pub fn byte(&mut self) -> u8 {
        self.next() as u8
    }

    pub fn len(&mut self, range: std::ops::RangeInclusive<usize>) -> usize {
        range.start() + self.below(range.end() - range.start() + 1)
    }
}

/// Draws one input as a sequence of elements.
type Maker<E> = Box<dyn Fn(&mut Dice) -> Vec<E>>;

/// A strategy drawing a sequence of `E` from `make`, collected into `O`.
pub struct Inputs<E, O> {
    make: Maker<E>,
    out: PhantomData<fn() -> O>,
}

impl<E, O> Inputs<E, O> {
    fn new(make: impl Fn(&mut Dice) -> Vec<E> + 'static) -> Self {
        Inputs {
            make: Box::new(make),
            out: PhantomData,
        }
    }
}

impl<E, O> Debug for Inputs<E, O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Inputs")
    }
}

impl<E: Clone + Debug, O: FromIterator<E> + Debug> Strategy for Inputs<E, O> {
    type Tree = Shrink<E, O>;
    type Value = O;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        let mut dice = Dice(runner.rng().next_u64());
        Ok(Shrink {
            items: (self.make)(&mut dice),
            next: 0,
            removed: None,
            out: PhantomData,
        })
    }
}

/// Shrinks a failing input by deleting one element at a time, keeping each
/// deletion after which the input still fails.
pub struct Shrink<E, O> {
    items: Vec<E>,
    next: usize,
    removed: Option<(usize, E)>,
    out: PhantomData<fn() -> O>,
}

impl<E: Clone + Debug, O: FromIterator<E> + Debug> ValueTree for Shrink<E, O> {
    type Value = O;

    fn current(&self) -> O {
        self.items.iter().cloned().collect()
    }

    fn simplify(&mut self) -> bool {
        if self.next >= self.items.len() {
            return false;
        }
        self.removed = Some((self.next, self.items.remove(self.next)));
        true
    }

    fn complicate(&mut self) -> bool {
        let Some((at, item)) = self.removed.take() else {
            return false;
        };
        self.items.insert(at, item);
        self.next = at + 1;
        true
    }
}

/// Arbitrary Unicode, printable ASCII, control characters among the
/// alphabet, the alphabet at near-miss lengths, accepted texts and their
/// mutations.
pub fn texts(form: &'static Form) -> Inputs<char, String> {
    let alphabet: Vec<char> = form.alphabet.chars().collect();
    let near = form.len.saturating_sub(2)..=form.len + 2;
    let any_len = 0..=form.len + 8;
    Inputs::new(move |d| match d.weighted(&[2, 2, 1, 4, 4, 2]) {
        0 => (0..d.len(any_len.clone())).map(|_| d.char()).collect(),
        1 => (0..d.len(any_len.clone()))
            .map(|_| char::from(0x20 + d.below(0x5f) as u8))
            .collect(),
        2 => (0..d.len(near.clone()))
            .map(|_| match d.below(2) {
                0 => d.pick(&CONTROLS),
                _ => d.pick(&alphabet),
            })
            .collect(),
        3 => (0..d.len(near.clone()))
            .map(|_| d.pick(&alphabet))
            .collect(),
        4 => mutate((form.seed)(&d.bytes()).chars().collect(), &alphabet, d),
        _ => (form.seed)(&d.bytes()).chars().collect(),
    })
}

fn flip_case(c: char) -> char {
    if c.is_ascii_lowercase() {
        c.to_ascii_uppercase()
    } else {
        c.to_ascii_lowercase()
    }
}

/// One character replaced, inserted or deleted, one or every case flipped,
/// or two neighbours swapped; new characters mostly from the alphabet.
fn mutate(mut chars: Vec<char>, alphabet: &[char], d: &mut Dice) -> Vec<char> {
    let c = match d.below(5) {
        0..=2 => d.pick(alphabet),
        3 => d.char(),
        _ => d.pick(&CONTROLS),
    };
    let n = chars.len();
    match d.below(6) {
        1 => chars.insert(d.below(n + 1), c),
        _ if n == 0 => chars.push(c),
        0 => chars[d.below(n)] = c,
        2 => {
            chars.remove(d.below(n));
        }
        3 => {
            let at = d.below(n);
            chars[at] = flip_case(chars[at]);
        }
        4 => chars.iter_mut().for_each(|c| *c = flip_case(*c)),
        _ if n > 1 => chars.swap(d.below(n - 1), d.below(n - 1) + 1),
        _ => chars.push(c),
    }
    chars
}

/// For byte-level text decoders: the texts' bytes, arbitrary bytes, and
/// accepted texts with one byte made non-ASCII (usually invalid UTF-8).
pub fn text_bytes(form: &'static Form) -> Inputs<u8, Vec<u8>> {
    let texts = texts(form);
    Inputs::new(move |d| match d.weighted(&[3, 1, 1]) {
        0 => String::from_iter((texts.make)(d)).into_bytes(),
        1 => (0..d.len(0..=40)).map(|_| d.byte()).collect(),
        _ => {
            let mut bytes = (form.seed)(&d.bytes()).into_bytes();
            if !bytes.is_empty() {
                let at = d.below(bytes.len());
                bytes[at] = 0x80 | d.byte();
            }
            bytes
        }
    })
}

/// Byte arrays of 0–40 bytes, of exactly `len` and of `len` ± 2, or from
/// `special` (weighted like one of those).
pub fn binary(len: usize, special: fn(&mut Dice) -> Vec<u8>) -> Inputs<u8, Vec<u8>> {
    Inputs::new(move |d| {
        let n = match d.below(4) {
            0 => d.len(0..=40),
            1 => len,
            2 => d.len(len - 2..=len + 2),
            _ => return special(d),
        };
        (0..n).map(|_| d.byte()).collect()
    })
}

pub fn random_bytes(len: usize, d: &mut Dice) -> Vec<u8> {
    (0..len).map(|_| d.byte()).collect()
}

pub fn no_special(d: &mut Dice) -> Vec<u8> {
    random_bytes(d.len(0..=40), d)
}

pub fn take<const N: usize>(r: &[u8; 32]) -> [u8; N] {
    r[..N].try_into().expect("at most 32 bytes")
}

/// `text` unchanged, in upper case or in mixed case, as `mode` says.
pub fn recase(text: &str, mode: u8, bits: &[u8]) -> String {
    text.chars()
        .enumerate()
        .map(|(i, c)| match mode % 4 {
            1 => c.to_ascii_uppercase(),
            2 if bits[i % bits.len()] >> (i % 8) & 1 == 1 => flip_case(c),
            _ => c,
        })
        .collect()
}

/// A u128 of random magnitude (so every digit count occurs).
pub fn magnitude(r: &[u8; 32]) -> u128 {
    u128::from_be_bytes(take(r))
        .checked_shr(u32::from(r[16]) % 129)
        .unwrap_or(0)
}

/// Up to two characters of C white space, as `r` says.
pub fn white_space(r: u8) -> String {
    (0..r % 3)
        .map(|i| C_SPACE[(r as usize >> (2 * i)) % 6])
        .collect()
}

/// The canonical uuid text of 16 bytes, by the crate's encoder: for making
/// inputs and showing values, never as a spec.
pub fn uuid_text(bytes: [u8; 16]) -> String {
    DistributedId128::from_bytes(bytes).to_string()
}

pub fn uuid_seed(r: &[u8; 32]) -> String {
    recase(&uuid_text(take(r)), r[31], &r[16..31])
}

/// uuid text: `DistributedId128` and, with other seeds, the public IDs.
pub const UUID: Form = Form {
    alphabet: "0123456789abcdefABCDEF----",
    len: 36,
    seed: uuid_seed,
};

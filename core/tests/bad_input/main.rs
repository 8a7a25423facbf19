//! Bad input for every decoder of flake-core: property tests that feed each
//! one at least 100 000 generated inputs and compare what it did with what the
//! spec says it must do.
//!
//! For every input the decoder's answer is reduced to a verdict: the accepted
//! value re-encoded by the crate's own encoder (canonical text, or the stored
//! bytes as hex), or the SQLSTATE of the error it raised (`"None"` / `"NULL"`
//! for decoders that answer with an `Option`). A spec function written here
//! from the format files, independently of the decoder, gives the verdict the
//! input must get: for strict decoders the canonical form is the input
//! itself, for lenient ones the input after the normalisation its module
//! lists. So every accepted input re-encodes to exactly its canonical form,
//! every rejected one gets the documented error, and nothing is accepted or
//! rejected that should not be. No input may panic.
//!
//! One module per format holds that format's spec functions, the seeds of
//! its accepted texts and one test per decoder (text, bytes, `from_slice`,
//! serde `Deserialize` with feature `serde`, postgres `FromSql` with feature
//! `postgres`), and opens with a table of each decoder's contract: the
//! accepted form, its canonical form, the refusals.
//!
//! | module | decoders |
//! |---|---|
//! | [`sno`] | `Sno` |
//! | [`flaxid`] | `FlaxId` |
//! | [`kuid`] | `Kuid96`, `kuid64_decode`, `node_fingerprint` |
//! | [`siq`] | `Siq` (text, hex, base64, bytes), `siq::Kind`, `siq::domain_hash` |
//! | [`distributed_id`] | `DistributedId` (text, hex, numeric text, bytes, receive) |
//! | [`distributed_id128`] | `DistributedId128` (uuid text, numeric text) |
//! | [`numeric`] | numeric text (`numeric::numeric_integer`), shared by the numeric casts |
//! | [`alphanumeric`] | the `alphanumeric` module's base62 forms |
//! | [`public_id`] | `public_id::decode_base64`, `PublicIdKey` and its decryptions |
//! | [`time`] | `time::parse_rfc3339_nanos` |
//!
//! What they share: [`harness`] runs a decoder and its spec side by side and
//! counts and prints the verdicts; [`oracle`] holds the format-independent
//! spec helpers (alphabets read as bits or digits, hex, uuid text, standard
//! base64), which call none of the crate's decoders; [`inputs`] draws the
//! inputs.
//!
//! `codec::Alphabet::decode` is covered through sno, flaxid, kuid and the SIQ
//! base64 form. Inputs mix arbitrary Unicode, printable ASCII, control
//! characters, the form's own alphabet at its canonical length ±2, accepted
//! texts (canonical and lenient) and their one-character mutations
//! (replaced, inserted, deleted, case flipped, swapped); byte decoders also
//! get byte arrays of 0–40 bytes, exact-length arrays and invalid UTF-8.
//! Each test prints its cases, acceptances and refusals by SQLSTATE.

#[macro_use]
mod harness;
mod inputs;
mod oracle;

mod alphanumeric;
mod distributed_id;
mod distributed_id128;
mod flaxid;
mod kuid;
mod numeric;
mod public_id;
mod siq;
mod sno;
mod time;

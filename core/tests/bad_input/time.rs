//! RFC 3339 instants (`time`): the parser behind every `*_from_time` taking
//! text.
//!
//! | decoder | accepted form → canonical form | rejected |
//! |---|---|---|
//! | `time::parse_rfc3339_nanos` | `YYYY-MM-DDTHH:MM:SS[.f]Z`: year of 4+ digits (no leading zero beyond 4) up to 2^63−1, a real date and time of day, 1–9 fraction digits → fraction right-padded to 9 digits | `None` |

use crate::harness::{check_text, Verdict, NONE};
use crate::inputs::{take, texts, Form};
use flake_core::time::parse_rfc3339_nanos;

// --- the spec ----------------------------------------------------------------

/// The date of a day number since 1970-01-01 (H. Hinnant's algorithm, in
/// i128 so that any instant of an i128 result has one).
fn civil_from_days(days: i128) -> (i128, i128, i128) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i128::from(month <= 2), month, day)
}

/// The canonical RFC 3339 text of an instant: nine fraction digits.
fn rfc3339(nanos: i128) -> String {
    let secs = nanos.div_euclid(1_000_000_000);
    let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
    let sod = secs.rem_euclid(86_400);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:09}Z",
        sod / 3600,
        sod % 3600 / 60,
        sod % 60,
        nanos.rem_euclid(1_000_000_000)
    )
}

fn rfc3339_spec(text: &str) -> Verdict {
    rfc3339_canonical(text).ok_or(NONE)
}

fn rfc3339_canonical(text: &str) -> Option<String> {
    let (date, time) = text.strip_suffix('Z')?.split_once('T')?;
    let (hms, fraction) = time.split_once('.').unwrap_or((time, ""));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let field = |s: &str| (s.len() == 2 && digits(s)).then(|| s.parse().ok())?;
    let [year, month, day] = date.split('-').collect::<Vec<_>>()[..] else {
        return None;
    };
    let [hour, minute, second] = hms.split(':').collect::<Vec<_>>()[..] else {
        return None;
    };
    let year_ok = digits(year) && year.len() >= 4 && (year.len() == 4 || !year.starts_with('0'));
    let fraction_ok = fraction.len() <= 9
        && (fraction.is_empty() || digits(fraction))
        && !(time.contains('.') && fraction.is_empty());
    if !year_ok || !fraction_ok {
        return None;
    }
    // Years are i64, as `time::days_from_civil` takes them; every instant of
    // such a year fits the i128 result.
    let year = i128::from(year.parse::<i64>().ok()?);
    let (month, day): (i128, i128) = (field(month)?, field(day)?);
    let (hour, minute, second): (i128, i128, i128) = (field(hour)?, field(minute)?, field(second)?);
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let month_days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    let in_range = (1..=12).contains(&month)
        && (1..=month_days[month as usize - 1]).contains(&day)
        && hour < 24
        && minute < 60
        && second < 60;
    if !in_range {
        return None;
    }
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{fraction:0<9}Z"
    ))
}

// --- inputs ------------------------------------------------------------------

fn time_seed(r: &[u8; 32]) -> String {
    let year = match r[0] % 4 {
        0 => u64::from(u16::from_be_bytes([r[1], r[2]])) % 10_000,
        1 => 1970 + u64::from(r[1]),
        // Years of up to 20 digits, which the format also allows.
        _ => (u64::from_be_bytes(take::<8>(r)) >> (r[9] % 50)).max(10_000),
    };
    let month = 1 + r[10] % 12;
    let day = 1 + r[11] % 28;
    let fraction: String = r[16..16 + r[15] as usize % 10]
        .iter()
        .map(|b| char::from(b'0' + b % 10))
        .collect();
    let fraction = if fraction.is_empty() {
        fraction
    } else {
        format!(".{fraction}")
    };
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}{fraction}Z",
        r[12] % 24,
        r[13] % 60,
        r[14] % 60
    )
}

const TIME: Form = Form {
    alphabet: "0123456789-T:.Z",
    len: 30,
    seed: time_seed,
};

// --- tests -------------------------------------------------------------------

// Found panicking on huge years and hours and accepting non-canonical dates
// ("4-0-3T9:5:3Z", "2020-02-30T00:00:00Z", "2020-01-01T24:00:00Z", …).
#[test]
fn time_parse_rfc3339_nanos() {
    check_text(
        "time::parse_rfc3339_nanos",
        &[NONE],
        texts(&TIME),
        |s| parse_rfc3339_nanos(s).map(rfc3339).ok_or(NONE),
        rfc3339_spec,
    );
}

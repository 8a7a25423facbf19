//! Civil-time arithmetic for RFC 3339 text (UTC only), used by tests and by
//! anyone reading the vectors. No time zone database, no allocation beyond
//! the output string.

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
/// algorithm), for years whose day count fits an i64 (|year| < 2.5 · 10^16).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    wide_days_from_civil(year.into(), month, day) as i64
}

/// [`days_from_civil`] for every i64 year, in 128 bits.
fn wide_days_from_civil(year: i128, month: u32, day: u32) -> i128 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i128::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i128::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

fn is_leap_year(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap_year(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The value of `text` if it is exactly `width` ASCII digits.
fn fixed_digits(text: &str, width: usize) -> Option<u32> {
    if text.len() != width || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// The date of a day number since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + if month <= 2 { 1 } else { 0 };
    (year, month, day)
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.fraction]Z` into nanoseconds since the Unix
/// epoch: a year of four or more digits (no leading zero beyond four, up to
/// 2^63 − 1), a date that exists, a time of day below 24:00:00, and one to
/// nine fraction digits after a `.`. Anything else is `None`.
pub fn parse_rfc3339_nanos(s: &str) -> Option<i128> {
    let s = s.strip_suffix('Z')?;
    let (date, time) = s.split_once('T')?;
    let (year, month_day) = date.split_once('-')?;
    let (month, day) = month_day.split_once('-')?;
    let year_ok = year.len() >= 4
        && year.bytes().all(|b| b.is_ascii_digit())
        && (year.len() == 4 || !year.starts_with('0'));
    let year: i64 = if year_ok {
        year.parse().ok()?
    } else {
        return None;
    };
    let month = fixed_digits(month, 2).filter(|m| (1..=12).contains(m))?;
    let day = fixed_digits(day, 2).filter(|&d| d >= 1 && d <= days_in_month(year, month))?;
    let (hms, fraction) = match time.split_once('.') {
        Some((_, "")) => return None,
        Some((hms, fraction)) => (hms, fraction),
        None => (time, ""),
    };
    let mut fields = hms.split(':');
    let hour = fixed_digits(fields.next()?, 2).filter(|&h| h < 24)?;
    let minute = fixed_digits(fields.next()?, 2).filter(|&m| m < 60)?;
    let second = fixed_digits(fields.next()?, 2).filter(|&s| s < 60)?;
    if fields.next().is_some()
        || fraction.len() > 9
        || !fraction.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let nanos = fraction
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(9)
        .fold(0i128, |n, digit| n * 10 + i128::from(digit - b'0'));
    let days = wide_days_from_civil(year.into(), month, day);
    let seconds = days * 86_400 + i128::from(hour * 3600 + minute * 60 + second);
    Some(seconds * 1_000_000_000 + nanos)
}

/// Microseconds since the Unix epoch as RFC 3339 with six fraction digits.
pub fn format_rfc3339_micros(unix_micros: i64) -> String {
    let secs = unix_micros.div_euclid(1_000_000);
    let micros = unix_micros.rem_euclid(1_000_000);
    let (y, m, d) = civil_from_days(secs.div_euclid(86400));
    let sod = secs.rem_euclid(86400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{micros:06}Z",
        sod / 3600,
        sod % 3600 / 60,
        sod % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_text() {
        for us in [0i64, 1, -1, 1_262_304_000_000_000, 253_402_300_799_999_999] {
            let text = format_rfc3339_micros(us);
            assert_eq!(
                parse_rfc3339_nanos(&text),
                Some(us as i128 * 1000),
                "{text}"
            );
        }
        assert_eq!(
            parse_rfc3339_nanos("2010-01-01T00:00:00.003999999Z"),
            Some(1_262_304_000_003_999_999)
        );
        assert_eq!(
            format_rfc3339_micros(1_099_511_627_775_999_999),
            "36812-02-20T00:36:15.999999Z"
        );
    }
}

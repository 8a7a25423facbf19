//! Civil-time arithmetic for RFC 3339 text (UTC only), used by tests and by
//! anyone reading the vectors. No time zone database, no allocation beyond
//! the output string.

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = month as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
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

/// Parses `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (years of four or more digits,
/// up to nine fraction digits) into nanoseconds since the Unix epoch.
pub fn parse_rfc3339_nanos(s: &str) -> Option<i128> {
    let s = s.strip_suffix('Z')?;
    let (date, time) = s.split_once('T')?;
    let mut d = date.rsplitn(3, '-');
    let day: u32 = d.next()?.parse().ok()?;
    let month: u32 = d.next()?.parse().ok()?;
    let year: i64 = d.next()?.parse().ok()?;
    let (hms, frac) = match time.split_once('.') {
        Some((hms, frac)) => (hms, frac),
        None => (time, ""),
    };
    let mut t = hms.split(':');
    let h: i64 = t.next()?.parse().ok()?;
    let mi: i64 = t.next()?.parse().ok()?;
    let sec: i64 = t.next()?.parse().ok()?;
    if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut nanos: i128 = 0;
    for i in 0..9 {
        nanos = nanos * 10 + frac.as_bytes().get(i).map_or(0, |b| (b - b'0') as i128);
    }
    let days = days_from_civil(year, month, day) as i128;
    Some(((days * 86400 + (h * 3600 + mi * 60 + sec) as i128) * 1_000_000_000) + nanos)
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

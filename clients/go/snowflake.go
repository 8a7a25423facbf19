package pgflake

import (
	"database/sql/driver"
	"encoding/binary"
	"fmt"
	"strconv"
	"time"
)

// Snowflake is a Snowflake, Discord flavour: a positive bigint
// ms << 22 | worker << 17 | process << 12 | sequence, with ms the
// milliseconds since an epoch (Discord's 2015-01-01 by default). No SQL
// type of its own (docs/sql-reference.md, "Snowflake"): an int64, sent and
// scanned as the bigint, all 63 bits kept.
type Snowflake int64

// DiscordEpochMs is the default epoch, 2015-01-01T00:00:00Z in
// milliseconds since 1970.
const DiscordEpochMs = 1_420_070_400_000

const (
	snowflakeMaxMillis = 1<<41 - 1
	snowflakeTimeRange = "the epoch to 2^41 - 1 ms after it (for the default epoch: until 2084-09-06 15:47:35.551+00)"
	snowflakeMaxEpoch  = 253_402_300_799_999
)

// SnowflakeParts is what snowflake_parts returns; Time is the start of the
// millisecond.
type SnowflakeParts struct {
	Time     time.Time
	Worker   int
	Process  int
	Sequence int
}

func checkEpoch(epochMs int64) error {
	if epochMs < 0 || epochMs > snowflakeMaxEpoch {
		return invalidParameter(fmt.Sprintf("snowflake epoch %d is outside 0 to 253402300799999 (milliseconds since 1970-01-01 00:00:00 UTC, up to 9999-12-31)", epochMs))
	}
	return nil
}

// SnowflakeFromParts is snowflake_from_parts: worker and process 0–31,
// sequence 0–4095; the time rounds down to the millisecond.
func SnowflakeFromParts(t time.Time, worker, process, sequence int, epochMs int64) (Snowflake, error) {
	if err := checkEpoch(epochMs); err != nil {
		return 0, err
	}
	for _, f := range []struct {
		name       string
		value, max int
	}{{"worker", worker, 31}, {"process", process, 31}, {"sequence", sequence, 4095}} {
		if err := field("snowflake", f.name, int64(f.value), 0, int64(f.max)); err != nil {
			return 0, err
		}
	}
	millis := floorDiv(unixMicros(t), 1000) - epochMs
	if millis < 0 || millis > snowflakeMaxMillis {
		return 0, timeOutOfRange("snowflake", snowflakeTimeRange)
	}
	return Snowflake(millis<<22 | int64(worker)<<17 | int64(process)<<12 | int64(sequence)), nil
}

// SnowflakeFromTime is snowflake_from_time: the smallest snowflake at that
// instant.
func SnowflakeFromTime(t time.Time, epochMs int64) (Snowflake, error) {
	return SnowflakeFromParts(t, 0, 0, 0, epochMs)
}

// ParseSnowflake reads the decimal bigint (22P02 for other text, 22003 for
// a negative one).
func ParseSnowflake(text string) (Snowflake, error) {
	v, err := parseInt64(text, "bigint")
	if err != nil {
		return 0, err
	}
	s := Snowflake(v)
	return s, s.check()
}

func (s Snowflake) check() error {
	if s < 0 {
		return valueOutOfRange("snowflake", strconv.FormatInt(int64(s), 10), nonNegativeBigint)
	}
	return nil
}

// Parts is snowflake_parts(value, epoch_ms); a negative value is no
// snowflake (22003).
func (s Snowflake) Parts(epochMs int64) (SnowflakeParts, error) {
	if err := checkEpoch(epochMs); err != nil {
		return SnowflakeParts{}, err
	}
	if err := s.check(); err != nil {
		return SnowflakeParts{}, err
	}
	v := int64(s)
	return SnowflakeParts{time.UnixMilli(v>>22 + epochMs).UTC(), int(v >> 17 & 31), int(v >> 12 & 31), int(v & 4095)}, nil
}

// Time is the start of the millisecond with the Discord epoch; use Parts
// for another epoch.
func (s Snowflake) Time() time.Time {
	p, err := s.Parts(DiscordEpochMs)
	if err != nil {
		return time.Time{}
	}
	return p.Time
}

// String is the decimal bigint.
func (s Snowflake) String() string { return strconv.FormatInt(int64(s), 10) }

// Bytes are the 8 bytes of the bigint, big-endian.
func (s Snowflake) Bytes() []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(s))
	return b[:]
}

// Compare orders as the server's bigint does: -1, 0 or +1.
func (s Snowflake) Compare(other Snowflake) int { return compareInt64(int64(s), int64(other)) }

// Value implements driver.Valuer: the bigint.
func (s Snowflake) Value() (driver.Value, error) { return int64(s), nil }

// Scan implements sql.Scanner: the bigint (int64, or its decimal text).
func (s *Snowflake) Scan(src interface{}) error {
	v, err := scanInt64(src, "snowflake")
	if err == nil {
		*s = Snowflake(v)
	}
	return err
}

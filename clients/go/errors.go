package pgflake

import (
	"errors"
	"fmt"
)

// Error is a value the extension would reject, with the message and the
// SQLSTATE it would give for the same input (docs/sql-reference.md,
// "Errors"; the messages of core/src/error.rs).
type Error struct {
	// SQLState: 22P02 bad text, 22P03 bad binary length, 22003 a value or
	// field out of range, 22008 a time out of range, 22023 a bad argument
	// (interval, kind, epoch, key), 55000 a leased generator's clock too
	// far behind the IDs it issued.
	SQLState string
	Message  string
	Detail   string // the accepted form, where there is one
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return "pgflake: " + e.Message
	}
	return "pgflake: " + e.Message + ". " + e.Detail
}

// SQLState is the SQLSTATE of the first *Error in err's chain, "" if none.
func SQLState(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.SQLState
	}
	return ""
}

// The SQL types whose names the messages call a type ("for type sno"); the
// other names (kuid64, snowflake, distributed_id128) are formats stored in
// PostgreSQL's own types, named bare, as core/src/error.rs does.
var sqlTypes = map[string]bool{
	"sno": true, "siq": true, "flaxid": true, "kuid96": true, "distributed_id": true,
	"uuid": true, "bigint": true, "numeric": true,
}

func subject(typeName string) string {
	if sqlTypes[typeName] {
		return "type " + typeName
	}
	return typeName
}

func invalidText(typeName, text, expected string) error {
	return &Error{"22P02", fmt.Sprintf("invalid input syntax for %s: %q", subject(typeName), text), "Expected " + expected + "."}
}

func invalidBinary(typeName, expected string, got int) error {
	unit := "bytes"
	if got == 1 {
		unit = "byte"
	}
	return &Error{"22P03", fmt.Sprintf("invalid binary value for %s: expected %s, got %d %s", subject(typeName), expected, got, unit), ""}
}

func valueOutOfRange(typeName, text, accepted string) error {
	return &Error{"22003", fmt.Sprintf("value %q is out of range for %s", text, subject(typeName)), "Accepted values: " + accepted + "."}
}

func fieldOutOfRange(typeName, field string, value, min, max int64) error {
	return &Error{"22003", fmt.Sprintf("%s field %q out of range: %d (accepted: %d to %d)", typeName, field, value, min, max), ""}
}

func timeOutOfRange(typeName, accepted string) error {
	return &Error{"22008", fmt.Sprintf("timestamp out of range for %s: accepted %s", subject(typeName), accepted), ""}
}

func invalidParameter(message string) error {
	return &Error{"22023", message, ""}
}

// field is value if it lies in min … max, else the extension's 22003.
func field(typeName, name string, value, min, max int64) error {
	if value < min || value > max {
		return fieldOutOfRange(typeName, name, value, min, max)
	}
	return nil
}

// nonNegativeBigint is the range of a bigint a format reads as unsigned.
const nonNegativeBigint = "0 to 9223372036854775807"

package pgflake

import "fmt"

// Error is a value the extension would reject, with the message and the
// SQLSTATE it would give (docs/sql-reference.md, "Errors").
type Error struct {
	SQLState string // "22P02" bad text, "22P03" bad binary length, "22003" out of range
	Message  string
	Detail   string // the accepted form, where there is one
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return "pgflake: " + e.Message
	}
	return "pgflake: " + e.Message + ". " + e.Detail
}

func invalidText(typeName, text, expected string) error {
	return &Error{"22P02", fmt.Sprintf("invalid input syntax for type %s: %q", typeName, text), "Expected " + expected + "."}
}

func invalidBinary(typeName string, size, got int) error {
	return &Error{"22P03", fmt.Sprintf("invalid binary value for type %s: expected exactly %d, got %d bytes", typeName, size, got), ""}
}

func valueOutOfRange(typeName, text, accepted string) error {
	return &Error{"22003", fmt.Sprintf("value %q is out of range for type %s", text, typeName), "Accepted values: " + accepted + "."}
}

package pgflake

import (
	"math/big"
	"strings"
)

// cSpace is the white space PostgreSQL's numeric and integer inputs skip
// around a number (C's isspace).
const cSpace = " \t\n\r\v\f"

// numericInteger reads a non-negative integer from PostgreSQL numeric text
// (-12.50, NaN, Infinity, …), at most max: the numeric casts to the ID
// types (core/src/numeric.rs). Negative, fractional, NaN and infinite
// values are 22003, text that is no number 22P02.
func numericInteger(text, typeName string, max *big.Int, accepted string) (*big.Int, error) {
	outOfRange := func() error { return valueOutOfRange(typeName, text, accepted) }
	trimmed := strings.Trim(text, cSpace)
	for _, special := range []string{"NaN", "Infinity", "+Infinity", "-Infinity", "inf", "+inf", "-inf"} {
		if strings.EqualFold(trimmed, special) {
			return nil, outOfRange()
		}
	}
	negative, unsigned := false, trimmed
	if strings.HasPrefix(trimmed, "-") || strings.HasPrefix(trimmed, "+") {
		negative, unsigned = trimmed[0] == '-', trimmed[1:]
	}
	integer, fraction, _ := strings.Cut(unsigned, ".")
	digits := func(s string) bool { return strings.Trim(s, "0123456789") == "" }
	if len(integer)+len(fraction) == 0 || !digits(integer) || !digits(fraction) {
		return nil, invalidText("numeric", text, "a numeric value")
	}
	significant := strings.TrimLeft(integer, "0")
	if significant == "" && strings.Trim(fraction, "0") == "" {
		return new(big.Int), nil
	}
	if negative || strings.Trim(fraction, "0") != "" || len(significant) > 39 {
		return nil, outOfRange()
	}
	n, _ := new(big.Int).SetString(significant, 10)
	if n.Cmp(max) > 0 {
		return nil, outOfRange()
	}
	return n, nil
}

package pgflake

// The "number in a fixed-width alphabet" text forms: the big-endian bytes
// cut into 5- or 6-bit characters, most significant first, with the zero
// bits the text has beyond the bytes either before them (siq: one leading
// bit) or after them (kuid64: two trailing bits). Decoding is strict (exact
// length, alphabet only, padding bits zero), so every accepted text is
// canonical. Mirrors core/src/codec.rs and python/pg_flake/_codec.py.

type alphabet struct {
	chars  string
	bits   int       // 5 or 6
	values [256]int8 // -1: not in the alphabet
}

func newAlphabet(chars string, extra map[byte]int8) *alphabet {
	a := &alphabet{chars: chars}
	switch len(chars) {
	case 32:
		a.bits = 5
	case 64:
		a.bits = 6
	default:
		panic("pgflake: alphabet of " + chars)
	}
	for i := range a.values {
		a.values[i] = -1
	}
	for i := 0; i < len(chars); i++ {
		a.values[chars[i]] = int8(i)
	}
	for c, v := range extra {
		a.values[c] = v
	}
	return a
}

// encode: the padding bits lead.
func (a *alphabet) encode(data []byte, length int) string {
	return a.encodeAt(data, length, length*a.bits-len(data)*8)
}

// encodeLow: the padding bits trail.
func (a *alphabet) encodeLow(data []byte, length int) string {
	return a.encodeAt(data, length, 0)
}

func (a *alphabet) encodeAt(data []byte, length, lead int) string {
	out := make([]byte, length)
	for i := range out {
		v := 0
		for j := 0; j < a.bits; j++ {
			v <<= 1
			pos := i*a.bits + j - lead
			if pos >= 0 && pos < len(data)*8 && data[pos/8]>>(7-pos%8)&1 == 1 {
				v |= 1
			}
		}
		out[i] = a.chars[v]
	}
	return string(out)
}

// decode fills out (all zero on entry) from text, the padding bits leading;
// false if text is not exactly length characters of the alphabet with zero
// padding bits.
func (a *alphabet) decode(text string, length int, out []byte) bool {
	return a.decodeAt(text, length, out, length*a.bits-len(out)*8)
}

// decodeLow: the padding bits trail.
func (a *alphabet) decodeLow(text string, length int, out []byte) bool {
	return a.decodeAt(text, length, out, 0)
}

func (a *alphabet) decodeAt(text string, length int, out []byte, lead int) bool {
	if len(text) != length {
		return false
	}
	for i := 0; i < len(text); i++ {
		v := a.values[text[i]]
		if v < 0 {
			return false
		}
		for j := 0; j < a.bits; j++ {
			bit := byte(v>>(a.bits-1-j)) & 1
			pos := i*a.bits + j - lead
			if pos < 0 || pos >= len(out)*8 {
				if bit != 0 {
					return false
				}
				continue
			}
			out[pos/8] |= bit << (7 - pos%8)
		}
	}
	return true
}

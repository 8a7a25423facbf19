// pgflake-conformance is the Go package's adapter for the shared
// conformance runner (tests/conformance/PROTOCOL.md, protocol 1): one JSON
// request per line on stdin, one answer per line on stdout, through the
// package's public API only.
//
//	clients/go/run.sh builds it; python3 tests/conformance/runner.py --adapter go=clients/go/bin/pgflake-conformance
package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"time"

	pgflake "pg-flake.invalid/pgflake"
	"pg-flake.invalid/pgflake/internal/vectors"
)

type args = vectors.Vector
type result = map[string]interface{}

// refusal is an error the adapter itself raises for input the package never
// sees in that form (bytes of the wrong length for a bigint): the
// extension's SQLSTATE, as the package would give it.
type refusal struct{ state, message string }

func (r refusal) Error() string { return r.message }

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		request := vectors.Decode(in.Bytes())
		answer := result{}
		if request == nil {
			answer["id"] = nil
			answer["error"] = result{"sqlstate": nil, "message": "not a JSON object"}
		} else {
			answer = respond(request)
			answer["id"] = request["id"]
		}
		line, _ := json.Marshal(answer)
		out.Write(append(line, '\n'))
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "pgflake-conformance:", err)
		os.Exit(1)
	}
}

func respond(request vectors.Vector) (answer result) {
	typ, op := request.Str("type"), request.Str("op")
	a := request.Obj("args")
	if a == nil {
		a = args{}
	}
	if op == "hello" {
		return result{"ok": result{"language": "go", "package": "pgflake " + pgflake.Version, "protocol": 1}}
	}
	handler := handlers[typ][op]
	if handler == nil {
		return result{"unsupported": fmt.Sprintf("pgflake for Go has no %s %s", typ, op)}
	}
	defer func() {
		if p := recover(); p != nil { // a bug, not a refusal: the runner counts it
			answer = result{"error": result{"sqlstate": nil, "message": fmt.Sprint("panic: ", p)}}
		}
	}()
	ok, err := handler(a)
	if err != nil {
		var flake *pgflake.Error
		var own refusal
		switch {
		case errors.As(err, &flake):
			return result{"error": result{"sqlstate": flake.SQLState, "message": err.Error()}}
		case errors.As(err, &own):
			return result{"error": result{"sqlstate": own.state, "message": own.message}}
		}
		return result{"error": result{"sqlstate": nil, "message": err.Error()}}
	}
	return result{"ok": ok}
}

// --- values on the wire ---------------------------------------------------------------

// wire is an integer as the protocol writes it: a number up to 2^53, else
// a decimal string.
func wire(n *big.Int) interface{} {
	if n.IsInt64() && n.Int64() <= 1<<53 && n.Int64() >= -(1<<53) {
		return n.Int64()
	}
	return n.String()
}

func wire64(n int64) interface{} { return wire(big.NewInt(n)) }

func integer(a args, key string) *big.Int {
	n, ok := vectors.Integer(a[key])
	if !ok {
		panic(fmt.Sprintf("%s is no integer: %v", key, a[key]))
	}
	return n
}

func int64Of(a args, key string) int64 {
	n := integer(a, key)
	if !n.IsInt64() {
		return -1 << 63 // out of every range: the package refuses it
	}
	return n.Int64()
}

func intOf(a args, key string) int { return int(int64Of(a, key)) }

// micros is a time argument: microseconds since 1970.
func micros(a args, key string) time.Time { return time.UnixMicro(int64Of(a, key)).UTC() }

func rawBytes(a args, key string) []byte {
	b, err := hex.DecodeString(a.Str(key))
	if err != nil {
		panic(fmt.Sprintf("%s is no hex: %v", key, a[key]))
	}
	return b
}

func hexOf(b []byte) result { return result{"bytes_hex": hex.EncodeToString(b)} }

func option(a args, key string, fallback int64) int64 {
	if a.Has(key) {
		return int64Of(a, key)
	}
	return fallback
}

func interval(a args) int { return int(option(a, "interval", pgflake.DefaultKuidInterval)) }

func epochMs(a args) int64 { return option(a, "epoch_ms", pgflake.DiscordEpochMs) }

// bigint is the value of 8 bytes: a two's complement int64.
func bigint(a args, key string) (int64, error) {
	b := rawBytes(a, key)
	if len(b) != 8 {
		return 0, refusal{"22P03", fmt.Sprintf("invalid binary value for type bigint: expected exactly 8, got %d bytes", len(b))}
	}
	var n uint64
	for _, c := range b {
		n = n<<8 | uint64(c)
	}
	return int64(n), nil
}

func bigintHex(n int64) result {
	var b [8]byte
	for i := 7; i >= 0; i-- {
		b[i] = byte(n)
		n >>= 8
	}
	return hexOf(b[:])
}

func order(c int) result { return result{"order": c, "equal": c == 0} }

package pgflake

import (
	"fmt"
	"math"
	"strings"
)

// The leased formats: their time units (the core's timelines: sno's 4 ms
// since 2010, Snowflake's Unix millisecond, kuid96's 1024 µs units of each
// second, SIQ's ticks) and the assembly of an ID from a unit and a
// sequence with the lease's node and process (core/src/leased/*.rs).

type leasedFormat[T any] interface {
	name() string
	// unitAt is the unit containing unixNanos; an error outside the
	// format's range.
	unitAt(unixNanos int64) (uint64, error)
	// startOf is the first nanosecond of unit (saturating).
	startOf(unit uint64) int64
	// after is the next unit that stands for a time.
	after(unit uint64) (uint64, error)
	// decodedMicros is the time an ID of unit decodes to (the start of
	// the unit, rounded down to the microsecond).
	decodedMicros(unit uint64) int64
	// kinds are SIQ's kinds (one sequence space each); one for the others.
	kinds() int
	kindIndex(kind string) (int, error)
	maxSequence(kind int) uint32
	assemble(unit uint64, sequence uint32, kind int) T
}

const nanosPerMicro = 1000

// --- sno ---------------------------------------------------------------------

// snoLease: partition = node << 8 | process, tick-tock 0.
type snoLease struct {
	partition uint16
	meta      uint8
}

func newSnoLease(l Lease, meta int) (*snoLease, error) {
	if l.Node < 0 || l.Node > 255 || l.Process < 0 || l.Process > 255 {
		return nil, leaseMisfit("lease %d: sno node %d or process %d is outside 0 to 255", l.LeaseID, l.Node, l.Process)
	}
	if err := field("sno", "meta", int64(meta), 0, 255); err != nil {
		return nil, err
	}
	return &snoLease{uint16(l.Node)<<8 | uint16(l.Process), uint8(meta)}, nil
}

func (*snoLease) name() string { return "sno" }

func (*snoLease) unitAt(ns int64) (uint64, error) {
	units, err := snoUnitsAt(floorDiv(ns, nanosPerMicro))
	return uint64(units), err
}

func (*snoLease) startOf(unit uint64) int64 {
	return saturatingStart(snoEpochMicros*nanosPerMicro, unit, snoUnitMicros*nanosPerMicro)
}

func (f *snoLease) after(unit uint64) (uint64, error) { return afterUnit[Sno](f, unit) }

func (*snoLease) decodedMicros(unit uint64) int64 {
	return snoEpochMicros + int64(unit)*snoUnitMicros
}

func (*snoLease) kinds() int                    { return 1 }
func (*snoLease) kindIndex(string) (int, error) { return 0, nil }
func (*snoLease) maxSequence(int) uint32        { return 65535 }
func (f *snoLease) assemble(unit uint64, seq uint32, _ int) Sno {
	return snoOf(int64(unit), false, f.meta, f.partition, uint16(seq))
}

// --- snowflake -----------------------------------------------------------------

// snowflakeLease: worker = node, the lease's process and epoch; units are
// Unix milliseconds.
type snowflakeLease struct {
	epochMs         int64
	worker, process int64
}

func newSnowflakeLease(l Lease) (*snowflakeLease, error) {
	if l.EpochMs == nil {
		return nil, leaseMisfit("snowflake lease %d has no epoch_ms", l.LeaseID)
	}
	if err := checkEpoch(*l.EpochMs); err != nil {
		return nil, err
	}
	if l.Node < 0 || l.Node > 31 || l.Process < 0 || l.Process > 31 {
		return nil, leaseMisfit("lease %d: snowflake worker %d or process %d is outside 0 to 31", l.LeaseID, l.Node, l.Process)
	}
	return &snowflakeLease{*l.EpochMs, l.Node, int64(l.Process)}, nil
}

func (*snowflakeLease) name() string { return "snowflake" }

func (f *snowflakeLease) unitAt(ns int64) (uint64, error) {
	ms := floorDiv(ns, 1_000_000)
	if ms < f.epochMs || ms-f.epochMs > snowflakeMaxMillis {
		return 0, timeOutOfRange("snowflake", snowflakeTimeRange)
	}
	return uint64(ms), nil
}

func (*snowflakeLease) startOf(unit uint64) int64           { return saturatingStart(0, unit, 1_000_000) }
func (f *snowflakeLease) after(unit uint64) (uint64, error) { return afterUnit[Snowflake](f, unit) }
func (*snowflakeLease) decodedMicros(unit uint64) int64     { return int64(unit) * 1000 }
func (*snowflakeLease) kinds() int                          { return 1 }
func (*snowflakeLease) kindIndex(string) (int, error)       { return 0, nil }
func (*snowflakeLease) maxSequence(int) uint32              { return 4095 }
func (f *snowflakeLease) assemble(unit uint64, seq uint32, _ int) Snowflake {
	return Snowflake((int64(unit)-f.epochMs)<<22 | f.worker<<17 | f.process<<12 | int64(seq))
}

// --- kuid96 --------------------------------------------------------------------

// kuid96Lease: the lease's 32-bit node and interval, process 0. A unit is
// second << 10 | microseconds >> 10; units 977–1023 of a second stand for
// no time and are skipped.
type kuid96Lease struct {
	node     uint32
	interval int
}

const kuidLastUnitOfASecond = 976 // 999 999 µs >> 10

func newKuid96Lease(l Lease) (*kuid96Lease, error) {
	if l.KuidInterval == nil {
		return nil, leaseMisfit("kuid96 lease %d has no kuid_interval", l.LeaseID)
	}
	if err := checkInterval(int(*l.KuidInterval)); err != nil {
		return nil, err
	}
	if l.Node < 0 || l.Node > math.MaxUint32 || l.Process != 0 {
		return nil, leaseMisfit("lease %d: kuid96 node %d is outside 0 to 4294967295 or process %d is not 0", l.LeaseID, l.Node, l.Process)
	}
	return &kuid96Lease{uint32(l.Node), int(*l.KuidInterval)}, nil
}

func (*kuid96Lease) name() string { return "kuid96" }

func (*kuid96Lease) unitAt(ns int64) (uint64, error) {
	micros := floorDiv(ns, nanosPerMicro)
	seconds := floorDiv(micros, 1_000_000)
	if micros < 0 || seconds/1_000_000 >= kuid96MegaLimit {
		return 0, timeOutOfRange("kuid96", kuid96TimeRange)
	}
	return uint64(seconds)<<10 | uint64(micros%1_000_000)>>10, nil
}

func (*kuid96Lease) startOf(unit uint64) int64 {
	seconds, units := int64(unit>>10), int64(unit&1023)
	if seconds > math.MaxInt64/1_000_000_000-1 {
		return math.MaxInt64
	}
	return seconds*1_000_000_000 + units*1024*nanosPerMicro
}

func (f *kuid96Lease) after(unit uint64) (uint64, error) {
	next := unit + 1
	if unit&1023 >= kuidLastUnitOfASecond {
		next = (unit>>10 + 1) << 10
	}
	if next < unit || f.startOf(next) == math.MaxInt64 {
		return 0, timeOutOfRange("kuid96", kuid96TimeRange)
	}
	if _, err := f.unitAt(f.startOf(next)); err != nil {
		return 0, err
	}
	return next, nil
}

func (f *kuid96Lease) decodedMicros(unit uint64) int64 { return f.startOf(unit) / nanosPerMicro }
func (*kuid96Lease) kinds() int                        { return 1 }
func (*kuid96Lease) kindIndex(string) (int, error)     { return 0, nil }
func (*kuid96Lease) maxSequence(int) uint32            { return kuidMaxSeq }
func (f *kuid96Lease) assemble(unit uint64, seq uint32, _ int) Kuid96 {
	seconds, units := unit>>10, unit&1023
	local := (seconds/1_000_000)<<44 | (seconds%1_000_000)<<24 | units<<14 | uint64(seq)
	return kuid96Of(local, f.node, f.interval)
}

// --- siq -------------------------------------------------------------------------

// siqLease: shard = process, the node in the domain hash's top byte (also
// node 0: the byte is the lease's unit), a serial per kind per tick.
type siqLease struct {
	shard       uint8
	hash        uint32
	defaultKind int
}

func newSiqLease(l Lease, domain, kind string) (*siqLease, error) {
	if l.Node < 0 || l.Node > 255 || l.Process < 0 || l.Process > 255 {
		return nil, leaseMisfit("lease %d: siq node %d or shard %d is outside 0 to 255", l.LeaseID, l.Node, l.Process)
	}
	hash, err := SiqDomainHash(domain)
	if err != nil {
		return nil, err
	}
	f := &siqLease{shard: uint8(l.Process), hash: hash&0x00FF_FFFF | uint32(l.Node)<<24}
	if f.defaultKind, err = f.kindIndex(kind); err != nil {
		return nil, err
	}
	return f, nil
}

func (*siqLease) name() string { return "siq" }

func (*siqLease) unitAt(ns int64) (uint64, error) {
	seconds, rest := floorDiv(ns, 1_000_000_000), ns-floorDiv(ns, 1_000_000_000)*1_000_000_000
	if ns < 0 || seconds > siqMaxTicks>>16 {
		return 0, timeOutOfRange("siq", siqTimeRange)
	}
	return uint64(seconds)<<16 | uint64(rest*siqTicksPerSecond/1_000_000_000), nil
}

// startOf is the first whole nanosecond of the tick: ceil(ticks·10^9/65536).
func (*siqLease) startOf(unit uint64) int64 {
	seconds, fraction := int64(unit>>16), int64(unit&0xFFFF)
	if seconds > math.MaxInt64/1_000_000_000-1 {
		return math.MaxInt64
	}
	return seconds*1_000_000_000 + (fraction*1_000_000_000+siqTicksPerSecond-1)/siqTicksPerSecond
}

func (f *siqLease) after(unit uint64) (uint64, error) { return afterUnit[Siq](f, unit) }
func (*siqLease) decodedMicros(unit uint64) int64     { return siqTicksToMicros(int64(unit)) }
func (*siqLease) kinds() int                          { return len(SiqKinds) }

func (f *siqLease) kindIndex(kind string) (int, error) {
	if kind == "" {
		return f.defaultKind, nil
	}
	lower := strings.ToLower(kind)
	for i, k := range SiqKinds {
		if k.Name == lower {
			return i, nil
		}
	}
	_, err := SiqKindNamed(kind) // the extension's 22023
	return 0, err
}

func (*siqLease) maxSequence(kind int) uint32 { return uint32(SiqKinds[kind].MaxSerial()) }

func (f *siqLease) assemble(unit uint64, seq uint32, kind int) Siq {
	return siqOf(int64(unit), f.shard, f.hash, SiqKinds[kind].low16(int(seq)))
}

// --- shared --------------------------------------------------------------------------

// saturatingStart is base + unit·size, capped at the largest int64.
func saturatingStart(base int64, unit uint64, size int64) int64 {
	if unit > uint64((math.MaxInt64-base)/size) {
		return math.MaxInt64
	}
	return base + int64(unit)*size
}

// afterUnit is unit + 1 where that unit still stands for a time of the
// format (22008 beyond its range or the clock's).
func afterUnit[T any](f leasedFormat[T], unit uint64) (uint64, error) {
	next := unit + 1
	start := f.startOf(next)
	if next == 0 || start == math.MaxInt64 {
		return 0, timeOutOfRange(f.name(), "up to 2262-04-11 23:47:16.854775807+00, the end of the clock's range")
	}
	if _, err := f.unitAt(start); err != nil {
		return 0, err
	}
	return next, nil
}

// leasedFormatFor checks a lease row against the format asked for.
func leasedFormatFor[T any](l Lease, want string, make func(Lease) (leasedFormat[T], error)) (leasedFormat[T], error) {
	if l.Format != want {
		return nil, leaseMisfit("lease %d is a lease of %s, not of %s", l.LeaseID, l.Format, want)
	}
	if !l.Expires.After(l.NotBefore) {
		return nil, leaseMisfit("lease %d has an empty window", l.LeaseID)
	}
	f, err := make(l)
	if err != nil {
		return nil, fmt.Errorf("pgflake: lease %d: %w", l.LeaseID, err)
	}
	return f, nil
}

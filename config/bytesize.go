package config

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// ByteSize is an amount of memory in bytes.
//
// It parses from text such as "512MiB", "2GiB", "1GB", "64k" or "1048576"
// (see ParseByteSize) and prints in the largest IEC unit that divides it
// exactly, so String and ParseByteSize round-trip. It implements
// encoding.TextMarshaler, encoding.TextUnmarshaler and pflag.Value.
type ByteSize uint64

// Binary (IEC) multiples of a byte.
const (
	Byte ByteSize = 1
	KiB  ByteSize = 1 << (10 * iota)
	MiB
	GiB
	TiB
	PiB
)

// ParseByteSize parses a size: a non-negative number, optionally with a
// decimal fraction, then an optional unit, with optional spaces between.
// Units are case-insensitive:
//
//	none, B                  bytes
//	K, Ki, KiB (likewise M, G, T, P)   powers of 1024 ("64k" is 65536)
//	kB, MB, GB, TB, PB       powers of 1000 ("1GB" is 1000000000)
//
// Single letters are binary, as in Docker and the JVM, because memory is
// sized in binary units. The result must be a whole number of bytes that
// fits in 64 bits: "1.5KiB" is 1536, "0.1KiB" is an error.
func ParseByteSize(s string) (ByteSize, error) {
	b, err := parseByteSize(s)
	if err != nil {
		return 0, fmt.Errorf("invalid size %q: %w", s, err)
	}
	return b, nil
}

// parseByteSize is ParseByteSize with errors that do not repeat the input,
// for callers that report the input themselves.
func parseByteSize(s string) (ByteSize, error) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(s)
	}
	num, unit := s[:i], strings.TrimSpace(s[i:])
	if num == "" {
		return 0, errors.New("must start with a number, as in 512MiB")
	}
	if !isDecimal(num) {
		return 0, fmt.Errorf("malformed number %q", num)
	}
	mult, ok := unitSize(unit)
	if !ok {
		return 0, fmt.Errorf("unknown unit %q: use B, K/KiB, M/MiB, G/GiB, T/TiB, P/PiB or kB, MB, GB, TB, PB", unit)
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok { // unreachable after isDecimal, kept as a guard
		return 0, fmt.Errorf("malformed number %q", num)
	}
	r.Mul(r, new(big.Rat).SetUint64(mult))
	if !r.IsInt() {
		return 0, errors.New("not a whole number of bytes")
	}
	if !r.Num().IsUint64() {
		return 0, errors.New("too large")
	}
	return ByteSize(r.Num().Uint64()), nil
}

// isDecimal reports whether s is digits, optionally followed by a point and
// more digits.
func isDecimal(s string) bool {
	whole, frac, hasPoint := strings.Cut(s, ".")
	return allDigits(whole) && (!hasPoint || allDigits(frac))
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// unitSize returns the number of bytes in unit, matched case-insensitively.
func unitSize(unit string) (uint64, bool) {
	switch strings.ToLower(unit) {
	case "", "b":
		return 1, true
	case "k", "ki", "kib":
		return uint64(KiB), true
	case "m", "mi", "mib":
		return uint64(MiB), true
	case "g", "gi", "gib":
		return uint64(GiB), true
	case "t", "ti", "tib":
		return uint64(TiB), true
	case "p", "pi", "pib":
		return uint64(PiB), true
	case "kb":
		return 1e3, true
	case "mb":
		return 1e6, true
	case "gb":
		return 1e9, true
	case "tb":
		return 1e12, true
	case "pb":
		return 1e15, true
	}
	return 0, false
}

// String returns b in the largest IEC unit that divides it exactly, such as
// "1GiB", "1536MiB" or "1000000000B"; zero is "0".
func (b ByteSize) String() string {
	if b == 0 {
		return "0"
	}
	for _, u := range [...]struct {
		size ByteSize
		name string
	}{{PiB, "PiB"}, {TiB, "TiB"}, {GiB, "GiB"}, {MiB, "MiB"}, {KiB, "KiB"}} {
		if b%u.size == 0 {
			return fmt.Sprintf("%d%s", b/u.size, u.name)
		}
	}
	return fmt.Sprintf("%dB", uint64(b))
}

// MarshalText implements encoding.TextMarshaler with String.
func (b ByteSize) MarshalText() ([]byte, error) {
	return []byte(b.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with ParseByteSize.
func (b *ByteSize) UnmarshalText(text []byte) error {
	v, err := ParseByteSize(string(text))
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// Set implements pflag.Value with ParseByteSize.
func (b *ByteSize) Set(s string) error {
	return b.UnmarshalText([]byte(s))
}

// Type implements pflag.Value; it names the value in flag usage text.
func (b ByteSize) Type() string {
	return "size"
}

package config

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestParseByteSize(t *testing.T) {
	tests := []struct {
		in   string
		want ByteSize
	}{
		{"0", 0},
		{"1048576", MiB},
		{"512MiB", 512 * MiB},
		{"2GiB", 2 * GiB},
		{"1GB", 1000 * 1000 * 1000},
		{"64k", 64 * KiB},
		{"64K", 64 * KiB},
		{"64Ki", 64 * KiB},
		{"64kB", 64000},
		{"64KB", 64000},
		{"3MB", 3e6},
		{"2TB", 2e12},
		{"1PB", 1e15},
		{"1m", MiB},
		{"1g", GiB},
		{"1t", TiB},
		{"1PiB", PiB},
		{"1gib", GiB},
		{"10B", 10},
		{"10b", 10},
		{"1.5GiB", 1536 * MiB},
		{"0.5k", 512},
		{"1.000KiB", KiB},
		{" 512 MiB ", 512 * MiB},
		{"007", 7},
		{"18446744073709551615", 1<<64 - 1},
		{"15.75PiB", 63 << 48}, // 15.75 * 2^50 is a whole number of bytes
	}
	for _, tt := range tests {
		got, err := ParseByteSize(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestParseByteSizeErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `invalid size "": must start with a number, as in 512MiB`},
		{"   ", `invalid size "   ": must start with a number, as in 512MiB`},
		{"GiB", `invalid size "GiB": must start with a number, as in 512MiB`},
		{"-1", `invalid size "-1": must start with a number, as in 512MiB`},
		{"-1GiB", `invalid size "-1GiB": must start with a number, as in 512MiB`},
		{"+1GiB", `invalid size "+1GiB": must start with a number, as in 512MiB`},
		{"12XB", `invalid size "12XB": unknown unit "XB": use B, K/KiB, M/MiB, G/GiB, T/TiB, P/PiB or kB, MB, GB, TB, PB`},
		{"1 2", `invalid size "1 2": unknown unit "2": use B, K/KiB, M/MiB, G/GiB, T/TiB, P/PiB or kB, MB, GB, TB, PB`},
		{"1GiB2", `invalid size "1GiB2": unknown unit "GiB2": use B, K/KiB, M/MiB, G/GiB, T/TiB, P/PiB or kB, MB, GB, TB, PB`},
		{"1EiB", `invalid size "1EiB": unknown unit "EiB": use B, K/KiB, M/MiB, G/GiB, T/TiB, P/PiB or kB, MB, GB, TB, PB`},
		{"1e3", `invalid size "1e3": unknown unit "e3": use B, K/KiB, M/MiB, G/GiB, T/TiB, P/PiB or kB, MB, GB, TB, PB`},
		{"1.", `invalid size "1.": malformed number "1."`},
		{".5G", `invalid size ".5G": malformed number ".5"`},
		{"1.2.3M", `invalid size "1.2.3M": malformed number "1.2.3"`},
		{"0.1KiB", `invalid size "0.1KiB": not a whole number of bytes`},
		{"1.5", `invalid size "1.5": not a whole number of bytes`},
		{"18446744073709551616", `invalid size "18446744073709551616": too large`},
		{"16384PiB", `invalid size "16384PiB": too large`},
	}
	for _, tt := range tests {
		got, err := ParseByteSize(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want error %q", tt.in, got, err, tt.want)
		}
	}
}

func TestByteSizeString(t *testing.T) {
	tests := []struct {
		in   ByteSize
		want string
	}{
		{0, "0"},
		{1, "1B"},
		{1023, "1023B"},
		{KiB, "1KiB"},
		{1536, "1536B"},
		{64 * KiB, "64KiB"},
		{MiB, "1MiB"},
		{1536 * MiB, "1536MiB"},
		{GiB, "1GiB"},
		{16 * MiB, "16MiB"},
		{1e9, "1000000000B"},
		{1e6, "1000000B"},
		{TiB, "1TiB"},
		{1024 * PiB, "1024PiB"},
		{1<<64 - 1, "18446744073709551615B"},
	}
	for _, tt := range tests {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("ByteSize(%d).String() = %q, want %q", uint64(tt.in), got, tt.want)
		}
		back, err := ParseByteSize(tt.in.String())
		if err != nil || back != tt.in {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d (round trip)", tt.in.String(), back, err, uint64(tt.in))
		}
	}
}

func TestByteSizeText(t *testing.T) {
	var b ByteSize
	if err := b.UnmarshalText([]byte("2GiB")); err != nil || b != 2*GiB {
		t.Fatalf("UnmarshalText(2GiB) = %d, %v", b, err)
	}
	text, err := b.MarshalText()
	if err != nil || string(text) != "2GiB" {
		t.Fatalf("MarshalText() = %q, %v", text, err)
	}
	if err := b.UnmarshalText([]byte("lots")); err == nil {
		t.Fatal("UnmarshalText(lots) succeeded")
	}
	if b != 2*GiB {
		t.Errorf("failed UnmarshalText changed the value to %v", b)
	}
}

func TestByteSizeFlag(t *testing.T) {
	var b ByteSize
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.Var(&b, "memory", "")
	if err := fs.Parse([]string{"--memory", "512MiB"}); err != nil {
		t.Fatal(err)
	}
	if b != 512*MiB {
		t.Errorf("--memory 512MiB gave %v", b)
	}
	err := fs.Parse([]string{"--memory=12XB"})
	if err == nil || !strings.Contains(err.Error(), `invalid size "12XB": unknown unit "XB"`) {
		t.Errorf("--memory=12XB: got error %v", err)
	}
}

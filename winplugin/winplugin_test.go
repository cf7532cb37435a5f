package winplugin

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// requireEnv makes a missing tool a failure rather than a skip; CI sets it,
// after installing the tools, so that the test cannot pass by skipping.
const requireEnv = "SOKOD_WINE_TEST"

// tool finds a program on PATH or at one of the paths given.
func tool(name string, paths ...string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// wineDLLDirs are where Debian's wine keeps its own 64-bit Windows DLLs.
var wineDLLDirs = []string{"/usr/lib/x86_64-linux-gnu/wine/x86_64-windows", "/usr/lib/wine/x86_64-windows"}

// TestPluginUnderWine builds the Windows release with scripts/build-windows
// and runs the test host on the 64-bit DLL under wine64: the DLL runs the
// real sokod.exe. There is no 32-bit wine on Debian's amd64 machines here,
// so the 32-bit DLL is built and checked to be a 32-bit DLL, not run.
func TestPluginUnderWine(t *testing.T) {
	tools := map[string]string{
		"gcc":        tool("x86_64-w64-mingw32-gcc"),
		"gcc32":      tool("i686-w64-mingw32-gcc"),
		"wine64":     tool("wine64", "/usr/lib/wine/wine64"),
		"wineserver": tool("wineserver", "/usr/lib/wine/wineserver64", "/usr/lib/wine/wineserver"),
		"jsmn.h":     tool("", "/usr/include/jsmn.h"),
	}
	for name, path := range tools {
		if path != "" {
			continue
		}
		msg := name + " not found: install Debian's gcc-mingw-w64-x86-64, gcc-mingw-w64-i686, wine64 and libjsmn-dev (as .ci/run does)"
		if os.Getenv(requireEnv) != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if testing.Short() {
		t.Skip("builds the Windows release and runs wine: not in -short")
	}
	// A cold build of sokod.exe compiles every dependency for Windows: minutes on
	// a busy two-core machine.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	run := func(dir string, env []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	tmp := t.TempDir()
	dist := filepath.Join(tmp, "sokod-windows")
	start := time.Now()
	run("..", nil, "bash", "scripts/build-windows", dist)
	t.Logf("scripts/build-windows: %.1fs", time.Since(start).Seconds())
	for dll, machine := range map[string]uint16{"sokod-plugin.dll": 0x14c, "sokod-plugin64.dll": 0x8664} {
		if got := peMachine(t, filepath.Join(dist, dll)); got != machine {
			t.Errorf("%s is for machine %#x, want %#x", dll, got, machine)
		}
	}
	for _, f := range []string{"sokod.exe", "sokod-plugin.ini", "README.txt"} {
		if _, err := os.Stat(filepath.Join(dist, f)); err != nil {
			t.Errorf("the release lacks %s: %v", f, err)
		}
	}
	run(".", nil, tools["gcc"], "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-o", filepath.Join(dist, "host.exe"), "testhost/host.c")

	prefix := filepath.Join(tmp, "wineprefix")
	wineEnv := []string{"WINEPREFIX=" + prefix, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml="}
	defer func() {
		// The prefix's wineserver would linger a few seconds after the last process.
		kill := exec.Command(tools["wineserver"], "-k")
		kill.Env = append(os.Environ(), wineEnv...)
		_ = kill.Run()
	}()
	start = time.Now()
	run(dist, wineEnv, tools["wine64"], "wineboot", "--init")
	// wineboot returns while the prefix's services still start; a process
	// started then may fail to start (error 1359), so wait for them.
	run(dist, wineEnv, tools["wineserver"], "-w")
	if !wineHas("bcryptprimitives.dll") {
		shim := filepath.Join(prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll")
		run(".", nil, tools["gcc"], "-O2", "-shared", "-o", shim, "testdata/bcryptprimitives.c", "-ladvapi32")
	}
	t.Logf("wine prefix: %.1fs", time.Since(start).Seconds())

	// Settings that make the host's long level run until it is stopped.
	writeINI(t, dist, "[sokod]\ntime=60s\nmemory=256MiB\nobjective=pushes\nheuristic=simple\nplanners=none\n")
	start = time.Now()
	out := run(dist, wineEnv, tools["wine64"], "host.exe", "sokod-plugin64.dll")
	t.Logf("host.exe (%.1fs):\n%s", time.Since(start).Seconds(), out)
	if !strings.Contains(out, "\n0 check(s) failed") {
		t.Errorf("the host's checks failed:\n%s", out)
	}

	writeINI(t, dist, "[sokod]\nobjective=moves\n")
	out = run(dist, wineEnv, tools["wine64"], "host.exe", "sokod-plugin64.dll", "badconfig")
	if !strings.Contains(out, "ok   a bad sokod-plugin.ini: 6") {
		t.Errorf("a bad ini:\n%s", out)
	}
}

// wineHas reports whether wine ships a 64-bit DLL of that name.
func wineHas(dll string) bool {
	for _, dir := range wineDLLDirs {
		if _, err := os.Stat(filepath.Join(dir, dll)); err == nil {
			return true
		}
	}
	return false
}

func writeINI(t *testing.T, dir, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "sokod-plugin.ini"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// peMachine returns the machine field of a PE file's COFF header.
func peMachine(t *testing.T, path string) uint16 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 0x40 || !bytes.Equal(b[:2], []byte("MZ")) {
		t.Fatalf("%s is not a PE file", path)
	}
	off := int(binary.LittleEndian.Uint32(b[0x3c:]))
	if off+6 > len(b) || !bytes.Equal(b[off:off+4], []byte("PE\x00\x00")) {
		t.Fatalf("%s has no PE header", path)
	}
	return binary.LittleEndian.Uint16(b[off+4:])
}

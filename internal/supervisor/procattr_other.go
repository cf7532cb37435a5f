//go:build !linux

package supervisor

import "syscall"

// sysProcAttr returns nil: Pdeathsig is Linux-only. Elsewhere a plugin
// notices its host is gone when the connection drops, and go-plugin's
// server then exits.
func sysProcAttr() *syscall.SysProcAttr { return nil }

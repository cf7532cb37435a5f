package supervisor

import "syscall"

// sysProcAttr makes the kernel SIGKILL a plugin when the host dies, however
// it dies, so that no plugin outlives the daemon.
//
// Pdeathsig fires when the thread that forked the child exits, not the
// whole process. Go only ends an OS thread when a goroutine locked to it
// with runtime.LockOSThread returns without unlocking; this package never
// locks threads and starts plugins from ordinary goroutines, so the forking
// thread lives as long as the host.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

package wireup

import "syscall"

// closeOnExec keeps the launcher connection from leaking into programs the rank runs:
// a leaked copy would keep the launcher from seeing the rank's end.
func closeOnExec(fd int) { syscall.CloseOnExec(fd) }

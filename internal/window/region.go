package window

// InRegion reports whether this rank's window memory lies in node shared memory (a
// mapped region) rather than in this process's Go heap. The C ABI hands C a pointer
// to a window's memory only when it is not Go's: where the memory would be Go's, it
// gives the device C memory instead (Args.Alloc), and every rank decides alike.
func (w *Win) InRegion() bool { return w.reg != nil }

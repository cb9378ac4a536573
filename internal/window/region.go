package window

// InRegion reports whether this rank's window memory lies in node shared memory (a
// mapped region) rather than in this process's Go heap. The C ABI hands C a pointer
// to a window's memory only when it is not Go's: every rank of a window decides
// alike, so a window whose memory is Go's is made again, collectively, over C memory.
func (w *Win) InRegion() bool { return w.reg != nil }

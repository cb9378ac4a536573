// Package ntcopy copies memory with non-temporal stores, for writers whose lines
// another core reads next: an ordinary store would first take each line back from
// that core's cache (the shm transport's large payloads, the node shared-memory
// Bcast's ring). Have says whether the platform has it; Copy is for amd64 only.
//
// Move is the large copy with ordinary stores, for every platform: copy, but for the
// CPUs on which Go's memmove does not take the fastest way for the size (AMD's with
// fast string moves, from 32 KiB: REP MOVSB).
package ntcopy

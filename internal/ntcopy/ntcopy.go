// Package ntcopy copies memory with non-temporal stores, for writers whose lines
// another core reads next: an ordinary store would first take each line back from
// that core's cache (the shm transport's large payloads, the node shared-memory
// Bcast's ring). Have says whether the platform has it; Copy is for amd64 only.
//
// Move is the large copy with ordinary stores, for every platform: copy, but for the
// CPUs on which Go's memmove does not take the fastest way for the size (AMD's with
// fast string moves, from 32 KiB: REP MOVSB). MoveCached is Move for a copy whose
// both ends this core keeps in its caches (a window's Put and Get): on Intel CPUs
// where Go's memmove takes REP MOVS from 2 KiB, copies of 2 to 8 KiB take a vector
// loop instead.
package ntcopy

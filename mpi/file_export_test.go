package mpi

// FileSyncs exposes how many times this process synced f's descriptor (fsync) to
// the tests of package mpi_test.
func FileSyncs(f *File) int64 { return f.d.Syncs() }

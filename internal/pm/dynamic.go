package pm

// Capabilities of a process manager beyond the wire-up of one job, for dynamic
// processes (MPI 4.1 chapter 11). A Client implements those its process manager
// offers; the device asks for them with a type assertion, as it asks transports for
// theirs, and refuses the MPI call with a clear error when the capability is missing.
// Errors from these methods are plain Go errors in words a user can act on; the device
// gives them MPI error classes.

// Spawner is implemented by a process manager that can start new processes while
// the job runs (MPI_Comm_spawn).
type Spawner interface {
	// Spawn starts cmds as one new job whose ranks connect to port, and returns for
	// each process asked for (in command order, MaxProcs per command) nil or why it
	// was not started. err is for a request that failed as a whole.
	//
	// The new job's world holds the processes started, in command order; each learns
	// port (JobInfo.ParentPort), the index of its command (JobInfo.AppNum) and the
	// universe size from the process manager. Spawn returns once every process has
	// been started or refused, not when they have reached Init.
	Spawn(cmds []SpawnCmd, port string) (procErrs []error, err error)
}

// SpawnCmd is one command of a spawn: MPI_Comm_spawn has one, MPI_Comm_spawn_multiple
// several.
type SpawnCmd struct {
	Program  string   // as the user gave it (resolved by the launcher: PATH, wdir, path info key)
	Args     []string // arguments after the program name
	MaxProcs int
	Info     map[string]string // the spawn info's keys: host, wdir, path, file, soft, arch, and mpigo's
}

// NameService is implemented by a process manager that keeps a name service
// (MPI_Publish_name, MPI_Lookup_name, MPI_Unpublish_name). Names are shared with
// every other job the process manager can reach; a name lives until it is
// unpublished or the job that published it ends.
type NameService interface {
	Publish(service, port string) error    // error if service is already published (by anyone)
	Lookup(service string) (string, error) // error if nobody published it
	Unpublish(service, port string) error  // error if it is not published (by this job)
}

// JobInfo says what the process manager knows of the job beyond its ranks.
type JobInfo interface {
	UniverseSize() (int, bool) // MPI_UNIVERSE_SIZE
	AppNum() (int, bool)       // MPI_APPNUM
	ParentPort() string        // the port a spawned job's ranks connect to; "" when not spawned
}

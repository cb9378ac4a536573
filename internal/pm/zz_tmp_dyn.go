package pm

// TEMPORARY (dyn-core): the seams of /work/dyn-design.md until dyn-launch lands.

type Spawner interface {
	Spawn(cmds []SpawnCmd, port string) (procErrs []error, err error)
}

type SpawnCmd struct {
	Program  string
	Args     []string
	MaxProcs int
	Info     map[string]string
}

type NameService interface {
	Publish(service, port string) error
	Lookup(service string) (string, error)
	Unpublish(service, port string) error
}

type JobInfo interface {
	UniverseSize() (int, bool)
	AppNum() (int, bool)
	ParentPort() string
}

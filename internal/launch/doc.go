// Package launch starts and supervises the ranks of a job on this machine: it makes
// each rank's connection to the wire-up server, forwards the ranks' output line by line,
// forwards signals, and ends the whole job when one rank fails, so that nothing of the
// job is left behind: no process, no file in /dev/shm, no socket.
//
// A run may hold several jobs: the first, and those its ranks spawn (spawn.go), each a
// Job with its own id, layout and fences, all supervised by the first job's event
// loop. The run ends when every process of every job has ended, and a failure in any
// job ends all of them. The launcher also keeps the ranks' name service (names.go),
// shared with the other launchers of the user on the machine.
package launch

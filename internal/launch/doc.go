// Package launch starts and supervises the ranks of a job on this machine: it makes
// each rank's connection to the wire-up server, forwards the ranks' output line by line,
// forwards signals, and ends the whole job when one rank fails, so that nothing of the
// job is left behind: no process, no file in /dev/shm, no socket.
package launch

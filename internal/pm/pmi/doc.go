// Package pmi lets mpigo ranks run under process managers that speak PMI: MPICH's
// Hydra (mpiexec.mpich) with the PMI-1 line protocol, and Slurm's srun --mpi=pmi2 with
// PMI-2. FromEnv detects them from the environment and returns a pm.Client.
//
// The protocols are lock-step request/reply exchanges over one socket: inherited
// (PMI_FD) or, in Hydra's port mode, dialled (PMI_PORT). Every reply is awaited with a
// deadline, and every command goes out in one write because Slurm reads commands with
// fixed-size reads. Replies are parsed leniently (fields in any order, unknown fields
// ignored, rc optional) because Hydra 4.0, Hydra 4.1+ and Slurm word them differently.
//
// Wire-up data maps onto the server's key-value space as mpigo-<key>-<rank> (process
// scope), mpigo-<key>-n<node> (node scope: one copy per node) and mpigo-<key>-j (job
// scope). Values are hex-encoded, since servers accept neither spaces (PMI-1) nor ';'
// (PMI-2) in them, and values longer than one put can carry are split into segments
// under a head key that gives their number. Under PMI-2 node-scoped values are also
// stored as node attributes, from which the node's own ranks read them.
//
// Fence is a barrier on every server: Hydra's PMI-2 kvs-fence is not one (it answers
// at once and holds gets until every process has fenced), so under PMI-2 a fence also
// gets a key nobody puts, which Hydra holds until every rank has fenced and Slurm
// answers at once. A value once published cannot change (Hydra's PMI-2 keeps the first
// value of a key), so Put refuses a different value for a key published at a fence.
//
// The node map comes from the server's PMI_process_mapping; without one, ranks
// exchange host names.
package pmi

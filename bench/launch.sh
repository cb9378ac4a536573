# launch.sh - sourced by bench/scale.sh and bench/imb.sh: how a job of each MPI starts
# beside mpigo, as ../shared/anchors/compare.sh's cmd_for starts it: on 1-2 ranks Open
# MPI and MPICH bound to cores, beyond Open MPI with --oversubscribe --bind-to none and
# MPICH with its defaults; mpigo ($bin/mpigo) with its defaults.
#
#   launch IMPL NP PROGRAM ARGS...     IMPL: openmpi, mpich, mpigo
launch() {
	local impl=$1 n=$2; shift 2
	case $impl in
	openmpi) if [ "$n" -le 2 ]; then mpirun.openmpi -n "$n" --bind-to core "$@"
		else mpirun.openmpi -n "$n" --oversubscribe --bind-to none "$@"; fi ;;
	mpich) if [ "$n" -le 2 ]; then mpiexec.mpich -n "$n" -bind-to core "$@"
		else mpiexec.mpich -n "$n" "$@"; fi ;;
	mpigo) "$bin/mpigo" run -n "$n" "$@" ;;
	esac
}

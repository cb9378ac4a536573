/* pcontrol.c - MPI_Pcontrol on mpigo's profile (run with mpigo run --profile DIR and
 * DIR as the argument): level 2 writes this rank's profile now; 0, 1 and a level of
 * the profiler's own succeed and write nothing. */
#include <mpi.h>
#include <stdio.h>
#include <sys/stat.h>

static int exists(const char *dir, int rank) {
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/rank-%d.json", dir, rank);
    return stat(path, &st) == 0;
}

int main(int argc, char **argv) {
    int rank, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 2) {
        fprintf(stderr, "usage: pcontrol DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int levels[] = {0, 1, 7, -1};
    for (int i = 0; i < 4; i++) {
        if (MPI_Pcontrol(levels[i]) != MPI_SUCCESS || exists(argv[1], rank)) {
            printf("rank %d: MPI_Pcontrol(%d) failed or wrote the profile\n", rank, levels[i]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    if (MPI_Pcontrol(2) != MPI_SUCCESS || !exists(argv[1], rank)) {
        printf("rank %d: MPI_Pcontrol(2) did not write %s/rank-%d.json\n", rank, argv[1], rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    if (rank == 0)
        printf("OK pcontrol\n");
    return 0;
}

/* ordloop.c - a loop of MPI_File_write_ordered of one 4 KiB record per rank, back to
 * back (io.c's write_ordered without its memset and repetitions), for timing the C way
 * of an ordered write: mpigo cc -O2 -o ordloop bench/ordloop.c; mpigo run -n 2 ordloop
 * [calls] [tag]. The file is /dev/shm/ordloop-TAG.dat, deleted on close; the shared
 * pointer goes back to 0 every 1000 calls. Rank 0 prints the time per call. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    char path[256];
    snprintf(path, sizeof path, "/dev/shm/ordloop-%s.dat", argc > 2 ? argv[2] : "x");
    MPI_File fh;
    MPI_Status st;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
    static char buf[4096];
    memset(buf, rank + 1, sizeof buf);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        if (i % 1000 == 0) MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
        MPI_File_write_ordered(fh, buf, 4096, MPI_BYTE, &st);
    }
    double t = MPI_Wtime() - t0;
    if (rank == 0) printf("%.3f us per call\n", t * 1e6 / n);
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}

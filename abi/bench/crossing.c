/* crossing.c - the cost of one call from C into mpigo (a C->Go crossing): MPI_Initialized
 * does an atomic load behind the MPI_ -> PMPI_ forwarder and the cgo callback; a plain
 * C call is the baseline. mpigo cc -O2 -o crossing abi/bench/crossing.c &&
 * mpigo run -n 1 ./crossing */
#include <mpi.h>
#include <stdio.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
__attribute__((noinline)) int local(int *f) { *f = 1; return 0; }
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int f, r;
    const int N = 20000000;
    for (int k = 0; k < 3; k++) {
        double t0 = now();
        for (int i = 0; i < N; i++) MPI_Initialized(&f);
        double t1 = now();
        for (int i = 0; i < N; i++) MPI_Comm_rank(MPI_COMM_WORLD, &r);
        double t2 = now();
        for (int i = 0; i < N; i++) local(&f);
        double t3 = now();
        printf("RESULT crossing MPI_Initialized %.1f ns  MPI_Comm_rank %.1f ns  C call %.1f ns\n",
               (t1 - t0) / N * 1e9, (t2 - t1) / N * 1e9, (t3 - t2) / N * 1e9);
    }
    MPI_Finalize();
    return 0;
}

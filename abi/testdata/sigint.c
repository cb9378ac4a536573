/* sigint.c - a C program with its own SIGINT handler, installed before MPI_Init (and
 * one for SIGUSR1 after it): each signal reaches the program's handler, which it
 * returns from, and MPI keeps working. */
#include "check.h"
#include <signal.h>
#include <string.h>

static volatile sig_atomic_t got_int = 0, got_usr1 = 0;
static void on_int(int s) { (void)s; got_int++; }
static void on_usr1(int s) { (void)s; got_usr1++; }

int main(int argc, char **argv) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_int;
    sigemptyset(&sa.sa_mask);
    CHECK(sigaction(SIGINT, &sa, NULL) == 0, "sigaction SIGINT");
    OK(MPI_Init(&argc, &argv));
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    sa.sa_handler = on_usr1;
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction SIGUSR1");
    CHECK(raise(SIGINT) == 0, "raise SIGINT");
    CHECK(got_int == 1, "the program's SIGINT handler ran once: %d", (int)got_int);
    CHECK(raise(SIGUSR1) == 0, "raise SIGUSR1");
    CHECK(got_usr1 == 1, "the program's SIGUSR1 handler ran once: %d", (int)got_usr1);
    struct sigaction now;
    CHECK(sigaction(SIGINT, NULL, &now) == 0 && now.sa_handler == on_int, "SIGINT's handler is still the program's");
    int x = rank, sum = 0;
    OK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == n * (n - 1) / 2, "MPI after the signals");
    OK(MPI_Finalize());
    if (rank == 0) printf("OK sigint\n");
    return 0;
}

/* fork.c - a C program that forks after MPI_Init, as programs that call system() or
 * popen() do: one child runs a shell command, one ends with exit() (running the
 * process's atexit handlers), one with _exit(); none of them may disturb the parent's
 * MPI (its connections, its shared memory, its record with the launcher), and MPI
 * keeps working in the parent after each. */
#include "check.h"
#include <sys/wait.h>
#include <unistd.h>

static void child_then(int how) {
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        if (how == 0) exit(0);
        _exit(0);
    }
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child's status %d", st);
}

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int rc = system("true");
    CHECK(rc == 0, "system(\"true\") returned %d", rc);
    for (int how = 0; how < 2; how++) {
        child_then(how);
        int x = rank + how, sum = 0;
        OK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK(sum == n * (n - 1) / 2 + n * how, "Allreduce after a child's %s", how ? "_exit" : "exit");
        int peer = (rank + 1) % n, from = (rank + n - 1) % n, got = -1;
        OK(MPI_Sendrecv(&rank, 1, MPI_INT, peer, 1, &got, 1, MPI_INT, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(got == from, "Sendrecv after a child: %d, want %d", got, from);
    }
    OK(MPI_Finalize());
    if (rank == 0) printf("OK fork\n");
    return 0;
}

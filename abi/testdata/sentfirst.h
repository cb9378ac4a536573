/* sentfirst.h - round i of an int from each of 2 ranks to the other on
 * MPI_COMM_WORLD with tag, each message sent before its receive is made (a Barrier
 * between), so that the receive finds it at its ring's head: what the tests of the
 * receives' short ways count on. Include after check.h. */
static void sent_first(int i, int rank, int peer, int tag) {
    for (int from = 0; from < 2; from++) {
        if (rank == from) OK(MPI_Send(&i, 1, MPI_INT, peer, tag, MPI_COMM_WORLD));
        OK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank != from) {
            int got = -1;
            OK(MPI_Recv(&got, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(got == i, "round %d: received %d", i, got);
        }
    }
}

/* dynamic.c - dynamic processes through the C ABI (MPI 4.1 chapter 11), on 2 ranks:
 * spawn of 3 children of this program (the root-only arguments garbage at the other
 * rank), which talk among themselves and to the parents, merge and disconnect;
 * spawn_multiple with an argv per command and MPI_APPNUM; a program that does not
 * exist (an error code per process); accept/connect between the two ranks through a
 * port found by the name service; join over a TCP socket; MPI_UNIVERSE_SIZE. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "check.h"

static int child(void) {
    MPI_Comm parent, again;
    OK(MPI_Comm_get_parent(&parent));
    CHECK(parent != MPI_COMM_NULL, "a spawned child has no parent");
    OK(MPI_Comm_get_parent(&again));
    CHECK(again == parent, "MPI_Comm_get_parent gave another handle the second time");
    int rank, size, rsize, flag;
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    OK(MPI_Comm_remote_size(parent, &rsize));
    OK(MPI_Comm_test_inter(parent, &flag));
    CHECK(size == 3 && rsize == 2 && flag, "a child: world %d, parents %d, inter %d", size, rsize, flag);
    int sum = 0, one = rank + 10;
    OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == 3, "the children's ranks sum to %d", sum);
    OK(MPI_Send(&one, 1, MPI_INT, rank % 2, 1, parent));
    MPI_Comm merged;
    OK(MPI_Intercomm_merge(parent, 1, &merged));
    int mrank;
    OK(MPI_Comm_rank(merged, &mrank));
    OK(MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK(mrank >= 2 && sum == 10, "merged: rank %d, sum %d", mrank, sum);
    OK(MPI_Comm_free(&merged));
    OK(MPI_Comm_disconnect(&parent));
    CHECK(parent == MPI_COMM_NULL, "MPI_Comm_disconnect left the handle");
    OK(MPI_Comm_get_parent(&again));
    CHECK(again == MPI_COMM_NULL, "MPI_Comm_get_parent after MPI_Comm_disconnect");
    OK(MPI_Finalize());
    return 0;
}

static int multi(const char *which) {
    MPI_Comm parent;
    OK(MPI_Comm_get_parent(&parent));
    int *app, flag;
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &app, &flag));
    CHECK(flag && *app == (strcmp(which, "b") == 0), "command %s has MPI_APPNUM %d (%d)", which, flag ? *app : -1, flag);
    OK(MPI_Comm_disconnect(&parent));
    OK(MPI_Finalize());
    return 0;
}

/* spawn3: 3 children of prog from root 0 of 2; rank 1's root-only arguments are
 * garbage, which it must never read. */
static void spawn3(const char *prog, int rank) {
    char *args[] = {"child", NULL};
    int codes[3] = {-1, -1, -1};
    MPI_Comm inter;
    if (rank == 0)
        OK(MPI_Comm_spawn(prog, args, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes));
    else {
        volatile intptr_t junk = 8; /* an address nothing may read (volatile: for the compiler too) */
        OK(MPI_Comm_spawn(NULL, (char **)junk, -3, (MPI_Info)(junk + 12345), 0, MPI_COMM_WORLD, &inter, codes));
    }
    for (int i = 0; i < 3; i++) CHECK(codes[i] == MPI_SUCCESS, "errcodes[%d] %d", i, codes[i]);
    int rsize;
    OK(MPI_Comm_remote_size(inter, &rsize));
    CHECK(rsize == 3, "3 children: remote size %d", rsize);
    for (int r = rank; r < 3; r += 2) {
        int v;
        OK(MPI_Recv(&v, 1, MPI_INT, r, 1, inter, MPI_STATUS_IGNORE));
        CHECK(v == r + 10, "child %d sent %d", r, v);
    }
    MPI_Comm merged;
    OK(MPI_Intercomm_merge(inter, 0, &merged));
    int mrank, sum;
    OK(MPI_Comm_rank(merged, &mrank));
    OK(MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK(mrank == rank && sum == 10, "merged: rank %d, sum %d", mrank, sum);
    OK(MPI_Comm_free(&merged));
    OK(MPI_Comm_disconnect(&inter));
}

static void spawn_multiple(const char *prog) {
    char *cmds[2] = {(char *)prog, (char *)prog};
    char *a0[] = {"multi", "a", NULL}, *a1[] = {"multi", "b", NULL};
    char **argvs[2] = {a0, a1};
    int np[2] = {1, 2};
    MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
    MPI_Comm inter;
    OK(MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0, MPI_COMM_SELF, &inter, MPI_ERRCODES_IGNORE));
    int rsize;
    OK(MPI_Comm_remote_size(inter, &rsize));
    CHECK(rsize == 3, "spawn_multiple: remote size %d", rsize);
    OK(MPI_Comm_disconnect(&inter));
}

static void spawn_missing(void) {
    int codes[2] = {-1, -1}, cls;
    MPI_Comm inter = MPI_COMM_WORLD;
    int rc = MPI_Comm_spawn("/no/such/program", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 1, MPI_COMM_WORLD, &inter, codes);
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_SPAWN && inter == MPI_COMM_NULL, "a missing program: class %d", cls);
    for (int i = 0; i < 2; i++) {
        OK(MPI_Error_class(codes[i], &cls));
        CHECK(cls == MPI_ERR_SPAWN, "errcodes[%d] has class %d", i, cls);
    }
}

/* ports: rank 0 accepts on MPI_COMM_SELF, rank 1 connects after finding the port by
 * its service name. */
static void ports(int rank) {
    char port[MPI_MAX_PORT_NAME], found[MPI_MAX_PORT_NAME], service[64];
    snprintf(service, sizeof service, "dynamic-c-%d", (int)getppid());
    MPI_Comm inter;
    int cls, rc;
    if (rank == 0) {
        OK(MPI_Open_port(MPI_INFO_NULL, port));
        OK(MPI_Publish_name(service, MPI_INFO_NULL, port));
        OK(MPI_Barrier(MPI_COMM_WORLD));
        OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter));
        OK(MPI_Unpublish_name(service, MPI_INFO_NULL, port));
        OK(MPI_Close_port(port));
    } else {
        OK(MPI_Barrier(MPI_COMM_WORLD));
        OK(MPI_Lookup_name(service, MPI_INFO_NULL, found));
        rc = MPI_Lookup_name("dynamic-c-never-published", MPI_INFO_NULL, port);
        OK(MPI_Error_class(rc, &cls));
        CHECK(cls == MPI_ERR_NAME, "a name nobody published: class %d", cls);
        OK(MPI_Comm_connect(found, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter));
    }
    int v = rank, got = -1;
    OK(MPI_Sendrecv(&v, 1, MPI_INT, 0, 0, &got, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE));
    CHECK(got == 1 - rank, "over the port: got %d", got);
    OK(MPI_Comm_disconnect(&inter));
}

/* join: rank 0 listens on a TCP socket, rank 1 connects (the port number sent over
 * MPI_COMM_WORLD), and both join. */
static void join(int rank) {
    int fd, port;
    struct sockaddr_in a;
    socklen_t n = sizeof a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (rank == 0) {
        int l = socket(AF_INET, SOCK_STREAM, 0);
        CHECK(l >= 0 && bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 1) == 0, "listen");
        CHECK(getsockname(l, (struct sockaddr *)&a, &n) == 0, "getsockname");
        port = ntohs(a.sin_port);
        OK(MPI_Send(&port, 1, MPI_INT, 1, 2, MPI_COMM_WORLD));
        fd = accept(l, NULL, NULL);
        close(l);
    } else {
        OK(MPI_Recv(&port, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        a.sin_port = htons(port);
        fd = socket(AF_INET, SOCK_STREAM, 0);
        CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0, "connect");
    }
    CHECK(fd >= 0, "accept");
    MPI_Comm inter;
    OK(MPI_Comm_join(fd, &inter));
    int v = rank, got = -1, rsize;
    OK(MPI_Comm_remote_size(inter, &rsize));
    OK(MPI_Sendrecv(&v, 1, MPI_INT, 0, 0, &got, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE));
    CHECK(rsize == 1 && got == 1 - rank, "joined: remote size %d, got %d", rsize, got);
    OK(MPI_Comm_disconnect(&inter));
    close(fd);
}

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    if (argc > 1 && strcmp(argv[1], "child") == 0) return child();
    if (argc > 2 && strcmp(argv[1], "multi") == 0) return multi(argv[2]);
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int rank, size, *u, *app, flag, flag2;
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &u, &flag));
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &app, &flag2));
    CHECK(flag && *u >= size && flag2 && *app == 0, "MPI_UNIVERSE_SIZE %d (%d), MPI_APPNUM %d (%d)",
          flag ? *u : -1, flag, flag2 ? *app : -1, flag2);
    MPI_Comm parent;
    OK(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "the first job has a parent");
    MPI_Comm w = MPI_COMM_WORLD;
    FAILS(MPI_Comm_disconnect(&w), MPI_ERR_COMM);
    CHECK(w == MPI_COMM_WORLD, "a refused MPI_Comm_disconnect changed the handle");

    spawn3(argv[0], rank);
    if (rank == 0) spawn_multiple(argv[0]);
    spawn_missing();
    ports(rank);
    join(rank);
    OK(MPI_Finalize());
    if (rank == 0) printf("OK dynamic\n");
    return 0;
}

/* attr.c - attributes with C copy and delete callbacks: MPI_Comm_dup copies, a set
 * replaces (deleting the old value), MPI_Comm_free deletes, and MPI_COMM_SELF's are
 * deleted first thing in MPI_Finalize. */
#include "check.h"

static int copies, deletes;
static int extra_seen;

static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag) {
    copies++;
    extra_seen = *(int *)extra;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm c, int key, void *val, void *extra) {
    deletes++;
    return MPI_SUCCESS;
}

static int at_finalize(MPI_Comm c, int key, void *val, void *extra) {
    int fin = 1;
    MPI_Finalized(&fin);
    printf("self attribute deleted at finalize (MPI still running: %s)\n", fin ? "no" : "yes");
    fflush(stdout);
    return MPI_SUCCESS;
}

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static int extra = 1234;
    int key, nocopy;
    OK(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, &extra));
    OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &nocopy, NULL));
    MPI_Comm c1, c2;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c1));
    OK(MPI_Comm_set_attr(c1, key, (void *)100));
    OK(MPI_Comm_set_attr(c1, nocopy, (void *)7));
    OK(MPI_Comm_set_attr(c1, key, (void *)200)); /* replaces: deletes 100 */
    CHECK(deletes == 1, "replacing ran delete %d times", deletes);
    OK(MPI_Comm_dup(c1, &c2));
    CHECK(copies == 1 && extra_seen == 1234, "dup ran copy %d times, extra %d", copies, extra_seen);
    void *v;
    int flag;
    OK(MPI_Comm_get_attr(c2, key, &v, &flag));
    CHECK(flag && v == (void *)201, "copied value %p", v);
    OK(MPI_Comm_get_attr(c2, nocopy, &v, &flag));
    CHECK(!flag, "MPI_COMM_NULL_COPY_FN does not copy");
    OK(MPI_Comm_delete_attr(c2, key));
    CHECK(deletes == 2, "delete_attr");
    OK(MPI_Comm_free(&c1));
    CHECK(deletes == 3, "Comm_free deletes, %d", deletes);
    OK(MPI_Comm_free(&c2));
    CHECK(deletes == 3, "nothing left on c2");
    OK(MPI_Comm_free_keyval(&key));
    CHECK(key == MPI_KEYVAL_INVALID, "free_keyval");

    int fk;
    OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &fk, NULL));
    OK(MPI_Comm_set_attr(MPI_COMM_SELF, fk, NULL));
    OK(MPI_Finalize());
    if (rank == 0) printf("OK attr\n");
    return 0;
}

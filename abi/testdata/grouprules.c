/* grouprules.c - the rules of groups, communicator comparison and process sets that
 * both faces share through mpigo's internal/mpir (the Go face's side is
 * mpi/group_rules_test.go). Four ranks. */
#include <string.h>

#include "check.h"

static int selfcalls, sesscalls;
static void selfh(MPI_Comm *c, int *code, ...) { (void)c, (void)code, selfcalls++; }
static void sessh(MPI_Session *s, int *code, ...) { (void)s, (void)code, sesscalls++; }

/* MPI_PROC_NULL translates to itself and a process outside group2 to MPI_UNDEFINED;
 * MPI_ANY_SOURCE and MPI_ANY_TAG's value are no ranks. Bad counts and arrays are
 * MPI_ERR_ARG. */
static void translate(MPI_Group world, int size) {
    MPI_Group sub;
    int two[2] = {2, 0};
    OK(MPI_Group_incl(world, 2, two, &sub));
    int in[4] = {MPI_PROC_NULL, 0, 1, 2}, out[4];
    OK(MPI_Group_translate_ranks(world, 4, in, sub, out));
    CHECK(out[0] == MPI_PROC_NULL && out[1] == 1 && out[2] == MPI_UNDEFINED && out[3] == 0,
          "translated {PROC_NULL, 0, 1, 2} to {%d, %d, %d, %d}", out[0], out[1], out[2], out[3]);
    int bad[] = {MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_ROOT, -7, size};
    for (int i = 0; i < 5; i++) {
        int r[2] = {0, bad[i]};
        FAILS(MPI_Group_translate_ranks(world, 2, r, sub, out), MPI_ERR_RANK);
    }
    FAILS(MPI_Group_translate_ranks(world, -1, in, sub, out), MPI_ERR_ARG);
    FAILS(MPI_Group_translate_ranks(world, 2, NULL, sub, out), MPI_ERR_ARG);
    FAILS(MPI_Group_translate_ranks(world, 2, in, sub, NULL), MPI_ERR_ARG);
    OK(MPI_Group_translate_ranks(world, 0, NULL, sub, NULL));
    OK(MPI_Group_free(&sub));
}

/* The constructors' counts and arrays: a negative n, a NULL array with entries and a
 * NULL newgroup are MPI_ERR_ARG; the engine's rules give MPI_ERR_RANK and MPI_ERR_ARG. */
static void constructors(MPI_Group world) {
    MPI_Group g = MPI_GROUP_NULL;
    int one[1] = {1}, twice[2] = {1, 1}, far[1] = {99};
    int r[1][3] = {{0, 2, 1}}, zero[1][3] = {{0, 2, 0}}, out[1][3] = {{0, 9, 1}};
    FAILS(MPI_Group_incl(world, -1, one, &g), MPI_ERR_ARG);
    FAILS(MPI_Group_excl(world, -1, one, &g), MPI_ERR_ARG);
    FAILS(MPI_Group_range_incl(world, -1, r, &g), MPI_ERR_ARG);
    FAILS(MPI_Group_range_excl(world, -1, r, &g), MPI_ERR_ARG);
    FAILS(MPI_Group_incl(world, 1, NULL, &g), MPI_ERR_ARG);
    FAILS(MPI_Group_excl(world, 1, NULL, &g), MPI_ERR_ARG);
    FAILS(MPI_Group_range_incl(world, 1, NULL, &g), MPI_ERR_ARG);
    FAILS(MPI_Group_incl(world, 1, one, NULL), MPI_ERR_ARG);
    FAILS(MPI_Group_union(world, world, NULL), MPI_ERR_ARG);
    FAILS(MPI_Group_incl(world, 1, far, &g), MPI_ERR_RANK);
    FAILS(MPI_Group_excl(world, 2, twice, &g), MPI_ERR_RANK);
    FAILS(MPI_Group_range_incl(world, 1, zero, &g), MPI_ERR_ARG);
    FAILS(MPI_Group_range_excl(world, 1, out, &g), MPI_ERR_RANK);
    CHECK(g == MPI_GROUP_NULL, "a failed constructor wrote newgroup");
    int size = -1, cmp = -1;
    FAILS(MPI_Group_size(world, NULL), MPI_ERR_ARG);
    FAILS(MPI_Group_compare(world, world, NULL), MPI_ERR_ARG);
    OK(MPI_Group_size(world, &size));
    OK(MPI_Group_compare(world, world, &cmp));
    CHECK(size == 4 && cmp == MPI_IDENT, "size %d, compare %d", size, cmp);
    OK(MPI_Group_incl(world, 0, NULL, &g));
    CHECK(g == MPI_GROUP_EMPTY, "Group_incl of no ranks is not MPI_GROUP_EMPTY");
}

/* inter is the intercommunicator of lo and hi (ranks of MPI_COMM_WORLD), each side
 * led by its first. */
static MPI_Comm inter(MPI_Group world, int nlo, int *lo, int nhi, int *hi, const char *tag) {
    MPI_Group a, b;
    OK(MPI_Group_incl(world, nlo, lo, &a));
    OK(MPI_Group_incl(world, nhi, hi, &b));
    int me;
    OK(MPI_Group_rank(a, &me));
    MPI_Comm c;
    if (me == MPI_UNDEFINED)
        OK(MPI_Intercomm_create_from_groups(b, 0, a, 0, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    else
        OK(MPI_Intercomm_create_from_groups(a, 0, b, 0, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    OK(MPI_Group_free(&a));
    OK(MPI_Group_free(&b));
    return c;
}

/* Intercommunicators compare by both groups, the remote one too (below, ranks 0 and 1
 * see their own group unchanged where the remote groups differ). */
static void compare(MPI_Group world, int rank) {
    int lo[2] = {0, 1}, hi[2] = {2, 3}, swapped[2] = {3, 2};
    MPI_Comm base = inter(world, 2, lo, 2, hi, "base"), dup, other;
    OK(MPI_Comm_dup(base, &dup));
    other = inter(world, 2, lo, 2, swapped, "swapped");
    int cmp = -1;
    OK(MPI_Comm_compare(base, base, &cmp));
    CHECK(cmp == MPI_IDENT, "rank %d: an intercommunicator with itself: %d", rank, cmp);
    OK(MPI_Comm_compare(base, dup, &cmp));
    CHECK(cmp == MPI_CONGRUENT, "rank %d: with its duplicate: %d", rank, cmp);
    OK(MPI_Comm_compare(base, other, &cmp));
    CHECK(cmp == MPI_SIMILAR, "rank %d: with one of a group reordered: %d", rank, cmp);
    if (rank < 3) {
        MPI_Comm fewer = inter(world, 2, lo, 1, hi, "fewer");
        OK(MPI_Comm_compare(base, fewer, &cmp));
        CHECK(cmp == MPI_UNEQUAL, "rank %d: with a remote group of fewer members: %d", rank, cmp);
        OK(MPI_Comm_free(&fewer));
    }
    FAILS(MPI_Comm_compare(base, dup, NULL), MPI_ERR_ARG);
    OK(MPI_Comm_free(&base));
    OK(MPI_Comm_free(&dup));
    OK(MPI_Comm_free(&other));
}

/* MPI_Session_get_nth_pset (MPI 4.1 section 11.3.2): on return pset_len is the size
 * the name needs, NUL included, whatever it was; a smaller buffer
 * gets the name cut, NUL-terminated; 0 leaves pset_name alone. */
static void nth_pset(MPI_Session s) {
    const char *want = "mpi://WORLD";
    int need = (int)strlen(want) + 1, len = 100;
    char name[100];
    OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, name));
    CHECK(len == need && strcmp(name, want) == 0, "a large buffer: %d \"%s\"", len, name);
    len = 5;
    OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, name));
    CHECK(len == need && strcmp(name, "mpi:") == 0, "a buffer of 5: %d \"%s\"", len, name);
    len = 0;
    strcpy(name, "kept");
    OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, name));
    CHECK(len == need && strcmp(name, "kept") == 0, "a length of 0: %d \"%s\"", len, name);
    FAILS(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 2, &len, name), MPI_ERR_ARG);
}

/* MPI_Intercomm_create's peer communicator, which only the local leader reads, has
 * the local communicator's owner there (else MPI_ERR_COMM): a session's and the world
 * model's communicators do not mix. Each rank leads a communicator of itself. */
static void intercomm_owners(MPI_Session s, int rank) {
    MPI_Group one, all;
    OK(MPI_Group_from_session_pset(s, "mpi://SELF", &one));
    OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &all));
    MPI_Comm self, world, ic = MPI_COMM_NULL;
    OK(MPI_Comm_create_from_group(one, "self", MPI_INFO_NULL, MPI_ERRORS_RETURN, &self));
    OK(MPI_Comm_create_from_group(all, "all", MPI_INFO_NULL, MPI_ERRORS_RETURN, &world));
    int peer = rank ^ 1;
    FAILS(MPI_Intercomm_create(self, 0, MPI_COMM_WORLD, peer, 5, &ic), MPI_ERR_COMM);
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    FAILS(MPI_Intercomm_create(MPI_COMM_SELF, 0, world, peer, 5, &ic), MPI_ERR_COMM);
    CHECK(ic == MPI_COMM_NULL, "a failed MPI_Intercomm_create wrote newintercomm");
    OK(MPI_Intercomm_create(self, 0, world, peer, 6, &ic)); /* one owner: the session */
    int n = 0;
    OK(MPI_Comm_remote_size(ic, &n));
    CHECK(n == 1, "the remote group of an intercommunicator of two ranks has %d", n);
    OK(MPI_Comm_free(&ic));
    OK(MPI_Comm_free(&world));
    OK(MPI_Comm_free(&self));
    OK(MPI_Group_free(&one));
    OK(MPI_Group_free(&all));
}

int main(void) {
    MPI_Errhandler seh, ceh;
    OK(MPI_Session_create_errhandler(sessh, &seh));
    OK(MPI_Comm_create_errhandler(selfh, &ceh));
    MPI_Session s;
    OK(MPI_Session_init(MPI_INFO_NULL, seh, &s));
    nth_pset(s);
    CHECK(sesscalls == 1, "the session's handler saw %d errors, want 1", sesscalls);

    OK(MPI_Init(NULL, NULL));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, ceh));
    int rank, size;
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 4, "run on 4 ranks, not %d", size);
    MPI_Group world;
    OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    translate(world, size);
    constructors(world);
    /* The world model's group calls report on MPI_COMM_SELF's handler, the session's
     * calls on its own. */
    CHECK(selfcalls == 23 && sesscalls == 1, "MPI_COMM_SELF's handler saw %d errors (want 23), the session's %d (want 1)",
          selfcalls, sesscalls);
    compare(world, rank);
    intercomm_owners(s, rank);
    OK(MPI_Group_free(&world));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    OK(MPI_Errhandler_free(&ceh));
    OK(MPI_Finalize());
    OK(MPI_Session_finalize(&s));
    OK(MPI_Errhandler_free(&seh));
    if (rank == 0) printf("OK grouprules\n");
    return 0;
}

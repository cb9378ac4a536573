/* info.c - info objects and hints as MPI 4.1 says, where mpigo's two faces once
 * disagreed: MPI_INFO_ENV holds no thread_level the launcher was not asked for
 * (11.2.2); keys and values are kept as given, within MPI_MAX_INFO_KEY and
 * MPI_MAX_INFO_VAL with their NUL (10); MPI_Info_get and MPI_Info_get_string cut as
 * the standard says; MPI_Comm_get_info and MPI_Win_get_info report the hints in
 * effect, not the keys mpigo ignores (7.4.4, 12.2.7); MPI_INFO_NULL sets nothing. */
#include <string.h>
#include "check.h"

/* hint returns the value of key in in, or "<unset>". */
static const char *hint(MPI_Info in, const char *key) {
    static char v[MPI_MAX_INFO_VAL];
    int flag;
    OK(MPI_Info_get(in, key, MPI_MAX_INFO_VAL - 1, v, &flag));
    return flag ? v : "<unset>";
}

static void env(int n) {
    char v[MPI_MAX_INFO_VAL];
    int flag;
    const char *have[] = {"command", "argv", "maxprocs", "host", "arch", "wdir"};
    for (int i = 0; i < 6; i++) {
        OK(MPI_Info_get(MPI_INFO_ENV, have[i], MPI_MAX_INFO_VAL - 1, v, &flag));
        CHECK(flag, "MPI_INFO_ENV has no %s", have[i]);
    }
    CHECK(atoi(hint(MPI_INFO_ENV, "maxprocs")) == n, "maxprocs %s", hint(MPI_INFO_ENV, "maxprocs"));
    CHECK(strcmp(hint(MPI_INFO_ENV, "argv"), "one two") == 0, "argv %s", hint(MPI_INFO_ENV, "argv"));
    const char *absent[] = {"thread_level", "soft", "file"};
    for (int i = 0; i < 3; i++)
        CHECK(strcmp(hint(MPI_INFO_ENV, absent[i]), "<unset>") == 0, "MPI_INFO_ENV has %s = %s",
              absent[i], hint(MPI_INFO_ENV, absent[i]));
    FAILS(MPI_Info_set(MPI_INFO_ENV, "x", "y"), MPI_ERR_INFO);
    FAILS(MPI_Info_delete(MPI_INFO_ENV, "host"), MPI_ERR_INFO);
    MPI_Info e = MPI_INFO_ENV;
    FAILS(MPI_Info_free(&e), MPI_ERR_INFO);
    OK(MPI_Info_create_env(0, NULL, &e));
    OK(MPI_Info_set(e, "maxprocs", "1"));
    CHECK(atoi(hint(MPI_INFO_ENV, "maxprocs")) == n, "a copy's change reached MPI_INFO_ENV");
    OK(MPI_Info_free(&e));
}

static void limits(void) {
    MPI_Info in;
    OK(MPI_Info_create(&in));
    char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
    memset(key, 'k', MPI_MAX_INFO_KEY);
    key[MPI_MAX_INFO_KEY] = 0;
    memset(val, 'v', MPI_MAX_INFO_VAL);
    val[MPI_MAX_INFO_VAL] = 0;
    FAILS(MPI_Info_set(in, key, "x"), MPI_ERR_INFO_KEY);
    FAILS(MPI_Info_set(in, "k", val), MPI_ERR_INFO_VALUE);
    FAILS(MPI_Info_set(in, "", "x"), MPI_ERR_INFO_KEY);
    key[MPI_MAX_INFO_KEY - 1] = 0; /* MPI_MAX_INFO_KEY-1 characters: fits with its NUL */
    val[MPI_MAX_INFO_VAL - 1] = 0;
    OK(MPI_Info_set(in, key, val));
    char got[MPI_MAX_INFO_KEY];
    OK(MPI_Info_get_nthkey(in, 0, got));
    CHECK(strcmp(got, key) == 0, "the longest key comes back whole");
    int len, flag;
    OK(MPI_Info_get_valuelen(in, key, &len, &flag));
    CHECK(flag && len == MPI_MAX_INFO_VAL - 1, "valuelen %d", len);

    /* spaces are kept: C's keys and values are what the program wrote */
    OK(MPI_Info_set(in, " a ", " x "));
    CHECK(strcmp(hint(in, " a "), " x ") == 0, "value %s", hint(in, " a "));
    CHECK(strcmp(hint(in, "a"), "<unset>") == 0, "\" a \" and \"a\" are one key");

    /* MPI_Info_get cuts at valuelen, MPI_Info_get_string at buflen-1 */
    OK(MPI_Info_set(in, "w", "hello"));
    char v[8] = "xxxxxxx";
    OK(MPI_Info_get(in, "w", 2, v, &flag));
    CHECK(flag && strcmp(v, "he") == 0, "Info_get valuelen 2: %s", v);
    strcpy(v, "keep");
    len = 0;
    OK(MPI_Info_get_string(in, "w", &len, v, &flag));
    CHECK(flag && len == 6 && strcmp(v, "keep") == 0, "get_string buflen 0: %d %s", len, v);
    len = 3;
    OK(MPI_Info_get_string(in, "w", &len, v, &flag));
    CHECK(flag && len == 6 && strcmp(v, "he") == 0, "get_string buflen 3: %d %s", len, v);
    FAILS(MPI_Info_get(in, "w", -1, v, &flag), MPI_ERR_ARG);
    int nk;
    OK(MPI_Info_get_nkeys(in, &nk));
    FAILS(MPI_Info_get_nthkey(in, nk, got), MPI_ERR_ARG);
    FAILS(MPI_Info_get_nthkey(in, -1, got), MPI_ERR_ARG);
    FAILS(MPI_Info_delete(in, "nope"), MPI_ERR_INFO_NOKEY);
    FAILS(MPI_Info_set(MPI_INFO_NULL, "a", "b"), MPI_ERR_INFO);
    FAILS(MPI_Info_get_nkeys(MPI_INFO_NULL, &nk), MPI_ERR_INFO);
    MPI_Info gone = in;
    OK(MPI_Info_free(&in));
    CHECK(in == MPI_INFO_NULL, "Info_free sets MPI_INFO_NULL");
    FAILS(MPI_Info_get_nkeys(gone, &nk), MPI_ERR_INFO);
}

static void comm_hints(void) {
    const char *keys[] = {"mpi_assert_no_any_tag", "mpi_assert_no_any_source", "mpi_assert_exact_length",
                          "mpi_assert_allow_overtaking"};
    MPI_Comm c;
    MPI_Info used, in;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    OK(MPI_Comm_get_info(c, &used));
    int nk;
    OK(MPI_Info_get_nkeys(used, &nk));
    CHECK(nk == 4, "a new communicator reports %d hints, want the 4 assertions", nk);
    for (int i = 0; i < 4; i++) CHECK(strcmp(hint(used, keys[i]), "false") == 0, "%s default", keys[i]);
    OK(MPI_Info_free(&used));

    OK(MPI_Info_create(&in));
    OK(MPI_Info_set(in, "mpi_assert_no_any_tag", "true"));
    OK(MPI_Info_set(in, "mpi_assert_exact_length", "maybe")); /* not a boolean: ignored */
    OK(MPI_Info_set(in, "my_key", "1"));                      /* not mpigo's: ignored */
    OK(MPI_Comm_set_info(c, in));
    OK(MPI_Comm_set_info(c, MPI_INFO_NULL)); /* no hints: nothing changes */
    OK(MPI_Comm_get_info(c, &used));
    CHECK(strcmp(hint(used, "mpi_assert_no_any_tag"), "true") == 0, "set_info");
    CHECK(strcmp(hint(used, "mpi_assert_exact_length"), "false") == 0, "a value not taken changed the hint");
    CHECK(strcmp(hint(used, "my_key"), "<unset>") == 0, "an ignored key is reported");
    OK(MPI_Info_free(&used));

    MPI_Comm d, w, s;
    OK(MPI_Comm_dup(c, &d)); /* keeps c's hints */
    OK(MPI_Comm_get_info(d, &used));
    CHECK(strcmp(hint(used, "mpi_assert_no_any_tag"), "true") == 0, "Comm_dup keeps the hints");
    OK(MPI_Info_free(&used));
    OK(MPI_Comm_dup_with_info(c, MPI_INFO_NULL, &w)); /* the info's: none */
    OK(MPI_Comm_get_info(w, &used));
    CHECK(strcmp(hint(used, "mpi_assert_no_any_tag"), "false") == 0, "Comm_dup_with_info(MPI_INFO_NULL)");
    OK(MPI_Info_free(&used));
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, in, &s));
    OK(MPI_Comm_get_info(s, &used));
    CHECK(strcmp(hint(used, "mpi_assert_no_any_tag"), "true") == 0, "Comm_split_type takes its info's hints");
    OK(MPI_Info_free(&used));
    OK(MPI_Info_free(&in));
    OK(MPI_Comm_free(&s));
    OK(MPI_Comm_free(&w));
    OK(MPI_Comm_free(&d));
    OK(MPI_Comm_free(&c));
}

static void win_hints(void) {
    MPI_Info in, used;
    OK(MPI_Info_create(&in));
    OK(MPI_Info_set(in, "no_locks", "true"));
    OK(MPI_Info_set(in, "not_a_window_key", "x"));
    MPI_Win w;
    void *base;
    OK(MPI_Win_allocate_shared(8, 1, in, MPI_COMM_WORLD, &base, &w));
    OK(MPI_Info_free(&in));
    OK(MPI_Win_get_info(w, &used));
    CHECK(strcmp(hint(used, "no_locks"), "true") == 0, "no_locks");
    CHECK(strcmp(hint(used, "accumulate_ordering"), "rar,raw,war,waw") == 0, "accumulate_ordering default");
    CHECK(strcmp(hint(used, "alloc_shared_noncontig"), "false") == 0, "alloc_shared_noncontig default");
    CHECK(strcmp(hint(used, "not_a_window_key"), "<unset>") == 0, "an ignored key is reported");
    OK(MPI_Info_free(&used));
    OK(MPI_Info_create(&in));
    OK(MPI_Info_set(in, "accumulate_ordering", "none"));
    OK(MPI_Info_set(in, "alloc_shared_noncontig", "true")); /* shaped the memory at creation */
    OK(MPI_Win_set_info(w, in));
    OK(MPI_Win_set_info(w, MPI_INFO_NULL));
    OK(MPI_Info_free(&in));
    OK(MPI_Win_get_info(w, &used));
    CHECK(strcmp(hint(used, "accumulate_ordering"), "none") == 0, "Win_set_info");
    CHECK(strcmp(hint(used, "alloc_shared_noncontig"), "false") == 0, "alloc_shared_noncontig changed after creation");
    OK(MPI_Info_free(&used));
    OK(MPI_Win_free(&w));
}

int main(int argc, char **argv) {
    int provided, n;
    OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided));
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    env(n);
    limits();
    comm_hints();
    win_hints();
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    OK(MPI_Finalize());
    if (rank == 0) printf("OK info\n");
    return 0;
}

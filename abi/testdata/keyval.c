/* keyval.c - keyvals and attributes as MPI 4.1 section 7.7 says. First the cases of
 * MPICH's test/mpi/attr/keyval_double_free*.c, under the default handlers (an error
 * would end the job): a delete function frees its keyval while other attributes still
 * hold it, and the program frees it again, as do later delete functions; none of these
 * frees is an error, as freeing a keyval in use is not (7.7.2). Then, with errors
 * returned: a failing delete function fails the call and changes nothing; a failing
 * copy function fails the duplication with its code and gives the null handle; a
 * keyval of another kind, a predefined one set, deleted or freed, and a keyval gone are
 * MPI_ERR_KEYVAL (7.7.5); the predefined attributes' values (9.1.2). */
#include "check.h"

/* The MPI-1 keyval calls, deprecated in MPI-2.0: out of the standard ABI's header
 * (section 21.2.1) but in other ABI headers, so the library keeps them for their
 * binaries, which declare them so. */
int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state);
int MPI_Keyval_free(int *keyval);
int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val);

static int comm_free_fn(MPI_Comm c, int keyval, void *attr, void *extra) {
    MPI_Comm_free_keyval(&keyval);
    return MPI_SUCCESS;
}
static int old_free_fn(MPI_Comm c, int keyval, void *attr, void *extra) {
    MPI_Keyval_free(&keyval);
    return MPI_SUCCESS;
}
static int type_free_fn(MPI_Datatype t, int keyval, void *attr, void *extra) {
    MPI_Type_free_keyval(&keyval);
    return MPI_SUCCESS;
}
static int win_free_fn(MPI_Win w, int keyval, void *attr, void *extra) {
    MPI_Win_free_keyval(&keyval);
    return MPI_SUCCESS;
}

static int self_key, self_key_copy, old_key, old_key_copy;

static void double_free(void) {
    MPI_Comm duped;
    OK(MPI_Comm_dup(MPI_COMM_SELF, &duped));
    OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_free_fn, &self_key, NULL));
    self_key_copy = self_key;
    OK(MPI_Comm_set_attr(MPI_COMM_SELF, self_key, NULL));
    OK(MPI_Comm_set_attr(duped, self_key, NULL));
    OK(MPI_Comm_free(&duped));                  /* first free, in the delete function */
    OK(MPI_Comm_free_keyval(&self_key));        /* second */
    CHECK(self_key == MPI_KEYVAL_INVALID, "Comm_free_keyval sets MPI_KEYVAL_INVALID");
    OK(MPI_Comm_free_keyval(&self_key_copy));   /* third; the fourth in MPI_Finalize */

    OK(MPI_Comm_dup(MPI_COMM_SELF, &duped));    /* the same with MPI-1's calls */
    OK(MPI_Keyval_create(MPI_NULL_COPY_FN, old_free_fn, &old_key, NULL));
    old_key_copy = old_key;
    OK(MPI_Attr_put(MPI_COMM_SELF, old_key, NULL));
    OK(MPI_Attr_put(duped, old_key, NULL));
    OK(MPI_Comm_free(&duped));
    OK(MPI_Keyval_free(&old_key));
    OK(MPI_Keyval_free(&old_key_copy));

    MPI_Datatype t1, t2;
    int tk, tk_copy;
    OK(MPI_Type_dup(MPI_INT, &t1));
    OK(MPI_Type_dup(MPI_INT, &t2));
    OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_free_fn, &tk, NULL));
    tk_copy = tk;
    OK(MPI_Type_set_attr(t1, tk, NULL));
    OK(MPI_Type_set_attr(t2, tk, NULL));
    OK(MPI_Type_free(&t1));
    OK(MPI_Type_free_keyval(&tk));
    OK(MPI_Type_free_keyval(&tk_copy));
    OK(MPI_Type_free(&t2)); /* the fourth free, and the keyval's last attribute */

    MPI_Win w[2];
    void *base[2];
    int wk, wk_copy;
    for (int i = 0; i < 2; i++) {
        OK(MPI_Alloc_mem(sizeof(int), MPI_INFO_NULL, &base[i]));
        OK(MPI_Win_create(base[i], sizeof(int), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w[i]));
    }
    OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_free_fn, &wk, NULL));
    wk_copy = wk;
    OK(MPI_Win_set_attr(w[0], wk, NULL));
    OK(MPI_Win_set_attr(w[1], wk, NULL));
    OK(MPI_Win_free(&w[0]));
    OK(MPI_Win_free_keyval(&wk));
    OK(MPI_Win_free_keyval(&wk_copy));
    OK(MPI_Win_free(&w[1]));
    OK(MPI_Free_mem(base[0]));
    OK(MPI_Free_mem(base[1]));

    /* Now that no attribute holds them, the keyvals are gone. */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    FAILS(MPI_Type_free_keyval(&tk_copy), MPI_ERR_KEYVAL);
    FAILS(MPI_Win_free_keyval(&wk_copy), MPI_ERR_KEYVAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

static int refuse, deletes, copies;

static int refusing_delete(MPI_Comm c, int key, void *val, void *extra) {
    if (refuse) return MPI_ERR_OTHER;
    deletes++;
    return MPI_SUCCESS;
}
static int counting_copy(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag) {
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}
static int bomb_copy(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag) {
    *flag = 1;
    return MPI_ERR_OTHER;
}
static int bomb_type_copy(MPI_Datatype t, int key, void *extra, void *in, void *out, int *flag) {
    *flag = 1;
    return MPI_ERR_OTHER;
}

static void failing_callbacks(void) {
    MPI_Comm c, d = MPI_COMM_SELF;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int k;
    OK(MPI_Comm_create_keyval(counting_copy, refusing_delete, &k, NULL));
    OK(MPI_Comm_set_attr(c, k, (void *)1));
    refuse = 1;
    FAILS(MPI_Comm_set_attr(c, k, (void *)2), MPI_ERR_OTHER);
    FAILS(MPI_Comm_delete_attr(c, k), MPI_ERR_OTHER);
    void *v;
    int flag;
    OK(MPI_Comm_get_attr(c, k, &v, &flag));
    CHECK(flag && v == (void *)1, "a failed set or delete changed the attribute: %d %p", flag, v);
    FAILS(MPI_Comm_free(&c), MPI_ERR_OTHER);
    CHECK(c != MPI_COMM_NULL, "a failed Comm_free set MPI_COMM_NULL");
    OK(MPI_Barrier(c)); /* still a communicator */

    /* A failing copy function: the duplicate is not made, the copies made are
     * deleted. */
    int bomb;
    OK(MPI_Comm_create_keyval(bomb_copy, MPI_COMM_NULL_DELETE_FN, &bomb, NULL));
    OK(MPI_Comm_set_attr(c, bomb, NULL));
    refuse = 0;
    deletes = copies = 0;
    FAILS(MPI_Comm_dup(c, &d), MPI_ERR_OTHER);
    CHECK(d == MPI_COMM_NULL, "a failed Comm_dup gave a communicator");
    CHECK(copies == 1 && deletes == 1, "the copy made before the failure: %d copies, %d deletes", copies, deletes);
    OK(MPI_Comm_delete_attr(c, bomb));
    OK(MPI_Comm_free_keyval(&bomb));
    OK(MPI_Comm_free(&c));
    CHECK(deletes == 2, "Comm_free deleted %d attributes", deletes - 1);
    OK(MPI_Comm_free_keyval(&k));

    MPI_Datatype t, t2 = MPI_INT;
    int tk;
    OK(MPI_Type_dup(MPI_DOUBLE, &t));
    OK(MPI_Type_create_keyval(bomb_type_copy, MPI_TYPE_NULL_DELETE_FN, &tk, NULL));
    OK(MPI_Type_set_attr(t, tk, NULL));
    FAILS(MPI_Type_dup(t, &t2), MPI_ERR_OTHER);
    CHECK(t2 == MPI_DATATYPE_NULL, "a failed Type_dup gave a datatype");
    OK(MPI_Type_free(&t));
    OK(MPI_Type_free_keyval(&tk));
}

static void keyval_errors(int n) {
    int ck, tk, wk;
    OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ck, NULL));
    OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tk, NULL));
    OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &wk, NULL));
    MPI_Win w;
    void *base;
    OK(MPI_Win_allocate(8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w));
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    void *v;
    int flag;
    /* another kind's keyval */
    FAILS(MPI_Comm_set_attr(MPI_COMM_WORLD, tk, NULL), MPI_ERR_KEYVAL);
    FAILS(MPI_Comm_get_attr(MPI_COMM_WORLD, wk, &v, &flag), MPI_ERR_KEYVAL);
    FAILS(MPI_Comm_delete_attr(MPI_COMM_WORLD, tk), MPI_ERR_KEYVAL);
    FAILS(MPI_Type_set_attr(MPI_INT, ck, NULL), MPI_ERR_KEYVAL);
    FAILS(MPI_Win_set_attr(w, ck, NULL), MPI_ERR_KEYVAL);
    FAILS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WIN_BASE, &v, &flag), MPI_ERR_KEYVAL);
    FAILS(MPI_Win_get_attr(w, MPI_TAG_UB, &v, &flag), MPI_ERR_KEYVAL);
    FAILS(MPI_Type_get_attr(MPI_INT, MPI_TAG_UB, &v, &flag), MPI_ERR_KEYVAL);
    int wk2 = wk;
    FAILS(MPI_Comm_free_keyval(&wk2), MPI_ERR_KEYVAL);
    FAILS(MPI_Type_free_keyval(&ck), MPI_ERR_KEYVAL);
    /* predefined keyvals are read-only */
    FAILS(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL), MPI_ERR_KEYVAL);
    FAILS(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE), MPI_ERR_KEYVAL);
    FAILS(MPI_Win_set_attr(w, MPI_WIN_SIZE, NULL), MPI_ERR_KEYVAL);
    int pk = MPI_APPNUM;
    FAILS(MPI_Comm_free_keyval(&pk), MPI_ERR_KEYVAL);
    pk = MPI_WIN_MODEL;
    FAILS(MPI_Win_free_keyval(&pk), MPI_ERR_KEYVAL);
    /* no keyval at all */
    FAILS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &v, &flag), MPI_ERR_KEYVAL);
    FAILS(MPI_Comm_set_attr(MPI_COMM_WORLD, 123456, NULL), MPI_ERR_KEYVAL);
    /* deleting an attribute not set is nothing to do */
    OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, ck));
    OK(MPI_Type_delete_attr(MPI_INT, tk));
    OK(MPI_Win_delete_attr(w, wk));
    /* a keyval freed with no attribute is gone */
    int ck_copy = ck;
    OK(MPI_Comm_free_keyval(&ck));
    FAILS(MPI_Comm_free_keyval(&ck_copy), MPI_ERR_KEYVAL);
    FAILS(MPI_Comm_set_attr(MPI_COMM_WORLD, ck_copy, NULL), MPI_ERR_KEYVAL);
    OK(MPI_Type_free_keyval(&tk));
    OK(MPI_Win_free_keyval(&wk));

    /* the predefined attributes (9.1.2, 11.10) */
    int *p;
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &p, &flag));
    CHECK(flag && *p == MPI_ANY_SOURCE, "MPI_IO = %d: every process can do I/O", *p);
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &p, &flag));
    CHECK(flag && *p == MPI_PROC_NULL, "MPI_HOST = %d", *p);
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag));
    CHECK(flag && *p >= 32767, "MPI_TAG_UB = %d", *p);
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &p, &flag));
    CHECK(flag && *p == 0, "MPI_WTIME_IS_GLOBAL = %d", *p);
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &p, &flag));
    CHECK(flag && *p >= n, "MPI_UNIVERSE_SIZE = %d", *p);
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &p, &flag));
    CHECK(flag && *p == 0, "MPI_APPNUM = %d", *p);
    int last = -1, cls;
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &p, &flag));
    last = *p;
    OK(MPI_Add_error_class(&cls));
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &p, &flag));
    CHECK(flag && *p == cls && cls > last, "MPI_LASTUSEDCODE = %d after adding class %d", *p, cls);
    int *model;
    OK(MPI_Win_get_attr(w, MPI_WIN_MODEL, &model, &flag));
    CHECK(flag && *model == MPI_WIN_UNIFIED, "MPI_WIN_MODEL = %d", *model);
    OK(MPI_Win_free(&w));
}

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    double_free();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    failing_callbacks();
    keyval_errors(n);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    OK(MPI_Finalize()); /* SELF's attributes: the fourth frees of both keyvals */
    if (rank == 0) printf("OK keyval\n");
    return 0;
}

/* dtypeargs.c - the datatype calls' answers where the C and Go faces of mpigo once
 * disagreed, now mpir's for both (the Go test is TestDatatypeFacesAgree): error
 * classes of bad counts and packing positions, queries on an uncommitted type,
 * MPI_Status_set_elements through a struct of mixed elements, names, and the pair type
 * of a fixed-width value. Run on 1 rank. */
#include "check.h"
#include <string.h>

int main(int argc, char **argv) {
    MPI_Datatype t, st;
    MPI_Status status;
    int n, len;
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    /* a count or block length below zero is MPI_ERR_COUNT */
    FAILS(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    FAILS(MPI_Type_contiguous_c(-1, MPI_INT, &t), MPI_ERR_COUNT);
    FAILS(MPI_Type_vector(2, -1, 4, MPI_INT, &t), MPI_ERR_COUNT);
    {
        int bl[2] = {1, -3}, d[2] = {0, 4};
        FAILS(MPI_Type_indexed(2, bl, d, MPI_INT, &t), MPI_ERR_COUNT);
        FAILS(MPI_Type_indexed(-2, bl, d, MPI_INT, &t), MPI_ERR_COUNT);
    }
    {
        MPI_Aint sz;
        FAILS(MPI_Pack_external_size("external32", -1, MPI_INT, &sz), MPI_ERR_COUNT);
    }
    FAILS(MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    FAILS(MPI_Type_free(&(MPI_Datatype){MPI_INT}), MPI_ERR_TYPE);

    /* {double; short; short}: the queries take it uncommitted */
    {
        int bl[2] = {1, 2};
        MPI_Aint d[2] = {0, 8};
        MPI_Datatype ts[2] = {MPI_DOUBLE, MPI_SHORT};
        OK(MPI_Type_create_struct(2, bl, d, ts, &st));
    }
    OK(MPI_Pack_size(3, st, MPI_COMM_WORLD, &n));
    CHECK(n == 36, "MPI_Pack_size of 3 uncommitted structs: %d, want 36", n);
    /* MPI_Status_set_elements records what MPI_Get_elements gives back, through a
     * partly filled struct: 4 elements are a struct and its double */
    OK(MPI_Status_set_elements(&status, st, 4));
    OK(MPI_Get_elements(&status, st, &n));
    CHECK(n == 4, "set 4 elements, MPI_Get_elements says %d", n);
    OK(MPI_Get_count(&status, st, &n));
    CHECK(n == MPI_UNDEFINED, "4 elements of {double; short; short}: MPI_Get_count %d, want MPI_UNDEFINED", n);
    OK(MPI_Status_set_elements(&status, st, 2));
    OK(MPI_Get_elements(&status, st, &n));
    CHECK(n == 2, "set 2 elements, MPI_Get_elements says %d", n);
    FAILS(MPI_Status_set_elements(&status, st, -1), MPI_ERR_COUNT);

    /* packing: a position outside the buffer is MPI_ERR_ARG, too little room
     * MPI_ERR_TRUNCATE, and neither moves the position */
    OK(MPI_Type_commit(&st));
    {
        char out[40], in[64] = {0};
        int pos = 41;
        FAILS(MPI_Pack(in, 1, st, out, 40, &pos, MPI_COMM_WORLD), MPI_ERR_ARG);
        pos = 30;
        FAILS(MPI_Pack(in, 1, st, out, 40, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
        CHECK(pos == 30, "a failed MPI_Pack moved the position to %d", pos);
        pos = 28;
        OK(MPI_Pack(in, 1, st, out, 40, &pos, MPI_COMM_WORLD));
        CHECK(pos == 40, "MPI_Pack of 12 bytes at 28: position %d", pos);
        pos = 30;
        FAILS(MPI_Unpack(out, 40, &pos, in, 1, st, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    }
    OK(MPI_Type_free(&st));

    /* names: a long one is cut to MPI_MAX_OBJECT_NAME-1; the null handles have theirs */
    {
        char long_name[300], name[MPI_MAX_OBJECT_NAME];
        memset(long_name, 'x', sizeof long_name - 1);
        long_name[sizeof long_name - 1] = 0;
        OK(MPI_Type_contiguous(2, MPI_INT, &t));
        OK(MPI_Type_set_name(t, long_name));
        OK(MPI_Type_get_name(t, name, &len));
        CHECK(len == MPI_MAX_OBJECT_NAME - 1 && strlen(name) == (size_t)len, "a long name came back %d bytes", len);
        OK(MPI_Type_free(&t));
        OK(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len));
        CHECK(strcmp(name, "MPI_DATATYPE_NULL") == 0 && len == 17, "MPI_DATATYPE_NULL is named %s", name);
        OK(MPI_Type_get_name(MPI_INT32_T, name, &len));
        CHECK(strcmp(name, "MPI_INT32_T") == 0, "MPI_INT32_T is named %s", name);
        /* the other null handles with names (MPICH's comm/commname asks for it) */
        OK(MPI_Comm_get_name(MPI_COMM_NULL, name, &len));
        CHECK(strcmp(name, "MPI_COMM_NULL") == 0 && len == 13, "MPI_COMM_NULL is named %s", name);
        OK(MPI_Win_get_name(MPI_WIN_NULL, name, &len));
        CHECK(strcmp(name, "MPI_WIN_NULL") == 0 && len == 12, "MPI_WIN_NULL is named %s", name);
    }

    /* the pair types of MAXLOC: int64_t is long here, int32_t int */
    OK(MPI_Type_get_value_index(MPI_INT64_T, MPI_INT, &t));
    CHECK(t == MPI_LONG_INT, "value index (MPI_INT64_T, MPI_INT) is not MPI_LONG_INT");
    OK(MPI_Type_get_value_index(MPI_FLOAT, MPI_INT32_T, &t));
    CHECK(t == MPI_FLOAT_INT, "value index (MPI_FLOAT, MPI_INT32_T) is not MPI_FLOAT_INT");
    OK(MPI_Type_get_value_index(MPI_FLOAT, MPI_FLOAT, &t));
    CHECK(t == MPI_DATATYPE_NULL, "value index (MPI_FLOAT, MPI_FLOAT) is not MPI_DATATYPE_NULL");
    FAILS(MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &t), MPI_ERR_TYPE);

    OK(MPI_Finalize());
    printf("OK dtypeargs\n");
    return 0;
}

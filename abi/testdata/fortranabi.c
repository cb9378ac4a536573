/* fortranabi.c - the Fortran ABI procedures of MPI 5.0 (§21.4.1) as a Fortran layer
 * built on the C ABI uses them: mpigo knows no Fortran compiler until told; the first
 * MPI_Abi_set_fortran_info and MPI_Abi_set_fortran_booleans take effect (here: an
 * INTEGER and a REAL of 8 bytes, a DOUBLE PRECISION of 16, no INTEGER*16 nor REAL*2,
 * and .TRUE. spelt -1), every later one fails with MPI_ERR_ABI. Two ranks. */
#include <stdint.h>
#include <string.h>
#include "check.h"

static void fails(int rc, int want, const char *what) {
    int cls = -1;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == want, "%s: error class %d, want %d", what, cls, want);
}

static void has(MPI_Info info, const char *key, const char *want) {
    char v[MPI_MAX_INFO_VAL];
    int len = sizeof v, flag;
    OK(MPI_Info_get_string(info, key, &len, v, &flag));
    CHECK(flag && strcmp(v, want) == 0, "Fortran info %s: %s, want %s", key, flag ? v : "(absent)", want);
}

static int size_of(MPI_Datatype t) {
    int n;
    OK(MPI_Type_size(t, &n));
    return n;
}

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    int rank;
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    /* The calls have no communicator: their errors go to MPI_COMM_SELF's handler. */
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

    /* Not told yet: MPI_INFO_NULL and is_set false; the types keep their defaults. */
    MPI_Info info;
    OK(MPI_Abi_get_fortran_info(&info));
    CHECK(info == MPI_INFO_NULL, "Fortran info before any set");
    int32_t t4, f4;
    int is_set = -1;
    OK(MPI_Abi_get_fortran_booleans(4, &t4, &f4, &is_set));
    CHECK(is_set == 0, "is_set %d before any set", is_set);
    CHECK(size_of(MPI_INTEGER) == 4 && size_of(MPI_DOUBLE_PRECISION) == 8, "default sizes");

    /* A value mpigo cannot take fails and changes nothing. */
    MPI_Info bad;
    OK(MPI_Info_create(&bad));
    OK(MPI_Info_set(bad, "mpi_integer_size", "3"));
    fails(MPI_Abi_set_fortran_info(bad), MPI_ERR_ABI, "an INTEGER of 3 bytes");
    OK(MPI_Info_set(bad, "mpi_integer_size", "four"));
    fails(MPI_Abi_set_fortran_info(bad), MPI_ERR_INFO_VALUE, "an INTEGER of \"four\" bytes");
    OK(MPI_Info_free(&bad));
    OK(MPI_Abi_get_fortran_info(&info));
    CHECK(info == MPI_INFO_NULL, "a failed set set something");

    MPI_Info set;
    OK(MPI_Info_create(&set));
    OK(MPI_Info_set(set, "mpi_logical_size", "4"));
    OK(MPI_Info_set(set, "mpi_integer_size", "8"));
    OK(MPI_Info_set(set, "mpi_real_size", "8"));
    OK(MPI_Info_set(set, "mpi_double_precision_size", "16"));
    OK(MPI_Info_set(set, "mpi_integer16_supported", "false"));
    OK(MPI_Info_set(set, "mpi_real2_supported", "false"));
    OK(MPI_Abi_set_fortran_info(set));
    fails(MPI_Abi_set_fortran_info(set), MPI_ERR_ABI, "a second MPI_Abi_set_fortran_info");
    OK(MPI_Info_free(&set));

    OK(MPI_Abi_get_fortran_info(&info));
    CHECK(info != MPI_INFO_NULL, "no Fortran info after a set");
    int nkeys;
    OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 23, "the Fortran info has %d keys, want the standard's 23", nkeys);
    has(info, "mpi_integer_size", "8");
    has(info, "mpi_double_precision_size", "16");
    has(info, "mpi_integer16_supported", "false");
    has(info, "mpi_real4_supported", "true");
    OK(MPI_Info_free(&info));

    CHECK(size_of(MPI_LOGICAL) == 4 && size_of(MPI_INTEGER) == 8 && size_of(MPI_REAL) == 8 &&
          size_of(MPI_DOUBLE_PRECISION) == 16 && size_of(MPI_COMPLEX) == 16 &&
          size_of(MPI_DOUBLE_COMPLEX) == 32 && size_of(MPI_2INTEGER) == 16 && size_of(MPI_2REAL) == 16,
          "the default kinds' sizes: LOGICAL %d INTEGER %d REAL %d DOUBLE PRECISION %d COMPLEX %d",
          size_of(MPI_LOGICAL), size_of(MPI_INTEGER), size_of(MPI_REAL), size_of(MPI_DOUBLE_PRECISION),
          size_of(MPI_COMPLEX));
    CHECK(size_of(MPI_INTEGER16) == MPI_UNDEFINED && size_of(MPI_REAL2) == MPI_UNDEFINED &&
          size_of(MPI_INTEGER8) == 8, "the optional types: INTEGER16 %d REAL2 %d INTEGER8 %d",
          size_of(MPI_INTEGER16), size_of(MPI_REAL2), size_of(MPI_INTEGER8));
    MPI_Count csize;
    OK(MPI_Type_size_c(MPI_INTEGER16, &csize));
    CHECK(csize == MPI_UNDEFINED, "MPI_Type_size_c of an unsupported type: %lld", (long long)csize);
    MPI_Datatype matched;
    fails(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 16, &matched), MPI_ERR_ARG, "match_size of an unsupported size");

    /* The redefined types move and reduce as their new sizes. */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int64_t ints[2] = {(int64_t)1 << 40, rank + 1}, sums[2];
    OK(MPI_Allreduce(ints, sums, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sums[0] == (int64_t)1 << 41 && sums[1] == 3, "MPI_SUM on 8-byte INTEGERs: %lld %lld",
          (long long)sums[0], (long long)sums[1]);
    fails(MPI_Allreduce(ints, sums, 1, MPI_INTEGER16, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE,
          "an unsupported type in a reduction");

    /* The booleans: -1 for .TRUE., as some compilers spell it. */
    int32_t yes = -1, no = 0;
    fails(MPI_Abi_set_fortran_booleans(8, &yes, &no), MPI_ERR_ABI, "booleans of 8 bytes for a LOGICAL of 4");
    OK(MPI_Abi_set_fortran_booleans(4, &yes, &no));
    fails(MPI_Abi_set_fortran_booleans(4, &yes, &no), MPI_ERR_ABI, "a second MPI_Abi_set_fortran_booleans");
    OK(MPI_Abi_get_fortran_booleans(4, &t4, &f4, &is_set));
    CHECK(is_set == 1 && t4 == -1 && f4 == 0, "the booleans: is_set %d true %d false %d", is_set, t4, f4);
    int64_t t8, f8;
    fails(MPI_Abi_get_fortran_booleans(8, &t8, &f8, &is_set), MPI_ERR_ABI, "the booleans for 8 bytes");

    /* Rank 0 holds T T F F, rank 1 T F T F, where a true is -1 or, not being .FALSE., 1. */
    int32_t in[4], out[4];
    int32_t mine[2][4] = {{-1, 1, 0, 0}, {1, 0, -1, 0}};
    memcpy(in, mine[rank], sizeof in);
    int32_t want[3][4] = {{-1, 0, 0, 0}, {-1, -1, -1, 0}, {0, -1, -1, 0}};
    MPI_Op ops[3] = {MPI_LAND, MPI_LOR, MPI_LXOR};
    for (int k = 0; k < 3; k++) {
        OK(MPI_Allreduce(in, out, 4, MPI_LOGICAL, ops[k], MPI_COMM_WORLD));
        CHECK(memcmp(out, want[k], sizeof out) == 0, "logical op %d: %d %d %d %d", k, out[0], out[1], out[2], out[3]);
    }
    int8_t in1[2] = {rank == 0 ? 1 : -1, 0}, out1[2];
    OK(MPI_Allreduce(in1, out1, 2, MPI_LOGICAL1, MPI_LOR, MPI_COMM_WORLD));
    CHECK(out1[0] == -1 && out1[1] == 0, "MPI_LOR on LOGICAL*1: %d %d", out1[0], out1[1]);

    OK(MPI_Finalize());
    if (rank == 0) printf("OK fortranabi\n");
    return 0;
}

/* constants.c - the handle values, constants and layouts the MPI 5.0 ABI fixes, as a
 * program compiled against mpigo's mpi.h sees them, and that the library agrees. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "check.h"

#define VAL(h, v) CHECK((intptr_t)(h) == (v), "%s is %#lx, want %#x", #h, (long)(intptr_t)(h), (v))

int main(int argc, char **argv) {
    VAL(MPI_OP_NULL, 0x20); VAL(MPI_SUM, 0x21); VAL(MPI_MIN, 0x22); VAL(MPI_MAX, 0x23);
    VAL(MPI_PROD, 0x24); VAL(MPI_BAND, 0x28); VAL(MPI_BOR, 0x29); VAL(MPI_BXOR, 0x2a);
    VAL(MPI_LAND, 0x30); VAL(MPI_LOR, 0x31); VAL(MPI_LXOR, 0x32); VAL(MPI_MINLOC, 0x38);
    VAL(MPI_MAXLOC, 0x39); VAL(MPI_REPLACE, 0x3c); VAL(MPI_NO_OP, 0x3d);
    VAL(MPI_COMM_NULL, 0x100); VAL(MPI_COMM_WORLD, 0x101); VAL(MPI_COMM_SELF, 0x102);
    VAL(MPI_GROUP_NULL, 0x108); VAL(MPI_GROUP_EMPTY, 0x109); VAL(MPI_WIN_NULL, 0x110);
    VAL(MPI_FILE_NULL, 0x118); VAL(MPI_SESSION_NULL, 0x120); VAL(MPI_MESSAGE_NULL, 0x128);
    VAL(MPI_MESSAGE_NO_PROC, 0x129); VAL(MPI_INFO_NULL, 0x130); VAL(MPI_INFO_ENV, 0x131);
    VAL(MPI_ERRHANDLER_NULL, 0x140); VAL(MPI_ERRORS_ARE_FATAL, 0x141);
    VAL(MPI_ERRORS_RETURN, 0x142); VAL(MPI_ERRORS_ABORT, 0x143); VAL(MPI_REQUEST_NULL, 0x180);
    VAL(MPI_DATATYPE_NULL, 0x200); VAL(MPI_AINT, 0x201); VAL(MPI_COUNT, 0x202);
    VAL(MPI_OFFSET, 0x203); VAL(MPI_PACKED, 0x207); VAL(MPI_SHORT, 0x208); VAL(MPI_INT, 0x209);
    VAL(MPI_LONG, 0x20a); VAL(MPI_LONG_LONG, 0x20b); VAL(MPI_UNSIGNED, 0x20d);
    VAL(MPI_FLOAT, 0x210); VAL(MPI_DOUBLE, 0x214); VAL(MPI_LONG_DOUBLE, 0x220);
    VAL(MPI_FLOAT_INT, 0x228); VAL(MPI_DOUBLE_INT, 0x229); VAL(MPI_2INT, 0x22b);
    VAL(MPI_C_BOOL, 0x238); VAL(MPI_INT8_T, 0x240); VAL(MPI_CHAR, 0x243); VAL(MPI_BYTE, 0x247);
    VAL(MPI_INT64_T, 0x258); VAL(MPI_UINT64_T, 0x259); VAL(MPI_COMPLEX32, 0x2eb);
    VAL(MPI_BOTTOM, 0); VAL(MPI_IN_PLACE, 1); VAL(MPI_BUFFER_AUTOMATIC, 2);
    VAL(MPI_STATUS_IGNORE, 0); VAL(MPI_UNWEIGHTED, 10); VAL(MPI_WEIGHTS_EMPTY, 11);
    CHECK(MPI_ANY_SOURCE == -1 && MPI_ANY_TAG == -2 && MPI_PROC_NULL == -3 && MPI_ROOT == -4, "wildcards");
    CHECK(MPI_UNDEFINED == -32766, "MPI_UNDEFINED");
    CHECK(MPI_THREAD_SINGLE == 0 && MPI_THREAD_FUNNELED == 1024 && MPI_THREAD_SERIALIZED == 2048 &&
          MPI_THREAD_MULTIPLE == 4096, "thread levels");
    CHECK(MPI_ERR_TRUNCATE == 15 && MPI_ERR_PENDING == 18 && MPI_ERR_IN_STATUS == 19 &&
          MPI_ERR_INFO == 34 && MPI_ERR_KEYVAL == 36 && MPI_ERR_UNSUPPORTED_OPERATION == 55 &&
          MPI_ERR_ERRHANDLER == 61 && MPI_ERR_LASTCODE == 0x3fff, "error classes");
    CHECK(MPI_IDENT == 201 && MPI_UNEQUAL == 204 && MPI_COMBINER_NAMED == 101 &&
          MPI_TAG_UB == 501 && MPI_LASTUSEDCODE == 507 && MPI_KEYVAL_INVALID == 0, "enums");
    CHECK(MPI_MAX_ERROR_STRING == 512 && MPI_MAX_PROCESSOR_NAME == 256 &&
          MPI_MAX_OBJECT_NAME == 128 && MPI_BSEND_OVERHEAD == 512, "string lengths");
    CHECK(sizeof(MPI_Status) == 32 && offsetof(MPI_Status, MPI_SOURCE) == 0 &&
          offsetof(MPI_Status, MPI_TAG) == 4 && offsetof(MPI_Status, MPI_ERROR) == 8, "status layout");
    CHECK(sizeof(MPI_Aint) == sizeof(void *) && sizeof(MPI_Offset) == 8 && sizeof(MPI_Count) == 8, "integer widths");
    CHECK(sizeof(MPI_Comm) == sizeof(void *), "handles are pointers");

    OK(MPI_Init(&argc, &argv));
    int v, sv;
    OK(MPI_Get_version(&v, &sv));
    CHECK(v == 5 && sv == 0, "version %d.%d", v, sv);
    OK(MPI_Abi_get_version(&v, &sv));
    CHECK(v == 1 && sv == 0, "ABI version %d.%d", v, sv);
    CHECK(MPI_Comm_toint(MPI_COMM_WORLD) == 0x101 && MPI_Comm_fromint(0x102) == MPI_COMM_SELF, "toint");
    MPI_Comm dup;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK(MPI_Comm_fromint(MPI_Comm_toint(dup)) == dup, "a created handle round-trips");
    CHECK((intptr_t)dup >= 0x400, "a created handle is above the predefined range: %#lx", (long)(intptr_t)dup);
    int size, tsize;
    OK(MPI_Comm_size(dup, &size));
    OK(MPI_Type_size(MPI_LONG_DOUBLE, &tsize));
    CHECK(tsize == sizeof(long double), "MPI_LONG_DOUBLE size %d", tsize);
    OK(MPI_Type_size(MPI_DOUBLE_INT, &tsize));
    CHECK(tsize == 12, "MPI_DOUBLE_INT size %d", tsize);
    MPI_Aint lb, ext;
    OK(MPI_Type_get_extent(MPI_DOUBLE_INT, &lb, &ext));
    struct { double d; int i; } di;
    CHECK(lb == 0 && ext == sizeof di, "MPI_DOUBLE_INT extent %ld", (long)ext);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    OK(MPI_Type_get_name(MPI_UNSIGNED_LONG_LONG, name, &len));
    CHECK(strcmp(name, "MPI_UNSIGNED_LONG_LONG") == 0 && len == (int)strlen(name), "name %s", name);
    int *tagub, flag;
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tagub, &flag));
    CHECK(flag && *tagub >= 32767, "MPI_TAG_UB");
    OK(MPI_Comm_free(&dup));
    CHECK(dup == MPI_COMM_NULL, "Comm_free sets MPI_COMM_NULL");
    OK(MPI_Finalize());
    int fin;
    OK(MPI_Finalized(&fin));
    CHECK(fin, "finalized");
    printf("OK constants\n");
    return 0;
}

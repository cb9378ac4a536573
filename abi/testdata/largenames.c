/* largenames.c - the large-count (_c) and MPI_Count (_x) forms report their errors under
 * their own names: each call below fails on an argument this process checks alone (a
 * root or rank out of range, a negative count, a NULL output, a null handle), under
 * MPI_ERRORS_RETURN, and prints "ERR <call> <text>" for abi_test.go's
 * TestLargeCountFormsNameThemselves. */
#include <mpi.h>
#include <stdio.h>
#include "errshow.h"

#define SHOW(call, ...) show(call(__VA_ARGS__), #call)

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm w = MPI_COMM_WORLD;
    double b[8];
    MPI_Count c, counts[1] = {-1}, lb, ext;
    MPI_Aint displs[1] = {0};
    MPI_Request r;
    MPI_Datatype t, ts[1] = {MPI_DOUBLE};

    SHOW(MPI_Bcast_c, b, 1, MPI_DOUBLE, 99, w);
    SHOW(MPI_Ibcast_c, b, 1, MPI_DOUBLE, 99, w, &r);
    SHOW(MPI_Bcast_init_c, b, 1, MPI_DOUBLE, 99, w, MPI_INFO_NULL, &r);
    SHOW(MPI_Reduce_c, b, b + 1, 1, MPI_DOUBLE, MPI_SUM, 99, w);
    SHOW(MPI_Allreduce_c, b, b + 1, -1, MPI_DOUBLE, MPI_SUM, w);
    SHOW(MPI_Iallreduce_c, b, b + 1, -1, MPI_DOUBLE, MPI_SUM, w, &r);
    SHOW(MPI_Gather_c, b, 1, MPI_DOUBLE, b + 1, 1, MPI_DOUBLE, 99, w);
    SHOW(MPI_Alltoallw_c, b, counts, displs, ts, b + 1, counts, displs, ts, w);
    SHOW(MPI_Neighbor_allgather_c, b, 1, MPI_DOUBLE, b + 1, 1, MPI_DOUBLE, w);
    SHOW(MPI_Send_c, b, 1, MPI_DOUBLE, 99, 0, w);
    SHOW(MPI_Isend_c, b, 1, MPI_DOUBLE, 99, 0, w, &r);
    SHOW(MPI_Ssend_init_c, b, 1, MPI_DOUBLE, 99, 0, w, &r);
    SHOW(MPI_Recv_c, b, 1, MPI_DOUBLE, 99, 0, w, MPI_STATUS_IGNORE);
    SHOW(MPI_Irecv_c, b, 1, MPI_DOUBLE, 99, 0, w, &r);
    SHOW(MPI_Sendrecv_c, b, 1, MPI_DOUBLE, 99, 0, b + 1, 1, MPI_DOUBLE, 0, 0, w, MPI_STATUS_IGNORE);
    SHOW(MPI_Sendrecv_replace_c, b, 1, MPI_DOUBLE, 99, 0, 0, 0, w, MPI_STATUS_IGNORE);
    SHOW(MPI_Isendrecv_c, b, 1, MPI_DOUBLE, 99, 0, b + 1, 1, MPI_DOUBLE, 0, 0, w, &r);
    SHOW(MPI_Mrecv_c, b, 1, MPI_DOUBLE, NULL, MPI_STATUS_IGNORE);
    SHOW(MPI_Type_size_c, MPI_DOUBLE, NULL);
    SHOW(MPI_Type_size_x, MPI_DOUBLE, NULL);
    SHOW(MPI_Type_get_extent_c, MPI_DOUBLE, &lb, NULL);
    SHOW(MPI_Type_get_extent_x, MPI_DOUBLE, &lb, NULL);
    SHOW(MPI_Type_get_true_extent_c, MPI_DOUBLE, NULL, &ext);
    SHOW(MPI_Get_count_c, NULL, MPI_DOUBLE, &c);
    SHOW(MPI_Get_elements_x, NULL, MPI_DOUBLE, &c);
    SHOW(MPI_Status_set_elements_c, NULL, MPI_DOUBLE, 1);
    SHOW(MPI_Pack_c, b, -1, MPI_DOUBLE, b + 1, 8, &c, w);
    SHOW(MPI_Pack_external_c, "no-such-rep", b, 1, MPI_DOUBLE, b + 1, 8, &c);
    SHOW(MPI_Type_contiguous_c, -1, MPI_DOUBLE, &t);
    SHOW(MPI_Type_vector_c, -1, 1, 1, MPI_DOUBLE, &t);
    SHOW(MPI_Type_indexed_c, -1, counts, counts, MPI_DOUBLE, &t);
    SHOW(MPI_Type_create_struct_c, -1, counts, counts, ts, &t);
    SHOW(MPI_Type_create_resized_c, MPI_DATATYPE_NULL, 0, 8, &t);
    SHOW(MPI_Op_create_c, NULL, 1, NULL);
    SHOW(MPI_Buffer_attach_c, b, -1);
    SHOW(MPI_Win_create_c, b, -1, 8, MPI_INFO_NULL, w, NULL);
    SHOW(MPI_Put_c, b, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_WIN_NULL);
    SHOW(MPI_Rget_c, b, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_WIN_NULL, &r);
    SHOW(MPI_File_read_at_c, MPI_FILE_NULL, 0, b, 1, MPI_DOUBLE, MPI_STATUS_IGNORE);
    if (failures == 0) printf("OK largenames\n");
    MPI_Finalize();
    return 0;
}

/* The procedures simple enough to be C: the handle-integer conversions (handles are
 * positive C ints in mpigo, handle.h, so a handle is its own integer), address
 * arithmetic, the status accessors, and MPI_Pcontrol, which is variadic (cgo cannot
 * export it): its level goes to the Go half, mpir's, which flushes mpigo's profile at
 * level 2. */
#include <stddef.h>
#include <stdint.h>
#include "mpi.h"

#define CONV(T, Name) \
    T PMPI_##Name##_fromint(int i) { return (T)(intptr_t)i; } \
    int PMPI_##Name##_toint(T h) { return (int)(intptr_t)h; }

CONV(MPI_Comm, Comm)
CONV(MPI_Errhandler, Errhandler)
CONV(MPI_File, File)
CONV(MPI_Group, Group)
CONV(MPI_Info, Info)
CONV(MPI_Message, Message)
CONV(MPI_Op, Op)
CONV(MPI_Request, Request)
CONV(MPI_Session, Session)
CONV(MPI_Datatype, Type)
CONV(MPI_Win, Win)

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) { return base + disp; }
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) { return addr1 - addr2; }

extern int goPMPI_Pcontrol(int level);
int PMPI_Pcontrol(const int level, ...) { return goPMPI_Pcontrol(level); }
int MPI_Pcontrol(const int level, ...) { return goPMPI_Pcontrol(level); }

/* The status accessors. A NULL status or output goes to the Go half, which refuses it
 * (MPI_ERR_ARG through the error handler). (zgo.h declares the halves too, but also
 * MPI_Pcontrol's as variadic, which it is not.) */
extern int goPMPI_Status_get_source(const MPI_Status *status, int *source);
extern int goPMPI_Status_get_tag(const MPI_Status *status, int *tag);
extern int goPMPI_Status_get_error(const MPI_Status *status, int *error);
extern int goPMPI_Status_set_source(MPI_Status *status, int source);
extern int goPMPI_Status_set_tag(MPI_Status *status, int tag);
extern int goPMPI_Status_set_error(MPI_Status *status, int error);
int PMPI_Status_get_source(const MPI_Status *s, int *v) {
    if (s == NULL || v == NULL) return goPMPI_Status_get_source(s, v);
    *v = s->MPI_SOURCE;
    return MPI_SUCCESS;
}
int PMPI_Status_get_tag(const MPI_Status *s, int *v) {
    if (s == NULL || v == NULL) return goPMPI_Status_get_tag(s, v);
    *v = s->MPI_TAG;
    return MPI_SUCCESS;
}
int PMPI_Status_get_error(const MPI_Status *s, int *v) {
    if (s == NULL || v == NULL) return goPMPI_Status_get_error(s, v);
    *v = s->MPI_ERROR;
    return MPI_SUCCESS;
}
int PMPI_Status_set_source(MPI_Status *s, int v) {
    if (s == NULL) return goPMPI_Status_set_source(s, v);
    s->MPI_SOURCE = v;
    return MPI_SUCCESS;
}
int PMPI_Status_set_tag(MPI_Status *s, int v) {
    if (s == NULL) return goPMPI_Status_set_tag(s, v);
    s->MPI_TAG = v;
    return MPI_SUCCESS;
}
int PMPI_Status_set_error(MPI_Status *s, int v) {
    if (s == NULL) return goPMPI_Status_set_error(s, v);
    s->MPI_ERROR = v;
    return MPI_SUCCESS;
}

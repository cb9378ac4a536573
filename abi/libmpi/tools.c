/* tools.c - the trampolines through which the tool interface (tools_events.go) calls
 * a C program's event callbacks, given as integers. */
#define MPIGO_ABI_NO_PROTOTYPES 1
#include "mpi.h"

void call_event_cb(uintptr_t fn, uintptr_t inst, uintptr_t reg, int safety, void *ud) {
    ((MPI_T_event_cb_function *)fn)((MPI_T_event_instance)inst, (MPI_T_event_registration)reg, (MPI_T_cb_safety)safety, ud);
}

void call_free_cb(uintptr_t fn, uintptr_t reg, int safety, void *ud) {
    ((MPI_T_event_free_cb_function *)fn)((MPI_T_event_registration)reg, (MPI_T_cb_safety)safety, ud);
}

void call_dropped_cb(uintptr_t fn, MPI_Count count, uintptr_t reg, int source, int safety, void *ud) {
    ((MPI_T_event_dropped_cb_function *)fn)(count, (MPI_T_event_registration)reg, source, (MPI_T_cb_safety)safety, ud);
}

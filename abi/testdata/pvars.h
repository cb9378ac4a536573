/* pvars.h - the MPI_T performance variables a test reads: one session, a handle per
 * variable, made with pv_watch (after MPI_T_init_thread) and freed with pv_free. A
 * handle of an accumulating variable reads what it gathered since it was made (MPI
 * 4.1 sec. 15.3.7). Include after check.h. */
static MPI_T_pvar_session pv_session;

/* pv_watch makes handles h[k] of the n variables names[k], of class classes[k]. */
static void pv_watch(int n, const char *const *names, const int *classes, MPI_T_pvar_handle *h) {
    OK(MPI_T_pvar_session_create(&pv_session));
    for (int k = 0; k < n; k++) {
        int i, count;
        CHECK(MPI_T_pvar_get_index(names[k], classes[k], &i) == MPI_SUCCESS, "no variable %s of class %d", names[k],
              classes[k]);
        OK(MPI_T_pvar_handle_alloc(pv_session, i, NULL, &h[k], &count));
    }
}

/* pv_free frees the n handles h and the session. */
static void pv_free(int n, MPI_T_pvar_handle *h) {
    for (int k = 0; k < n; k++) OK(MPI_T_pvar_handle_free(pv_session, &h[k]));
    OK(MPI_T_pvar_session_free(&pv_session));
}

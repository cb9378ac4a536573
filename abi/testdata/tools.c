/* tools.c - the tool information interface (MPI_T) through the C ABI, on 2 ranks:
 * initialisation before MPI_Init and after MPI_Finalize, every setting as a control
 * variable (printed for the Go test to compare with mpigo info), writes before and
 * after MPI_Init and their effect, counters that move as messages flow, an event
 * callback per unexpected message, categories, the string convention, and every bad
 * input with the return code the standard names. */
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

#define T_OK(call) CHECK((call) == MPI_SUCCESS, "returned an error")
#define T_FAILS(call, code)                                                      \
    do {                                                                         \
        int rc_ = (call);                                                        \
        CHECK(rc_ == (code), "returned %d, want %s (%d)", rc_, #code, code);     \
    } while (0)

static int rank;

/* cvar finds a control variable by name. */
static int cvar(const char *name) {
    int i;
    T_OK(MPI_T_cvar_get_index(name, &i));
    return i;
}

/* pvar finds a performance variable by name and class. */
static int pvar(const char *name, int cls) {
    int i;
    T_OK(MPI_T_pvar_get_index(name, cls, &i));
    return i;
}

/* set_word writes the item named word of an enumerated control variable. */
static void set_word(const char *name, const char *word) {
    int i = cvar(name), n, count, value = -1;
    MPI_Datatype dt;
    MPI_T_enum e;
    T_OK(MPI_T_cvar_get_info(i, NULL, NULL, NULL, &dt, &e, NULL, NULL, NULL, NULL));
    CHECK(dt == MPI_INT && e != MPI_T_ENUM_NULL, "%s has no enumeration", name);
    T_OK(MPI_T_enum_get_info(e, &n, NULL, NULL));
    for (int k = 0; k < n; k++) {
        char item[64];
        int len = sizeof item, v;
        T_OK(MPI_T_enum_get_item(e, k, &v, item, &len));
        if (strcmp(item, word) == 0) value = v;
    }
    CHECK(value >= 0, "%s has no item %s", name, word);
    MPI_T_cvar_handle h;
    T_OK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    T_OK(MPI_T_cvar_write(h, &value));
    int got = -1;
    T_OK(MPI_T_cvar_read(h, &got));
    CHECK(got == value, "%s reads %d after writing %d", name, got, value);
    T_OK(MPI_T_cvar_handle_free(&h));
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "handle_free left the handle");
}

/* print_cvars prints every control variable as NAME=VALUE|TYPE. */
static void print_cvars(void) {
    int num;
    T_OK(MPI_T_cvar_get_num(&num));
    for (int i = 0; i < num; i++) {
        char name[128], desc[2048];
        int nlen = sizeof name, dlen = sizeof desc, verb, bind, scope, count, idx;
        MPI_Datatype dt;
        MPI_T_enum e;
        T_OK(MPI_T_cvar_get_info(i, name, &nlen, &verb, &dt, &e, desc, &dlen, &bind, &scope));
        CHECK(nlen == (int)strlen(name) + 1 && dlen == (int)strlen(desc) + 1, "%s: lengths %d %d", name, nlen, dlen);
        CHECK(bind == MPI_T_BIND_NO_OBJECT && scope >= MPI_T_SCOPE_CONSTANT && scope <= MPI_T_SCOPE_ALL_EQ, "%s", name);
        CHECK(verb >= MPI_T_VERBOSITY_USER_BASIC && verb <= MPI_T_VERBOSITY_MPIDEV_ALL, "%s: verbosity %d", name, verb);
        T_OK(MPI_T_cvar_get_index(name, &idx));
        CHECK(idx == i, "%s at %d, get_index says %d", name, i, idx);
        MPI_T_cvar_handle h;
        T_OK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
        char out[1100];
        if (dt == MPI_INT) {
            int v;
            T_OK(MPI_T_cvar_read(h, &v));
            if (e != MPI_T_ENUM_NULL) {
                int n, len = sizeof out, item;
                T_OK(MPI_T_enum_get_info(e, &n, NULL, NULL));
                CHECK(v >= 0 && v < n, "%s = %d of %d items", name, v, n);
                T_OK(MPI_T_enum_get_item(e, v, &item, out, &len));
            } else {
                snprintf(out, sizeof out, "%d", v);
            }
        } else if (dt == MPI_COUNT) {
            MPI_Count v;
            T_OK(MPI_T_cvar_read(h, &v));
            snprintf(out, sizeof out, "%lld", (long long)v);
        } else if (dt == MPI_UNSIGNED_LONG_LONG) {
            unsigned long long v;
            T_OK(MPI_T_cvar_read(h, &v));
            snprintf(out, sizeof out, "%llu", v);
        } else if (dt == MPI_DOUBLE) {
            double v;
            T_OK(MPI_T_cvar_read(h, &v));
            snprintf(out, sizeof out, "%.9g", v);
        } else {
            CHECK(dt == MPI_CHAR && count <= (int)sizeof out, "%s: a type of no setting's", name);
            T_OK(MPI_T_cvar_read(h, out));
        }
        T_OK(MPI_T_cvar_handle_free(&h));
        if (rank == 0) printf("cvar %s=%s|%s\n", name, out,
                              dt == MPI_INT ? "int" : dt == MPI_COUNT ? "count" : dt == MPI_UNSIGNED_LONG_LONG ? "ull"
                              : dt == MPI_DOUBLE ? "double" : "char");
    }
}

/* The strings: NULL buffers and zero lengths give the length alone, a short buffer a
 * truncated string, NULL lengths nothing. */
static void strings_convention(void) {
    char name[8] = "xxxxxxx";
    int len = 0;
    T_OK(MPI_T_cvar_get_info(cvar("eager_limit"), name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK(len == 12 && name[0] == 'x', "zero length: %d, buffer %s", len, name);
    len = 5;
    T_OK(MPI_T_cvar_get_info(cvar("eager_limit"), NULL, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK(len == 12, "NULL buffer: %d", len);
    len = 6;
    T_OK(MPI_T_cvar_get_info(cvar("eager_limit"), name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK(len == 12 && strcmp(name, "eager") == 0 && name[6] == 'x', "truncated: %d %s", len, name);
    strcpy(name, "zzzzzzz");
    T_OK(MPI_T_cvar_get_info(cvar("eager_limit"), name, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK(strcmp(name, "zzzzzzz") == 0, "NULL length wrote %s", name);
}

/* Every category's members exist, and every variable is in one. */
static void categories(void) {
    int ncat, ncv, npv, nev;
    T_OK(MPI_T_category_get_num(&ncat));
    T_OK(MPI_T_cvar_get_num(&ncv));
    T_OK(MPI_T_pvar_get_num(&npv));
    T_OK(MPI_T_event_get_num(&nev));
    int cvars = 0, pvars = 0, events = 0, update = -1;
    for (int c = 0; c < ncat; c++) {
        char name[64];
        int len = sizeof name, nc, np, nk, ne, idx;
        T_OK(MPI_T_category_get_info(c, name, &len, NULL, NULL, &nc, &np, &nk));
        T_OK(MPI_T_category_get_num_events(c, &ne));
        T_OK(MPI_T_category_get_index(name, &idx));
        CHECK(idx == c, "category %s", name);
        int ix[1024];
        CHECK(nc <= 1024 && np <= 1024 && nk <= 1024 && ne <= 1024, "category %s too big for the test", name);
        T_OK(MPI_T_category_get_cvars(c, nc, ix));
        for (int k = 0; k < nc; k++) CHECK(ix[k] >= 0 && ix[k] < ncv, "%s: cvar %d", name, ix[k]);
        T_OK(MPI_T_category_get_pvars(c, np, ix));
        for (int k = 0; k < np; k++) CHECK(ix[k] >= 0 && ix[k] < npv, "%s: pvar %d", name, ix[k]);
        T_OK(MPI_T_category_get_events(c, ne, ix));
        for (int k = 0; k < ne; k++) CHECK(ix[k] >= 0 && ix[k] < nev, "%s: event %d", name, ix[k]);
        T_OK(MPI_T_category_get_categories(c, nk, ix));
        for (int k = 0; k < nk; k++) CHECK(ix[k] >= 0 && ix[k] < c, "%s: category %d", name, ix[k]);
        ix[0] = -7;
        T_OK(MPI_T_category_get_cvars(c, 0, ix));
        CHECK(ix[0] == -7, "len 0 wrote");
        cvars += nc, pvars += np, events += ne;
    }
    CHECK(cvars == ncv && pvars == npv && events == nev, "in categories: %d/%d cvars, %d/%d pvars, %d/%d events",
          cvars, ncv, pvars, npv, events, nev);
    T_OK(MPI_T_category_changed(&update));
    CHECK(update == 0, "update number %d", update);
}

/* The event callback: what it saw, read through every reading procedure. */
static volatile int events_seen, events_bad, freed;
static int free_data = 7;

static void on_unexpected(MPI_T_event_instance ev, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud) {
    int src, tag, source;
    MPI_Count len, ts;
    struct {
        int src, tag;
        MPI_Count len;
    } copy;
    if (MPI_T_event_read(ev, 0, &src) || MPI_T_event_read(ev, 1, &tag) || MPI_T_event_read(ev, 2, &len) ||
        MPI_T_event_copy(ev, &copy) || MPI_T_event_get_timestamp(ev, &ts) || MPI_T_event_get_source(ev, &source) ||
        MPI_T_event_read(ev, 3, &src) != MPI_T_ERR_INVALID_INDEX)
        events_bad++;
    if (src != 1 || len != 8 * tag || copy.src != src || copy.tag != tag || copy.len != len || ts <= 0 || source != 0 ||
        ud != &free_data || safety != MPI_T_CB_REQUIRE_MPI_RESTRICTED)
        events_bad++;
    __atomic_add_fetch(&events_seen, 1, __ATOMIC_SEQ_CST);
}

static void on_free(MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud) {
    if (ud == &free_data) __atomic_add_fetch(&freed, 1, __ATOMIC_SEQ_CST);
}

/* Messages that arrive before their receives: the counters, and an event each. */
static void counters(void) {
    enum { N = 4 };
    MPI_Comm world = MPI_COMM_WORLD;
    MPI_T_pvar_session s;
    MPI_T_pvar_handle all, on_world, queue, hwm, sends;
    int count;
    T_OK(MPI_T_pvar_session_create(&s));
    T_OK(MPI_T_pvar_handle_alloc(s, pvar("unexpected_messages", MPI_T_PVAR_CLASS_COUNTER), NULL, &all, &count));
    T_OK(MPI_T_pvar_handle_alloc(s, pvar("comm_unexpected_messages", MPI_T_PVAR_CLASS_COUNTER), &world, &on_world, &count));
    T_OK(MPI_T_pvar_handle_alloc(s, pvar("unexpected_queue_length", MPI_T_PVAR_CLASS_LEVEL), NULL, &queue, &count));
    T_OK(MPI_T_pvar_handle_alloc(s, pvar("unexpected_queue_max", MPI_T_PVAR_CLASS_HIGHWATERMARK), NULL, &hwm, &count));
    T_OK(MPI_T_pvar_handle_alloc(s, pvar("send_calls", MPI_T_PVAR_CLASS_COUNTER), NULL, &sends, &count));
    CHECK(count == 1, "count %d", count);
    T_OK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));

    MPI_T_event_registration reg;
    int ev;
    T_OK(MPI_T_event_get_index("unexpected_message", &ev));
    T_OK(MPI_T_event_handle_alloc(ev, &world, MPI_INFO_NULL, &reg));
    T_OK(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL, &free_data, on_unexpected));

    MPI_Request marker;
    char b = 0;
    if (rank == 0) OK(MPI_Irecv(&b, 1, MPI_CHAR, 1, 99, MPI_COMM_WORLD, &marker));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    char buf[8 * N];
    memset(buf, 0, sizeof buf);
    if (rank == 1) {
        for (int i = 0; i < N; i++) OK(MPI_Send(buf, 8 * i, MPI_CHAR, 0, i, MPI_COMM_WORLD));
        OK(MPI_Send(&b, 1, MPI_CHAR, 0, 99, MPI_COMM_WORLD));
        unsigned long long n;
        T_OK(MPI_T_pvar_read(s, sends, &n));
        CHECK(n == N + 1, "send_calls %llu, want %d", n, N + 1);
        /* rank 0 reads its queue before this rank sends anything more (MPI_Finalize's) */
        OK(MPI_Recv(&b, 1, MPI_CHAR, 0, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else {
        OK(MPI_Wait(&marker, MPI_STATUS_IGNORE));
        unsigned long long n, q, m;
        T_OK(MPI_T_pvar_read(s, on_world, &n));
        T_OK(MPI_T_pvar_read(s, queue, &q));
        CHECK(n == N && q == N, "on MPI_COMM_WORLD %llu, queued %llu; want %d", n, q, N);
        T_OK(MPI_T_pvar_read(s, all, &n));
        CHECK(n >= N, "in all %llu", n);
        double t0 = MPI_Wtime();
        while (__atomic_load_n(&events_seen, __ATOMIC_SEQ_CST) < N && MPI_Wtime() - t0 < 60) sched_yield();
        CHECK(events_seen == N && events_bad == 0, "events %d (%d bad), want %d", events_seen, events_bad, N);
        for (int i = 0; i < N; i++) OK(MPI_Recv(buf, 8 * i, MPI_CHAR, 1, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        T_OK(MPI_T_pvar_read(s, queue, &q));
        T_OK(MPI_T_pvar_read(s, hwm, &m));
        CHECK(q == 0 && m >= N, "after the receives: queued %llu, high-water mark %llu", q, m);
        T_OK(MPI_T_pvar_readreset(s, on_world, &n));
        CHECK(n == N, "readreset %llu", n);
        T_OK(MPI_T_pvar_read(s, on_world, &n));
        CHECK(n == 0, "after readreset %llu", n);
        OK(MPI_Send(&b, 1, MPI_CHAR, 1, 98, MPI_COMM_WORLD));
    }
    T_OK(MPI_T_event_handle_free(reg, &free_data, on_free));
    T_FAILS(MPI_T_event_handle_free(reg, &free_data, on_free), MPI_T_ERR_INVALID_HANDLE);
    double t0 = MPI_Wtime();
    while (__atomic_load_n(&freed, __ATOMIC_SEQ_CST) == 0 && MPI_Wtime() - t0 < 60) sched_yield();
    CHECK(freed == 1, "the free callback ran %d times", freed);
    T_OK(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
    T_OK(MPI_T_pvar_handle_free(s, &hwm));
    CHECK(hwm == MPI_T_PVAR_HANDLE_NULL, "handle_free left the handle");
    T_OK(MPI_T_pvar_session_free(&s));
    CHECK(s == MPI_T_PVAR_SESSION_NULL, "session_free left the session");
}

/* A setting the device applies at once: eager_limit written, a 1000-byte message goes
 * by rendezvous. */
static void live_write(void) {
    int count;
    MPI_T_cvar_handle h;
    T_OK(MPI_T_cvar_handle_alloc(cvar("eager_limit"), NULL, &h, &count));
    unsigned long long limit = 64, got = 0, n0, n1;
    MPI_T_pvar_session s;
    MPI_T_pvar_handle rdv;
    T_OK(MPI_T_pvar_session_create(&s));
    T_OK(MPI_T_pvar_handle_alloc(s, pvar("shm_rendezvous_sends", MPI_T_PVAR_CLASS_COUNTER), NULL, &rdv, &count));
    char msg[1000];
    memset(msg, 0, sizeof msg);
    T_OK(MPI_T_pvar_read(s, rdv, &n0));
    T_OK(MPI_T_cvar_write(h, &limit));
    T_OK(MPI_T_cvar_read(h, &got));
    CHECK(got == 64, "eager_limit reads %llu", got);
    if (rank == 0)
        OK(MPI_Send(msg, sizeof msg, MPI_CHAR, 1, 5, MPI_COMM_WORLD));
    else
        OK(MPI_Recv(msg, sizeof msg, MPI_CHAR, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    T_OK(MPI_T_pvar_read(s, rdv, &n1));
    CHECK(rank != 0 || n1 - n0 == 1, "after eager_limit=64: %llu rendezvous, want 1", n1 - n0);
    limit = 0;
    T_OK(MPI_T_cvar_write(h, &limit));
    T_OK(MPI_T_cvar_handle_free(&h));
    T_OK(MPI_T_pvar_session_free(&s));
}

/* Every bad input, with its code. */
static void bad_input(void) {
    int ncv, npv, ncat, nev, nsrc, i, count;
    char name[64];
    int len = sizeof name;
    T_OK(MPI_T_cvar_get_num(&ncv));
    T_OK(MPI_T_pvar_get_num(&npv));
    T_OK(MPI_T_category_get_num(&ncat));
    T_OK(MPI_T_event_get_num(&nev));
    T_OK(MPI_T_source_get_num(&nsrc));
    T_FAILS(MPI_T_cvar_get_info(ncv, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    T_FAILS(MPI_T_cvar_get_info(-1, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    T_FAILS(MPI_T_pvar_get_info(npv, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    T_FAILS(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    T_FAILS(MPI_T_category_get_cvars(ncat, 1, &i), MPI_T_ERR_INVALID_INDEX);
    T_FAILS(MPI_T_category_get_num_events(-1, &i), MPI_T_ERR_INVALID_INDEX);
    T_FAILS(MPI_T_event_get_info(nev, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    T_FAILS(MPI_T_source_get_info(nsrc, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    MPI_Count ts;
    T_FAILS(MPI_T_source_get_timestamp(nsrc, &ts), MPI_T_ERR_INVALID_INDEX);
    T_OK(MPI_T_source_get_timestamp(0, &ts));
    T_FAILS(MPI_T_cvar_handle_alloc(ncv, NULL, NULL, &count), MPI_T_ERR_INVALID_INDEX);
    T_FAILS(MPI_T_cvar_get_index("no such variable", &i), MPI_T_ERR_INVALID_NAME);
    T_FAILS(MPI_T_pvar_get_index("no such variable", MPI_T_PVAR_CLASS_COUNTER, &i), MPI_T_ERR_INVALID_NAME);
    T_FAILS(MPI_T_pvar_get_index("unexpected_messages", MPI_T_PVAR_CLASS_LEVEL, &i), MPI_T_ERR_INVALID_NAME);
    T_FAILS(MPI_T_category_get_index("no such category", &i), MPI_T_ERR_INVALID_NAME);
    T_FAILS(MPI_T_event_get_index("no such event", &i), MPI_T_ERR_INVALID_NAME);

    MPI_T_enum e;
    T_OK(MPI_T_cvar_get_info(cvar("p2p_protocol"), NULL, NULL, NULL, NULL, &e, NULL, NULL, NULL, NULL));
    int items, v;
    T_OK(MPI_T_enum_get_info(e, &items, NULL, NULL));
    T_FAILS(MPI_T_enum_get_item(e, items, &v, NULL, NULL), MPI_T_ERR_INVALID_ITEM);
    T_FAILS(MPI_T_enum_get_info((MPI_T_enum)(intptr_t)12345, &items, NULL, NULL), MPI_T_ERR_INVALID_INDEX);

    MPI_T_cvar_handle ch;
    T_OK(MPI_T_cvar_handle_alloc(cvar("p2p_protocol"), NULL, &ch, &count));
    v = 99;
    T_FAILS(MPI_T_cvar_write(ch, &v), MPI_T_ERR_INVALID);
    T_OK(MPI_T_cvar_handle_free(&ch));
    T_FAILS(MPI_T_cvar_read((MPI_T_cvar_handle)(intptr_t)12345, &v), MPI_T_ERR_INVALID_HANDLE);
    T_OK(MPI_T_cvar_handle_alloc(cvar("rank_timer_slack"), NULL, &ch, &count));
    v = 5;
    T_FAILS(MPI_T_cvar_write(ch, &v), MPI_T_ERR_CVAR_SET_NEVER);
    T_OK(MPI_T_cvar_handle_free(&ch));
    T_OK(MPI_T_cvar_handle_alloc(cvar("transports"), NULL, &ch, &count));
    T_FAILS(MPI_T_cvar_write(ch, "self,tcp"), MPI_T_ERR_CVAR_SET_NEVER);
    T_OK(MPI_T_cvar_handle_free(&ch));

    MPI_T_pvar_session s, other;
    MPI_T_pvar_handle level, hwm, onworld, cnt;
    unsigned long long n = 1;
    T_OK(MPI_T_pvar_session_create(&s));
    T_OK(MPI_T_pvar_session_create(&other));
    T_FAILS(MPI_T_pvar_handle_alloc(s, pvar("comm_unexpected_messages", MPI_T_PVAR_CLASS_COUNTER), NULL, &onworld, &count),
            MPI_T_ERR_INVALID_HANDLE);
    MPI_Comm null = MPI_COMM_NULL;
    T_FAILS(MPI_T_pvar_handle_alloc(s, pvar("comm_unexpected_messages", MPI_T_PVAR_CLASS_COUNTER), &null, &onworld, &count),
            MPI_T_ERR_INVALID_HANDLE);
    T_FAILS(MPI_T_pvar_handle_alloc(MPI_T_PVAR_SESSION_NULL, 0, NULL, &cnt, &count), MPI_T_ERR_INVALID_SESSION);
    T_FAILS(MPI_T_pvar_handle_alloc(s, npv, NULL, &cnt, &count), MPI_T_ERR_INVALID_INDEX);
    T_OK(MPI_T_pvar_handle_alloc(s, pvar("unexpected_queue_length", MPI_T_PVAR_CLASS_LEVEL), NULL, &level, &count));
    T_OK(MPI_T_pvar_handle_alloc(s, pvar("unexpected_queue_max", MPI_T_PVAR_CLASS_HIGHWATERMARK), NULL, &hwm, &count));
    T_OK(MPI_T_pvar_handle_alloc(s, pvar("unexpected_messages", MPI_T_PVAR_CLASS_COUNTER), NULL, &cnt, &count));
    T_FAILS(MPI_T_pvar_read(MPI_T_PVAR_SESSION_NULL, cnt, &n), MPI_T_ERR_INVALID_SESSION);
    T_FAILS(MPI_T_pvar_read(other, cnt, &n), MPI_T_ERR_INVALID_HANDLE);
    T_FAILS(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &n), MPI_T_ERR_INVALID_HANDLE);
    T_FAILS(MPI_T_pvar_read(s, MPI_T_PVAR_HANDLE_NULL, &n), MPI_T_ERR_INVALID_HANDLE);
    T_FAILS(MPI_T_pvar_start(s, level), MPI_T_ERR_PVAR_NO_STARTSTOP);
    T_FAILS(MPI_T_pvar_stop(s, cnt), MPI_T_ERR_PVAR_NO_STARTSTOP);
    T_FAILS(MPI_T_pvar_write(s, level, &n), MPI_T_ERR_PVAR_NO_WRITE);
    T_FAILS(MPI_T_pvar_reset(s, level), MPI_T_ERR_PVAR_NO_WRITE);
    T_FAILS(MPI_T_pvar_readreset(s, hwm, &n), MPI_T_ERR_PVAR_NO_ATOMIC);
    T_OK(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES)); /* read-only ones are passed over */
    T_OK(MPI_T_pvar_write(s, cnt, &n));
    T_OK(MPI_T_pvar_read(s, cnt, &n));
    CHECK(n == 1, "written 1, read %llu", n);
    T_OK(MPI_T_pvar_session_free(&other));
    T_FAILS(MPI_T_pvar_read(other, cnt, &n), MPI_T_ERR_INVALID_SESSION);
    MPI_T_pvar_handle freed = cnt;
    T_OK(MPI_T_pvar_handle_free(s, &cnt));
    T_FAILS(MPI_T_pvar_read(s, freed, &n), MPI_T_ERR_INVALID_HANDLE);
    T_OK(MPI_T_pvar_session_free(&s));

    MPI_T_event_registration reg;
    int ev;
    T_OK(MPI_T_event_get_index("unexpected_message", &ev));
    T_FAILS(MPI_T_event_handle_alloc(ev, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_HANDLE);
    T_OK(MPI_T_event_get_index("peer_failed", &ev));
    T_OK(MPI_T_event_handle_alloc(ev, NULL, MPI_INFO_NULL, &reg));
    T_FAILS(MPI_T_event_register_callback(reg, 5, MPI_INFO_NULL, NULL, on_unexpected), MPI_T_ERR_INVALID);
    MPI_Info info;
    T_OK(MPI_T_event_handle_get_info(reg, &info));
    int nkeys = -1;
    OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 0, "hints %d", nkeys);
    OK(MPI_Info_free(&info));
    T_OK(MPI_T_event_callback_get_info(reg, MPI_T_CB_REQUIRE_NONE, &info));
    OK(MPI_Info_free(&info));
    T_OK(MPI_T_event_set_dropped_handler(reg, NULL));
    T_OK(MPI_T_event_handle_free(reg, NULL, NULL));
    T_FAILS(MPI_T_event_handle_set_info(reg, MPI_INFO_NULL), MPI_T_ERR_INVALID_HANDLE);
    T_FAILS(MPI_T_event_read((MPI_T_event_instance)(intptr_t)77, 0, &v), MPI_T_ERR_INVALID_HANDLE);
}

int main(int argc, char **argv) {
    int provided = -1;
    T_FAILS(MPI_T_cvar_get_num(&provided), MPI_T_ERR_NOT_INITIALIZED);
    T_FAILS(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    T_FAILS(MPI_T_init_thread(77, &provided), MPI_T_ERR_INVALID);
    T_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    T_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    T_OK(MPI_T_finalize());
    /* Before MPI_Init: settings read at Init take a write, and Init uses it. */
    set_word("coll_shm", "off");
    set_word("coll_allreduce", "ring");

    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_T_pvar_session s;
    MPI_T_pvar_handle ring;
    int count;
    T_OK(MPI_T_pvar_session_create(&s));
    T_OK(MPI_T_pvar_handle_alloc(s, pvar("coll_allreduce_ring", MPI_T_PVAR_CLASS_COUNTER), NULL, &ring, &count));
    T_OK(MPI_T_pvar_start(s, ring));
    double x[64] = {0}, y[64];
    OK(MPI_Allreduce(x, y, 64, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    unsigned long long rings = 0;
    T_OK(MPI_T_pvar_read(s, ring, &rings));
    CHECK(rings == 1, "allreduces by ring: %llu, want 1 (coll_allreduce=ring written before MPI_Init)", rings);
    T_OK(MPI_T_pvar_session_free(&s));

    print_cvars();
    strings_convention();
    categories();
    live_write();
    counters();
    bad_input();

    T_OK(MPI_T_finalize());
    T_FAILS(MPI_T_cvar_get_num(&count), MPI_T_ERR_NOT_INITIALIZED);
    T_FAILS(MPI_T_pvar_session_create(&s), MPI_T_ERR_NOT_INITIALIZED);
    T_FAILS(MPI_T_category_changed(&count), MPI_T_ERR_NOT_INITIALIZED);
    OK(MPI_Finalize());

    /* After MPI_Finalize the interface starts again; the handles of the last one are
     * gone. */
    T_OK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    T_FAILS(MPI_T_pvar_read(s, ring, &rings), MPI_T_ERR_INVALID_SESSION);
    MPI_T_cvar_handle h;
    unsigned long long limit = 1;
    T_OK(MPI_T_cvar_handle_alloc(cvar("eager_limit"), NULL, &h, &count));
    T_OK(MPI_T_cvar_read(h, &limit));
    CHECK(limit == 0, "eager_limit %llu after MPI_Finalize", limit);
    T_OK(MPI_T_finalize());
    if (rank == 0) printf("OK tools\n");
    return 0;
}

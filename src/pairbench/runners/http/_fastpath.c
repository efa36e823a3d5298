/* The epoll loop's per-response step in C: read a response, recognise it as framed like the
 * connection's last one, book its latency and send the next request (selector_loop.py).
 *
 * Why: in a closed keep-alive loop on one URL the client's CPU per request decides how hard one
 * core can push a server, and the same step in Python costs about twice wrk's user CPU per
 * request (docs/http.md has the figures). This does exactly what `Connection.data_received`'s
 * fast path does, on the same state (the connection's and the load's attributes, read and
 * written by name), so the Python side stays the only definition of that state; everything
 * else -- a response framed differently, the end of the load, a write the socket does not
 * take whole, EOF, errors, connects -- is handed back to Python untouched, in event order.
 *
 * Plain sockets are read and written here with recv(2) and send(2). TLS sockets with SSL_read
 * and SSL_write on the `SSL *` of the socket's `_ssl._SSLSocket` (the second field after the
 * object head since Python 3.0, as sslkeylog and sabctools read it), taken from the OpenSSL
 * that the `_ssl` module itself is linked with (dlsym through its handle), so that nothing here
 * is built against OpenSSL and no second copy of it is ever loaded. The pointer is trusted only
 * when that object's type is `_ssl._SSLSocket` and SSL_get_fd gives the event's file
 * descriptor; otherwise, or when `_ssl` exports no OpenSSL symbols, the socket's own Python
 * read and write are called instead (what the module did before: about 4 us more per request).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>

#define MAX_EVENTS 64
#define BOOK_CHUNK 4096
#define RECV_MAX (64 * 1024)

static PyObject *s_protocol, *s_raw, *s_recv, *s_send, *s_out, *s_write, *s_shape_len, *s_shape_at,
    *s_shape_tail, *s_shape_last, *s_state, *s_buf, *s_close_after, *s_start, *s_sent_at,
    *s_again, *s_end_ns, *s_count_limit, *s_started, *s_completed, *s_n200, *s_bytes,
    *s_latencies, *s_frombytes;

/* OpenSSL, as `_ssl` links it (NULL when it cannot be found). Error codes are OpenSSL's ABI. */
#define TLS_ERROR_SSL 1
#define TLS_WANT_READ 2
#define TLS_WANT_WRITE 3
#define TLS_ERROR_SYSCALL 5
#define TLS_ZERO_RETURN 6
#define ERR_LIB_SSL_ 20
#define SSL_R_UNEXPECTED_EOF_WHILE_READING_ 294
static int (*tls_read)(void *, void *, int);
static int (*tls_write)(void *, const void *, int);
static int (*tls_get_error)(const void *, int);
static int (*tls_get_fd)(const void *);
static void (*tls_err_clear)(void);
static unsigned long (*tls_err_peek_last)(void);
static PyTypeObject *sslobj_type;

typedef struct {
    PyObject_HEAD
    PyObject *socket; /* a weak reference to the socket it is layered on */
    void *ssl;
} SSLObjectHead;

static void find_openssl(void) {
    PyObject *mod = PyImport_ImportModule("_ssl");
    if (mod == NULL) {
        PyErr_Clear();
        return;
    }
    PyObject *type = PyObject_GetAttrString(mod, "_SSLSocket");
    PyObject *file = PyObject_GetAttrString(mod, "__file__");
    Py_DECREF(mod);
    const char *path = file != NULL && PyUnicode_Check(file) ? PyUnicode_AsUTF8(file) : NULL;
    void *handle = path != NULL ? dlopen(path, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    Py_XDECREF(file);
    PyErr_Clear();
    if (handle == NULL || type == NULL || !PyType_Check(type)) {
        Py_XDECREF(type);
        return;
    }
    *(void **)&tls_read = dlsym(handle, "SSL_read");
    *(void **)&tls_write = dlsym(handle, "SSL_write");
    *(void **)&tls_get_error = dlsym(handle, "SSL_get_error");
    *(void **)&tls_get_fd = dlsym(handle, "SSL_get_fd");
    *(void **)&tls_err_clear = dlsym(handle, "ERR_clear_error");
    *(void **)&tls_err_peek_last = dlsym(handle, "ERR_peek_last_error");
    if (!tls_read || !tls_write || !tls_get_error || !tls_get_fd || !tls_err_clear || !tls_err_peek_last) {
        tls_read = NULL;
        Py_DECREF(type);
        return;
    }
    sslobj_type = (PyTypeObject *)type;
}

/* The SSL * of a transport's TLS object when it can be used directly here, else NULL. */
static void *direct_ssl(PyObject *raw, int fd) {
    if (tls_read == NULL || raw == NULL || Py_TYPE(raw) != sslobj_type)
        return NULL;
    void *ssl = ((SSLObjectHead *)raw)->ssl;
    return ssl != NULL && tls_get_fd(ssl) == fd ? ssl : NULL;
}

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Booked latencies, moved into the load's array('q') in chunks. */
typedef struct {
    long long values[BOOK_CHUNK];
    Py_ssize_t n;
} Book;

static int book_flush(Book *book, PyObject *latencies) {
    if (book->n == 0)
        return 0;
    PyObject *raw = PyBytes_FromStringAndSize((const char *)book->values, book->n * (Py_ssize_t)sizeof(long long));
    if (raw == NULL)
        return -1;
    PyObject *r = PyObject_CallMethodOneArg(latencies, s_frombytes, raw);
    Py_DECREF(raw);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    book->n = 0;
    return 0;
}

static long long attr_ll(PyObject *obj, PyObject *name, int *err) {
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v == NULL) {
        *err = 1;
        return 0;
    }
    long long x = PyLong_AsLongLong(v);
    Py_DECREF(v);
    if (x == -1 && PyErr_Occurred())
        *err = 1;
    return x;
}

static int set_ll(PyObject *obj, PyObject *name, long long x) {
    PyObject *v = PyLong_FromLongLong(x);
    if (v == NULL)
        return -1;
    int r = PyObject_SetAttr(obj, name, v);
    Py_DECREF(v);
    return r;
}

/* Whether `data` of the learnt length is framed like the learnt response (http1._framed_alike):
 * the same bytes from its Content-Length header (at `at`) on, a 200, and neither an end of head
 * nor a "lose" (of "close") before that header. */
static int framed_alike(const char *data, Py_ssize_t n, Py_ssize_t at, PyObject *tail) {
    if (!PyBytes_Check(tail) || at < 12 || at > n)
        return 0;
    Py_ssize_t tn = PyBytes_GET_SIZE(tail);
    if (n - at != tn || memcmp(data + at, PyBytes_AS_STRING(tail), (size_t)tn) != 0)
        return 0;
    if (memcmp(data + 9, "200", 3) != 0)
        return 0;
    return memmem(data, (size_t)at, "\r\n\r\n", 4) == NULL && memmem(data, (size_t)at, "lose", 4) == NULL;
}

/* What the step knows of one connection during one `pump` call. Python runs only between two
 * calls (or inside the transport's `write`, before which every link is put back), so the
 * connection's state read at its first event stays true until the call returns; its `start` is
 * kept here and written back on the way out. */
typedef struct {
    PyObject *handler, *conn, *last, *tail; /* owned while `filled` */
    void *ssl;
    long long shape_len, at, start;
    int filled, eligible, moved;
} Link;

typedef struct {
    PyObject *load, *again, *pending, *latencies;
    long long head_state;
    long long end_ns, budget, started, done, bytes;
    Link *links;
    int n_links;
    char *stack; /* the read buffer */
    Book book;
} Pump;

/* Put every link back: the connections' start (and sent_at) written, the references dropped. */
static int links_put_back(Pump *p) {
    int rc = 0;
    for (int i = 0; i < p->n_links; i++) {
        Link *k = &p->links[i];
        if (!k->filled)
            continue;
        if (k->moved && rc == 0) {
            PyObject *v = PyLong_FromLongLong(k->start);
            if (v == NULL || PyObject_SetAttr(k->conn, s_start, v) < 0 || PyObject_SetAttr(k->conn, s_sent_at, v) < 0)
                rc = -1;
            Py_XDECREF(v);
        }
        Py_CLEAR(k->handler);
        Py_CLEAR(k->conn);
        Py_CLEAR(k->last);
        Py_CLEAR(k->tail);
        k->filled = k->moved = 0;
    }
    return rc;
}

/* The link of file descriptor `fd` for transport `t`, read from the transport and its connection
 * at its first event in this call; NULL on a Python error. */
static Link *link_for(Pump *p, PyObject *t, int fd, int tls) {
    if (fd >= p->n_links) {
        int n = fd + 64;
        Link *grown = PyMem_Realloc(p->links, (size_t)n * sizeof(Link));
        if (grown == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        memset(grown + p->n_links, 0, (size_t)(n - p->n_links) * sizeof(Link));
        p->links = grown;
        p->n_links = n;
    }
    Link *k = &p->links[fd];
    if (k->filled && k->handler == t)
        return k;
    if (k->filled && links_put_back(p) < 0)
        return NULL;
    int err = 0;
    PyObject *conn = PyObject_GetAttr(t, s_protocol), *raw = NULL, *out = NULL, *buf = NULL,
             *close_after = NULL, *last = NULL, *tail = NULL;
    if (conn == NULL || (tls && !(raw = PyObject_GetAttr(t, s_raw))) || !(out = PyObject_GetAttr(t, s_out))
        || !(buf = PyObject_GetAttr(conn, s_buf)) || !(close_after = PyObject_GetAttr(conn, s_close_after))
        || !(last = PyObject_GetAttr(conn, s_shape_last)) || !(tail = PyObject_GetAttr(conn, s_shape_tail)))
        err = 1;
    long long state = err ? 0 : attr_ll(conn, s_state, &err);
    k->shape_len = err ? 0 : attr_ll(conn, s_shape_len, &err);
    k->at = err ? 0 : attr_ll(conn, s_shape_at, &err);
    k->start = err ? 0 : attr_ll(conn, s_start, &err);
    int closes = err ? 0 : PyObject_IsTrue(close_after);
    k->ssl = tls && !err ? direct_ssl(raw, fd) : NULL;
    Py_XDECREF(raw);
    Py_XDECREF(close_after);
    if (err || closes < 0) {
        Py_XDECREF(conn);
        Py_XDECREF(out);
        Py_XDECREF(buf);
        Py_XDECREF(last);
        Py_XDECREF(tail);
        return NULL;
    }
    k->eligible = state == p->head_state && !closes && k->shape_len > 0 && PyBytes_Check(out)
        && PyBytes_GET_SIZE(out) == 0 && PyBytes_Check(buf) && PyBytes_GET_SIZE(buf) == 0
        && PyBytes_Check(last) && PyBytes_Check(tail);
    Py_DECREF(out);
    Py_DECREF(buf);
    Py_INCREF(t);
    k->handler = t;
    k->conn = conn;
    k->last = last;
    k->tail = tail;
    k->filled = 1;
    k->moved = 0;
    return k;
}

/* Hand an event back to Python: (transport, events, None | bytes read | the read's exception). */
static int hand_back(Pump *p, PyObject *h, unsigned int ev, PyObject *got) {
    PyObject *item = Py_BuildValue("(OIO)", h, ev, got ? got : Py_None);
    if (item == NULL)
        return -1;
    int r = PyList_Append(p->pending, item);
    Py_DECREF(item);
    return r;
}

/* Write the next request; a write the socket does not take whole goes to the transport's own
 * `write` (which queues the rest, or loses the connection on an error). */
static int send_request(Pump *p, PyObject *t, int fd, int tls, void *ssl, PyObject *req) {
    const char *buf = PyBytes_AS_STRING(req);
    Py_ssize_t len = PyBytes_GET_SIZE(req), sent = 0;
    if (!tls) {
        ssize_t n = send(fd, buf, (size_t)len, 0);
        sent = n < 0 ? 0 : n;
    } else if (ssl != NULL) {
        tls_err_clear();
        int n = tls_write(ssl, buf, (int)len);
        if (n <= 0 && tls_get_error(ssl, n) != TLS_WANT_READ && tls_get_error(ssl, n) != TLS_WANT_WRITE)
            tls_err_clear(); /* the write below meets the error again and loses the connection */
        sent = n > 0 ? n : 0; /* without partial writes SSL_write takes all or nothing */
    } else {
        if (links_put_back(p) < 0) /* Python's write wrapper runs next (signal handlers too) */
            return -1;
        PyObject *send_fn = PyObject_GetAttr(t, s_send);
        if (send_fn == NULL)
            return -1;
        PyObject *r = PyObject_CallOneArg(send_fn, req);
        Py_DECREF(send_fn);
        if (r == NULL) {
            /* An error of the connection: the write below meets it again and handles it. Anything
             * else (a signal's stop, raised inside SSL_write's wrapper) is the caller's. */
            if (!PyErr_ExceptionMatches(PyExc_Exception))
                return -1;
            PyErr_Clear();
        } else {
            sent = PyLong_AsSsize_t(r);
            Py_DECREF(r);
            if (sent == -1 && PyErr_Occurred())
                return -1;
        }
    }
    if (sent == len)
        return 0;
    if (links_put_back(p) < 0) /* Python runs next */
        return -1;
    PyObject *rest = PyBytes_FromStringAndSize(buf + sent, len - sent);
    if (rest == NULL)
        return -1;
    PyObject *r = PyObject_CallMethodOneArg(t, s_write, rest);
    Py_DECREF(rest);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* A failed read, as selector_loop reads it: the exception handed back with the event. */
static int hand_back_error(Pump *p, PyObject *t, unsigned int ev) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value == NULL || !PyErr_GivenExceptionMatches(value, PyExc_Exception)) { /* a signal's stop */
        PyErr_Restore(type, value, tb);
        return -1;
    }
    Py_XDECREF(type);
    Py_XDECREF(tb);
    int rc = hand_back(p, t, ev, value);
    Py_DECREF(value);
    return rc;
}

/* Read what a readable transport has: 1 with `*data`/`*n` (in p->stack, or in `*got` when a
 * Python read made it), 0 when there was nothing after all or the read was handed back, -1 on
 * a Python error. */
static int read_ready(Pump *p, PyObject *t, Link *k, int fd, unsigned int ev, int tls, Py_ssize_t size,
                      PyObject *want, const char **data, Py_ssize_t *n, PyObject **got) {
    if (!tls) {
        ssize_t r = recv(fd, p->stack, (size_t)size, 0);
        if (r < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                return 0;
            PyErr_SetFromErrno(PyExc_OSError);
            return hand_back_error(p, t, ev) < 0 ? -1 : 0;
        }
        *data = p->stack;
        *n = r;
        return 1;
    }
    if (k->ssl != NULL) {
        tls_err_clear();
        int r = tls_read(k->ssl, p->stack, (int)size);
        int saved = errno;
        if (r > 0) {
            *data = p->stack;
            *n = r;
            return 1;
        }
        /* As selector_loop reads it: a clean or a ragged EOF is b"", any other error loses the
         * connection (which the protocol treats alike). */
        int e = tls_get_error(k->ssl, r);
        if (e == TLS_WANT_READ || e == TLS_WANT_WRITE)
            return 0;
        unsigned long last = tls_err_peek_last();
        tls_err_clear();
        int eof = e == TLS_ZERO_RETURN || (e == TLS_ERROR_SYSCALL && (r == 0 || saved == 0))
            || (e == TLS_ERROR_SSL && ((last >> 23) & 0xFF) == ERR_LIB_SSL_
                && (last & 0x7FFFFF) == SSL_R_UNEXPECTED_EOF_WHILE_READING_);
        PyObject *what = eof ? PyBytes_FromStringAndSize(NULL, 0)
            : e == TLS_ERROR_SYSCALL ? PyObject_CallFunction(PyExc_OSError, "is", saved, strerror(saved))
                                     : PyObject_CallFunction(PyExc_ConnectionResetError, "s", "TLS error");
        if (what == NULL)
            return -1;
        int rc = hand_back(p, t, ev, what);
        Py_DECREF(what);
        return rc < 0 ? -1 : 0;
    }
    if (links_put_back(p) < 0) /* Python's read wrapper runs next (signal handlers too) */
        return -1;
    PyObject *recv_fn = PyObject_GetAttr(t, s_recv);
    if (recv_fn == NULL)
        return -1;
    PyObject *sz = PyLong_FromSsize_t(size);
    *got = sz ? PyObject_CallOneArg(recv_fn, sz) : NULL;
    Py_XDECREF(sz);
    Py_DECREF(recv_fn);
    if (*got == NULL) {
        if (PyErr_ExceptionMatches(want)) {
            PyErr_Clear();
            return 0;
        }
        return hand_back_error(p, t, ev) < 0 ? -1 : 0;
    }
    if (!PyBytes_Check(*got)) {
        int rc = hand_back(p, t, ev, *got);
        Py_CLEAR(*got);
        return rc < 0 ? -1 : 0;
    }
    *data = PyBytes_AS_STRING(*got);
    *n = PyBytes_GET_SIZE(*got);
    return 1;
}

/* One readable transport: its response booked and the next request sent, or the read handed
 * back. Returns -1 on a Python error, else 0. */
static int on_readable(Pump *p, PyObject *t, int fd, unsigned int ev, int tls, Py_ssize_t size, PyObject *want) {
    Link *k = link_for(p, t, fd, tls);
    if (k == NULL)
        return -1;
    const char *data = NULL;
    Py_ssize_t n = 0;
    PyObject *got = NULL; /* the bytes object read (a Python read), or made for a hand-back */
    int r = read_ready(p, t, k, fd, ev, tls, size, want, &data, &n, &got);
    if (r <= 0)
        return r;
    int rc = -1;
    k = fd < p->n_links && p->links[fd].filled ? &p->links[fd] : link_for(p, t, fd, tls); /* a Python read put it back */
    if (k == NULL)
        goto done;
    int fast = 0;
    if (k->eligible && n == k->shape_len && p->started < p->budget) {
        if (PyBytes_GET_SIZE(k->last) == n && memcmp(PyBytes_AS_STRING(k->last), data, (size_t)n) == 0) {
            fast = 1;
        } else if (framed_alike(data, n, (Py_ssize_t)k->at, k->tail)) {
            if (got == NULL && !(got = PyBytes_FromStringAndSize(data, n)))
                goto done;
            if (PyObject_SetAttr(k->conn, s_shape_last, got) < 0)
                goto done;
            Py_INCREF(got);
            Py_SETREF(k->last, got);
            fast = 1;
        }
    }
    long long now = fast ? now_ns() : 0;
    if (fast && now < p->end_ns) {
        p->started++;
        p->done++;
        p->bytes += n;
        p->book.values[p->book.n++] = now - k->start;
        k->start = now;
        k->moved = 1;
        if (p->book.n == BOOK_CHUNK && book_flush(&p->book, p->latencies) < 0)
            goto done;
        if (send_request(p, t, fd, tls, k->ssl, p->again) < 0)
            goto done;
        /* A full buffer: there may be more to read, which the general path does. */
        rc = n == size ? hand_back(p, t, EPOLLIN, NULL) : 0;
        goto done;
    }
    if (got == NULL && !(got = PyBytes_FromStringAndSize(data, n)))
        goto done;
    rc = hand_back(p, t, ev, got);
done:
    Py_XDECREF(got);
    return rc;
}

/* Bring the connections and the load's counters up to date with what this call booked. */
static int sync_load(Pump *p) {
    int err = 0;
    if (links_put_back(p) < 0 || book_flush(&p->book, p->latencies) < 0)
        return -1;
    if (p->done == 0)
        return 0;
    long long started = attr_ll(p->load, s_started, &err);
    long long completed = attr_ll(p->load, s_completed, &err);
    long long n200 = attr_ll(p->load, s_n200, &err);
    long long nbytes = attr_ll(p->load, s_bytes, &err);
    if (err)
        return -1;
    if (set_ll(p->load, s_started, started + p->done) < 0 || set_ll(p->load, s_completed, completed + p->done) < 0
        || set_ll(p->load, s_n200, n200 + p->done) < 0 || set_ll(p->load, s_bytes, nbytes + p->bytes) < 0)
        return -1;
    p->done = p->bytes = 0;
    return 0;
}

PyDoc_STRVAR(pump_doc,
"pump(epfd, handlers, transport_type, load, until_ns, tls, size, want, head_state) -> list\n\n"
"Wait on the epoll `epfd` and book responses framed like their connection's last one until\n"
"`until_ns` (perf_counter_ns) or until an event needs Python; return those events, in order, as\n"
"(handler, events, None | bytes read | the read's exception). The load's counters and latencies\n"
"are up to date on return, an exception (a signal's) included.");

static PyObject *pump(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "pump takes 9 arguments");
        return NULL;
    }
    int epfd = (int)PyLong_AsLong(args[0]);
    PyObject *handlers = args[1], *transport_type = args[2];
    long long until = PyLong_AsLongLong(args[4]);
    int tls = PyObject_IsTrue(args[5]);
    Py_ssize_t size = PyLong_AsSsize_t(args[6]);
    PyObject *want = args[7];
    long long head_state = PyLong_AsLongLong(args[8]);
    if (PyErr_Occurred())
        return NULL;
    if (!PyDict_Check(handlers) || size <= 0 || size > RECV_MAX) {
        PyErr_SetString(PyExc_ValueError, "pump: bad handlers or size");
        return NULL;
    }
    char stack[RECV_MAX];
    Pump p = {.load = args[3], .again = NULL, .pending = NULL, .latencies = NULL, .head_state = head_state,
              .links = NULL, .n_links = 0, .stack = stack};
    p.book.n = 0;
    p.done = p.bytes = 0;
    int err = 0;
    p.again = PyObject_GetAttr(p.load, s_again);
    if (p.again == NULL)
        return NULL;
    if (!PyBytes_Check(p.again)) {
        Py_DECREF(p.again);
        PyErr_SetString(PyExc_ValueError, "pump: the load has no request to send again");
        return NULL;
    }
    p.end_ns = attr_ll(p.load, s_end_ns, &err);
    p.budget = attr_ll(p.load, s_count_limit, &err);
    p.started = attr_ll(p.load, s_started, &err);
    if (err || !(p.latencies = PyObject_GetAttr(p.load, s_latencies)) || !(p.pending = PyList_New(0))) {
        Py_DECREF(p.again);
        Py_XDECREF(p.latencies);
        return NULL;
    }
    struct epoll_event events[MAX_EVENTS];
    int failed = 0;
    while (!failed && PyList_GET_SIZE(p.pending) == 0) {
        if (PyErr_CheckSignals() < 0) {
            failed = 1;
            break;
        }
        long long now = now_ns();
        if (now >= until)
            break;
        long long wait_ms = (until - now + 999999) / 1000000;
        int n;
        Py_BEGIN_ALLOW_THREADS
        n = epoll_wait(epfd, events, MAX_EVENTS, (int)(wait_ms > 1000 ? 1000 : wait_ms));
        Py_END_ALLOW_THREADS
        if (n < 0) {
            if (errno == EINTR)
                continue;
            PyErr_SetFromErrno(PyExc_OSError);
            failed = 1;
            break;
        }
        for (int i = 0; i < n && !failed; i++) {
            int fd = events[i].data.fd;
            unsigned int ev = events[i].events;
            PyObject *key = PyLong_FromLong(fd);
            if (key == NULL) {
                failed = 1;
                break;
            }
            PyObject *h = PyDict_GetItemWithError(handlers, key); /* borrowed */
            Py_DECREF(key);
            if (h == NULL) {
                failed = PyErr_Occurred() != NULL; /* else closed by an earlier event */
                continue;
            }
            Py_INCREF(h);
            if ((PyObject *)Py_TYPE(h) != transport_type || ev != EPOLLIN)
                failed = hand_back(&p, h, ev, NULL) < 0;
            else
                failed = on_readable(&p, h, fd, ev, tls, size, want) < 0;
            Py_DECREF(h);
        }
    }
    /* The counters are brought up to date on every way out; a Python error is kept meanwhile. */
    PyObject *type = NULL, *value = NULL, *tb = NULL;
    if (failed)
        PyErr_Fetch(&type, &value, &tb);
    int synced = sync_load(&p);
    PyMem_Free(p.links);
    Py_DECREF(p.again);
    Py_DECREF(p.latencies);
    if (failed) {
        if (synced < 0)
            PyErr_Clear();
        PyErr_Restore(type, value, tb);
        Py_DECREF(p.pending);
        return NULL;
    }
    if (synced < 0) {
        Py_DECREF(p.pending);
        return NULL;
    }
    return p.pending;
}

static PyObject *direct_tls(PyObject *self, PyObject *unused) {
    return PyBool_FromLong(tls_read != NULL);
}

static PyMethodDef methods[] = {
    {"direct_tls", direct_tls, METH_NOARGS, "Whether TLS sockets are read and written with OpenSSL directly."},
    {"pump", (PyCFunction)(void (*)(void))pump, METH_FASTCALL, pump_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fastpath",
    "The epoll loop's per-response step in C (selector_loop.py).", -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fastpath(void) {
#define INTERN(var, text) if (!(var = PyUnicode_InternFromString(text))) return NULL
    INTERN(s_protocol, "protocol");
    INTERN(s_raw, "raw");
    INTERN(s_recv, "recv");
    INTERN(s_send, "send");
    INTERN(s_out, "out");
    INTERN(s_write, "write");
    INTERN(s_shape_len, "shape_len");
    INTERN(s_shape_at, "shape_at");
    INTERN(s_shape_tail, "shape_tail");
    INTERN(s_shape_last, "shape_last");
    INTERN(s_state, "state");
    INTERN(s_buf, "buf");
    INTERN(s_close_after, "close_after");
    INTERN(s_start, "start");
    INTERN(s_sent_at, "sent_at");
    INTERN(s_again, "again");
    INTERN(s_end_ns, "end_ns");
    INTERN(s_count_limit, "count_limit");
    INTERN(s_started, "started");
    INTERN(s_completed, "completed");
    INTERN(s_n200, "n200");
    INTERN(s_bytes, "bytes");
    INTERN(s_latencies, "latencies");
    INTERN(s_frombytes, "frombytes");
#undef INTERN
    find_openssl();
    return PyModule_Create(&module);
}

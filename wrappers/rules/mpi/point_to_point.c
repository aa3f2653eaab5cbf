/* Derivatives of MPI's point-to-point communication: MPI_Send, MPI_Recv,
 * MPI_Sendrecv, and MPI_Isend and MPI_Irecv completed by MPI_Wait,
 * MPI_Waitall or MPI_Test (part of mpi.c's translation unit).
 *
 * Forward mode: one message carries the values and then their tangents
 * (twice the count), so a receive from MPI_ANY_SOURCE with MPI_ANY_TAG
 * takes the tangents of the values it matched, whatever else is in flight;
 * the status counts the values. Reverse mode: the adjoint goes the other
 * way, to the source and with the tag the receive's status recorded, as
 * many doubles as arrived. A peer of MPI_PROC_NULL moves nothing either
 * way: a receive from it leaves the buffer, and so its adjoint, as it was.
 * Adjoints reach ranks that may still be in their forward sweep: they keep
 * out of its receives (see `adjoint_tag`). */
#include "common.h"

/* Values then tangents, as one message (zero tangents for a buffer without a
 * shadow: the other side expects them). */
static double *packed(const void *buf, const void *dbuf, int n) {
  double *p = scratch(2 * n);
  if (n > 0) {
    memcpy(p, buf, n * sizeof(double));
    if (dbuf)
      memcpy(p + n, dbuf, n * sizeof(double));
    else
      memset(p + n, 0, n * sizeof(double));
  }
  return p;
}

/* A packed message received into p from source: its values into buf, its
 * tangents into dbuf (where there is one), and the status counting the
 * values. Nothing arrives from MPI_PROC_NULL: both buffers are left as they
 * were (known from the source asked for: MPICH's status of a non-blocking
 * receive from MPI_PROC_NULL may name rank 0). */
static void unpack(const double *p, void *buf, void *dbuf, MPI_Status *st, int source) {
  if (source == MPI_PROC_NULL)
    return;
  int got;
  MPI_Get_count(st, MPI_DOUBLE, &got);
  int m = got / 2;
  if (m > 0) {
    memcpy(buf, p, m * sizeof(double));
    if (dbuf)
      memcpy(dbuf, p + m, m * sizeof(double));
  }
  MPI_Status_set_elements(st, MPI_DOUBLE, m);
}

/* How many adjoints come back for n values sent to dest: none from
 * MPI_PROC_NULL, where nothing went. */
static int comes_back(int n, int dest) { return dest == MPI_PROC_NULL ? 0 : n; }

/* Where a receive from `source` took its values, with which tag, and how
 * many doubles came: what its reverse answers, from the status. From
 * MPI_PROC_NULL nothing came (whatever MPICH's status of a non-blocking
 * receive says), and the answer (to MPI_PROC_NULL, a no-op) needs a tag
 * valid to send with, which MPI_ANY_TAG is not. */
typedef struct {
  int source, tag, count;
} arrival;

static arrival arrived(const MPI_Status *st, int source) {
  if (source == MPI_PROC_NULL)
    return (arrival){MPI_PROC_NULL, 0, 0};
  arrival a = {st->MPI_SOURCE, st->MPI_TAG, 0};
  MPI_Get_count(st, MPI_DOUBLE, &a.count);
  return a;
}

static arrival *arrival_tape(const MPI_Status *st, int source) {
  arrival *a = malloc(sizeof *a);
  require(a != NULL, "out of memory in an MPI derivative");
  *a = arrived(st, source);
  return a;
}

/* The adjoints of n received values, taken out of the buffer's shadow
 * (zeros without one): the values overwrote what the buffer held, which
 * had no effect. */
static double *take_adjoint(double *dbuf, int n) {
  double *t = scratch(n);
  if (dbuf) {
    memcpy(t, dbuf, n * sizeof(double));
    memset(dbuf, 0, n * sizeof(double));
  } else {
    memset(t, 0, n * sizeof(double));
  }
  return t;
}

/* ---- An adjoint's message goes to a rank that may still be in its forward
 * sweep, waiting in a receive that its tag or MPI_ANY_SOURCE would let the
 * adjoint match (a duplicate communicator of their own would take a
 * collective call, which one rank's rule cannot make). So the adjoints'
 * tags are the values' with a bit of their own, the highest MPI_TAG_UB
 * allows, which no receive of a user's tag matches; and a receive with
 * MPI_ANY_TAG in reverse mode's forward sweep probes first (MPI_Mprobe),
 * setting aside the adjoints it meets for the receive that expects them. */
static int adjoint_bit(void) {
  static int bit;
  if (!bit) {
    int *ub, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    require(flag, "MPI_TAG_UB is not set");
    for (bit = 1; bit <= *ub / 2; bit *= 2) {
    }
  }
  return bit;
}

static int adjoint_tag(int tag) {
  if (tag >= adjoint_bit()) {
    fprintf(stderr, "enzyme-rs: MPI tags from %d up are the adjoints' in differentiated code (tag %d)\n",
            adjoint_bit(), tag);
    fflush(stderr);
    abort();
  }
  return tag | adjoint_bit();
}

typedef struct aside {
  MPI_Comm comm;
  int source, tag, count;
  double *data;
  struct aside *next;
} aside;
static aside *set_aside; /* oldest first */

/* A message probed: an adjoint is received and set aside (1), anything
 * else left for the caller (0). */
static int aside_if_adjoint(MPI_Message *m, const MPI_Status *st, MPI_Comm comm) {
  if (st->MPI_TAG < 0 || !(st->MPI_TAG & adjoint_bit()))
    return 0;
  aside *a = malloc(sizeof *a), **end = &set_aside;
  require(a != NULL, "out of memory in an MPI derivative");
  *a = (aside){comm, st->MPI_SOURCE, st->MPI_TAG, 0, NULL, NULL};
  MPI_Get_count(st, MPI_DOUBLE, &a->count);
  a->data = scratch(a->count);
  MPI_Mrecv(a->data, a->count, MPI_DOUBLE, m, MPI_STATUS_IGNORE);
  while (*end) end = &(*end)->next;
  *end = a;
  return 1;
}

/* A receive in reverse mode's forward sweep; with MPI_ANY_TAG, by probes
 * (only tests, unless `wait`): *flag says whether it was made. */
static int receive_values(void *buf, int n, int source, int tag, MPI_Comm comm, MPI_Status *st, int wait,
                          int *flag) {
  *flag = 1;
  if (tag != MPI_ANY_TAG || source == MPI_PROC_NULL)
    return MPI_Recv(buf, n, MPI_DOUBLE, source, tag, comm, st);
  for (;;) {
    MPI_Message m;
    if (wait) {
      MPI_Mprobe(source, MPI_ANY_TAG, comm, &m, st);
    } else {
      MPI_Improbe(source, MPI_ANY_TAG, comm, flag, &m, st);
      if (!*flag)
        return MPI_SUCCESS;
    }
    if (!aside_if_adjoint(&m, st, comm))
      return MPI_Mrecv(buf, n, MPI_DOUBLE, &m, st);
  }
}

/* An adjoint set aside from source with the adjoint's tag, the oldest, into
 * t: whether there was one. */
static int from_aside(double *t, int n, int source, int atag, MPI_Comm comm) {
  for (aside **a = &set_aside; *a; a = &(*a)->next) {
    aside *found = *a;
    if (found->comm != comm || found->source != source || found->tag != atag)
      continue;
    require(found->count == n, "an adjoint's message in an MPI derivative has the wrong length");
    memcpy(t, found->data, n * sizeof(double));
    *a = found->next;
    free(found->data);
    free(found);
    return 1;
  }
  return 0;
}

/* Reverse mode: n adjoints from source into t (blocking, or started in *req). */
static void receive_adjoint(double *t, int n, int source, int tag, MPI_Comm comm, MPI_Request *req) {
  int atag = adjoint_tag(tag);
  if (req)
    *req = MPI_REQUEST_NULL;
  if (from_aside(t, n, source, atag, comm))
    return;
  if (req)
    MPI_Irecv(t, n, MPI_DOUBLE, source, atag, comm, req);
  else
    MPI_Recv(t, n, MPI_DOUBLE, source, atag, comm, MPI_STATUS_IGNORE);
}

/* ---- MPI_Send: reverse receives the adjoint from the destination ---- */
static int send_fwd(const void *buf, const void *dbuf, int n, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  AS_DOUBLES(n, dt, "MPI_Send");
  double *p = packed(buf, dbuf, n);
  int r = MPI_Send(p, 2 * n, dt, dest, tag, comm);
  free(p);
  return r;
}
static int send_aug(const void *buf, void *dbuf, int n, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  AS_DOUBLES(n, dt, "MPI_Send");
  (void)dbuf;
  return MPI_Send(buf, n, dt, dest, tag, comm);
}
static void send_rev(const void *buf, void *dbuf, int n, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  AS_DOUBLES(n, dt, "MPI_Send");
  (void)buf;
  n = comes_back(n, dest);
  double *t = scratch(n);
  receive_adjoint(t, n, dest, tag, comm, NULL);
  if (dbuf)
    add_into(dbuf, t, n);
  free(t);
}
REGISTER void *__enzyme_register_derivative_MPI_Send[2] = {(void *)MPI_Send, (void *)send_fwd};
REGISTER void *__enzyme_register_gradient_MPI_Send[3] = {(void *)MPI_Send, (void *)send_aug, (void *)send_rev};

/* ---- MPI_Recv: reverse sends the adjoint back to the actual source ---- */
static int recv_fwd(void *buf, void *dbuf, int n, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                    MPI_Status *status, MPI_Status *dstatus) {
  AS_DOUBLES(n, dt, "MPI_Recv");
  (void)dstatus;
  double *p = scratch(2 * n);
  MPI_Status st;
  int r = MPI_Recv(p, 2 * n, dt, source, tag, comm, &st);
  unpack(p, buf, dbuf, &st, source);
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  free(p);
  return r;
}
static aug_int recv_aug(void *buf, void *dbuf, int n, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                        MPI_Status *status, MPI_Status *dstatus) {
  AS_DOUBLES(n, dt, "MPI_Recv");
  (void)dbuf, (void)dstatus;
  MPI_Status st;
  int made, r = receive_values(buf, n, source, tag, comm, &st, 1, &made);
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  return (aug_int){arrival_tape(&st, source), r};
}
static void recv_rev(void *buf, void *dbuf, int n, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                     MPI_Status *status, MPI_Status *dstatus, void *tape) {
  AS_DOUBLES(n, dt, "MPI_Recv");
  (void)buf, (void)source, (void)tag, (void)status, (void)dstatus;
  arrival *from = tape;
  double *t = take_adjoint(dbuf, from->count);
  MPI_Send(t, from->count, dt, from->source, adjoint_tag(from->tag), comm);
  free(t);
  free(from);
}
REGISTER void *__enzyme_register_derivative_MPI_Recv[2] = {(void *)MPI_Recv, (void *)recv_fwd};
REGISTER void *__enzyme_register_gradient_MPI_Recv[3] = {(void *)MPI_Recv, (void *)recv_aug, (void *)recv_rev};

/* ---- MPI_Sendrecv: both directions at once, reversed ---- */
static int sendrecv_fwd(const void *send, const void *dsend, int sc, MPI_Datatype st, int dest, int stag, void *recv,
                        void *drecv, int rc, MPI_Datatype rt, int source, int rtag, MPI_Comm comm, MPI_Status *status,
                        MPI_Status *dstatus) {
  AS_DOUBLES(sc, st, "MPI_Sendrecv");
  AS_DOUBLES(rc, rt, "MPI_Sendrecv");
  (void)dstatus;
  double *out = packed(send, dsend, sc), *in = scratch(2 * rc);
  MPI_Status s;
  int r = MPI_Sendrecv(out, 2 * sc, st, dest, stag, in, 2 * rc, rt, source, rtag, comm, &s);
  unpack(in, recv, drecv, &s, source);
  if (status != MPI_STATUS_IGNORE)
    *status = s;
  free(out);
  free(in);
  return r;
}
static aug_int sendrecv_aug(const void *send, void *dsend, int sc, MPI_Datatype st, int dest, int stag, void *recv,
                            void *drecv, int rc, MPI_Datatype rt, int source, int rtag, MPI_Comm comm,
                            MPI_Status *status, MPI_Status *dstatus) {
  AS_DOUBLES(sc, st, "MPI_Sendrecv");
  AS_DOUBLES(rc, rt, "MPI_Sendrecv");
  (void)dsend, (void)drecv, (void)dstatus;
  MPI_Status s;
  MPI_Request out;
  int made, r;
  if (rtag == MPI_ANY_TAG) {
    MPI_Isend(send, sc, st, dest, stag, comm, &out);
    r = receive_values(recv, rc, source, rtag, comm, &s, 1, &made);
    MPI_Wait(&out, MPI_STATUS_IGNORE);
  } else {
    r = MPI_Sendrecv(send, sc, st, dest, stag, recv, rc, rt, source, rtag, comm, &s);
  }
  if (status != MPI_STATUS_IGNORE)
    *status = s;
  return (aug_int){arrival_tape(&s, source), r};
}
static void sendrecv_rev(const void *send, void *dsend, int sc, MPI_Datatype st, int dest, int stag, void *recv,
                         void *drecv, int rc, MPI_Datatype rt, int source, int rtag, MPI_Comm comm, MPI_Status *status,
                         MPI_Status *dstatus, void *tape) {
  AS_DOUBLES(sc, st, "MPI_Sendrecv");
  AS_DOUBLES(rc, rt, "MPI_Sendrecv");
  (void)send, (void)recv, (void)rc, (void)source, (void)rtag, (void)status, (void)dstatus;
  arrival *from = tape;
  /* The received values' adjoints go back to where they came from; the sent
     values' adjoints come back from where they went. */
  sc = comes_back(sc, dest);
  double *back = take_adjoint(drecv, from->count), *t = scratch(sc);
  MPI_Request out;
  MPI_Isend(back, from->count, rt, from->source, adjoint_tag(from->tag), comm, &out);
  receive_adjoint(t, sc, dest, stag, comm, NULL);
  MPI_Wait(&out, MPI_STATUS_IGNORE);
  if (dsend)
    add_into(dsend, t, sc);
  free(back);
  free(t);
  free(from);
}
REGISTER void *__enzyme_register_derivative_MPI_Sendrecv[2] = {(void *)MPI_Sendrecv, (void *)sendrecv_fwd};
REGISTER void *__enzyme_register_gradient_MPI_Sendrecv[3] = {(void *)MPI_Sendrecv, (void *)sendrecv_aug,
                                                            (void *)sendrecv_rev};

/* ---- Non-blocking: MPI_Isend, MPI_Irecv, MPI_Wait, MPI_Waitall, MPI_Test.
 * The shadow of a request holds the number of a record of the operation.
 * Forward mode: the record keeps the packed message until the wait, which
 * unpacks a receive's. Reverse mode: the reverse of the wait starts the
 * adjoint's message the other way, and the reverse of the operation itself
 * waits for it (and adds what came back). A shadow holding MPI_REQUEST_NULL
 * (mirroring the request's: no operation, or one complete) or 0 has no
 * record; a wait leaves MPI_REQUEST_NULL in both. ---- */
typedef struct {
  int sending;  /* an Isend (its adjoint comes back) or an Irecv (its adjoint goes back) */
  int deferred; /* reverse mode, an Irecv with MPI_ANY_TAG: made at the wait (its request null till then) */
  void *values; /* an Irecv's buffer (forward mode, or deferred) */
  double *shadow;
  int n, peer, tag; /* an Irecv's source (asked for); reverse mode: the adjoint's message */
  MPI_Comm comm;
  double *message; /* forward mode: values and tangents; reverse mode: the adjoint */
  MPI_Request pending;
} operation;

static operation **operations;
static int operation_count, operation_cap;

/* A record's number, from 1. */
static int record(operation *op) {
  for (int k = 0; k < operation_count; k++)
    if (!operations[k]) {
      operations[k] = op;
      return k + 1;
    }
  if (operation_count == operation_cap) {
    operation_cap = operation_cap ? 2 * operation_cap : 64;
    operations = realloc(operations, operation_cap * sizeof(operation *));
    require(operations != NULL, "out of memory in an MPI derivative");
  }
  operations[operation_count++] = op;
  return operation_count;
}

static int no_record(MPI_Request number) { return number == MPI_REQUEST_NULL || number == 0; }

static operation *recorded(int number) {
  require(number > 0 && number <= operation_count && operations[number - 1],
          "a request waited for in differentiated code was not started by a differentiated MPI_Isend or MPI_Irecv");
  return operations[number - 1];
}

static void forget(int number) { operations[number - 1] = NULL; }

/* A new record, its number in the request's shadow. */
static operation *recording(operation op, MPI_Request *dreq, const char *call) {
  if (!dreq) {
    fprintf(stderr, "enzyme-rs: %s in differentiated code needs a shadow of its request\n", call);
    fflush(stderr);
    abort();
  }
  operation *p = malloc(sizeof *p);
  require(p != NULL, "out of memory in an MPI derivative");
  *p = op;
  *dreq = record(p);
  return p;
}

static int isend_fwd(const void *buf, const void *dbuf, int n, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                     MPI_Request *req, MPI_Request *dreq) {
  AS_DOUBLES(n, dt, "MPI_Isend");
  operation *op = recording((operation){.sending = 1, .message = packed(buf, dbuf, n)}, dreq, "MPI_Isend");
  return MPI_Isend(op->message, 2 * n, dt, dest, tag, comm, req);
}
static int irecv_fwd(void *buf, void *dbuf, int n, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                     MPI_Request *req, MPI_Request *dreq) {
  AS_DOUBLES(n, dt, "MPI_Irecv");
  operation *op = recording((operation){.values = buf, .shadow = dbuf, .peer = source, .message = scratch(2 * n)},
                            dreq, "MPI_Irecv");
  return MPI_Irecv(op->message, 2 * n, dt, source, tag, comm, req);
}

/* Forward mode, an operation complete: an Irecv's values and tangents to
 * their buffers (its status then counts the values); the record goes. */
static void delivered(MPI_Request *dreq, MPI_Status *st) {
  if (!dreq || no_record(*dreq))
    return;
  operation *op = recorded(*dreq);
  if (!op->sending)
    unpack(op->message, op->values, op->shadow, st, op->peer);
  free(op->message);
  free(op);
  forget(*dreq);
  *dreq = MPI_REQUEST_NULL;
}

static int wait_fwd(MPI_Request *req, MPI_Request *dreq, MPI_Status *status, MPI_Status *dstatus) {
  (void)dstatus;
  MPI_Status st;
  int r = MPI_Wait(req, &st);
  delivered(dreq, &st);
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  return r;
}

/* Statuses for a waitall's own use: the caller's may be MPI_STATUSES_IGNORE. */
static MPI_Status *statuses_for(int count) {
  MPI_Status *st = malloc((count > 0 ? count : 1) * sizeof(MPI_Status));
  require(st != NULL, "out of memory in an MPI derivative");
  return st;
}

static int waitall_fwd(int count, MPI_Request *reqs, MPI_Request *dreqs, MPI_Status *statuses,
                       MPI_Status *dstatuses) {
  (void)dstatuses;
  MPI_Status *st = statuses_for(count);
  int r = MPI_Waitall(count, reqs, st);
  for (int k = 0; k < count; k++) {
    delivered(dreqs ? &dreqs[k] : NULL, &st[k]);
    if (statuses != MPI_STATUSES_IGNORE)
      statuses[k] = st[k];
  }
  free(st);
  return r;
}

static aug_int isend_aug(const void *buf, void *dbuf, int n, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                         MPI_Request *req, MPI_Request *dreq) {
  AS_DOUBLES(n, dt, "MPI_Isend");
  operation op = {.sending = 1, .shadow = dbuf, .n = comes_back(n, dest), .peer = dest, .tag = tag, .comm = comm};
  recording(op, dreq, "MPI_Isend");
  int number = *dreq;
  return (aug_int){(void *)(long)number, MPI_Isend(buf, n, dt, dest, tag, comm, req)};
}
static aug_int irecv_aug(void *buf, void *dbuf, int n, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                         MPI_Request *req, MPI_Request *dreq) {
  AS_DOUBLES(n, dt, "MPI_Irecv");
  /* Where the values come from, and how many, is known at the wait; with
     MPI_ANY_TAG the receive is made there too, by probes (see adjoint_tag). */
  int deferred = tag == MPI_ANY_TAG && source != MPI_PROC_NULL;
  operation op = {.deferred = deferred, .values = buf, .shadow = dbuf, .n = n, .peer = source, .comm = comm};
  recording(op, dreq, "MPI_Irecv");
  int number = *dreq;
  if (deferred) {
    *req = MPI_REQUEST_NULL;
    return (aug_int){(void *)(long)number, MPI_SUCCESS};
  }
  return (aug_int){(void *)(long)number, MPI_Irecv(buf, n, dt, source, tag, comm, req)};
}

/* A deferred Irecv made (or, unless `wait`, tried: *flag says whether it
 * was), its status in *st. Anything else: *flag 0. */
static int make_deferred(MPI_Request *dreq, MPI_Status *st, int wait, int *flag) {
  *flag = 0;
  if (no_record(*dreq) || !recorded(*dreq)->deferred)
    return MPI_SUCCESS;
  operation *op = recorded(*dreq);
  int r = receive_values(op->values, op->n, op->peer, MPI_ANY_TAG, op->comm, st, wait, flag);
  if (*flag)
    op->deferred = 0;
  return r;
}

/* Reverse mode, after the wait: an Irecv's actual source, tag and count;
 * the request's number for the tape (0: no record), and the shadow's
 * MPI_REQUEST_NULL, so a later wait on the spent request does nothing. */
static int completed(MPI_Request *dreq, const MPI_Status *st) {
  if (no_record(*dreq))
    return 0;
  int number = *dreq;
  operation *op = recorded(number);
  if (!op->sending) {
    arrival a = arrived(st, op->peer);
    op->peer = a.source, op->tag = a.tag, op->n = a.count;
  }
  *dreq = MPI_REQUEST_NULL;
  return number;
}

static aug_int wait_aug(MPI_Request *req, MPI_Request *dreq, MPI_Status *status, MPI_Status *dstatus) {
  (void)dstatus;
  require(dreq != NULL, "MPI_Wait in differentiated code needs a shadow of its request");
  MPI_Status st;
  int made, r = make_deferred(dreq, &st, 1, &made);
  if (!made)
    r = MPI_Wait(req, &st);
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  return (aug_int){(void *)(long)completed(dreq, &st), r};
}
static aug_int waitall_aug(int count, MPI_Request *reqs, MPI_Request *dreqs, MPI_Status *statuses,
                           MPI_Status *dstatuses) {
  (void)dstatuses;
  require(dreqs != NULL, "MPI_Waitall in differentiated code needs a shadow of its requests");
  MPI_Status *st = statuses_for(count);
  int *numbers = malloc((count > 0 ? count : 1) * sizeof(int) + sizeof(int));
  require(numbers != NULL, "out of memory in an MPI derivative");
  numbers[0] = count;
  /* The deferred receives first (their requests are null), then the rest. */
  MPI_Status *rest = statuses_for(count);
  int *made = malloc((count > 0 ? count : 1) * sizeof(int));
  require(made != NULL, "out of memory in an MPI derivative");
  for (int k = 0; k < count; k++) make_deferred(&dreqs[k], &st[k], 1, &made[k]);
  int r = MPI_Waitall(count, reqs, rest);
  for (int k = 0; k < count; k++) {
    if (!made[k])
      st[k] = rest[k];
    numbers[k + 1] = completed(&dreqs[k], &st[k]);
    if (statuses != MPI_STATUSES_IGNORE)
      statuses[k] = st[k];
  }
  free(st);
  free(rest);
  free(made);
  return (aug_int){numbers, r};
}

/* The reverse of a wait: the adjoint's message starts, the other way. */
static void start_adjoint(int number) {
  if (number == 0)
    return;
  operation *op = recorded(number);
  if (op->sending) {
    op->message = scratch(op->n);
    receive_adjoint(op->message, op->n, op->peer, op->tag, op->comm, &op->pending);
  } else {
    op->message = take_adjoint(op->shadow, op->n);
    MPI_Isend(op->message, op->n, MPI_DOUBLE, op->peer, adjoint_tag(op->tag), op->comm, &op->pending);
  }
}
static void wait_rev(MPI_Request *req, MPI_Request *dreq, MPI_Status *status, MPI_Status *dstatus, void *tape) {
  (void)req, (void)dreq, (void)status, (void)dstatus;
  start_adjoint((int)(long)tape);
}
static void waitall_rev(int count, MPI_Request *reqs, MPI_Request *dreqs, MPI_Status *statuses,
                        MPI_Status *dstatuses, void *tape) {
  (void)count, (void)reqs, (void)dreqs, (void)statuses, (void)dstatuses;
  int *numbers = tape;
  for (int k = 0; k < numbers[0]; k++) start_adjoint(numbers[k + 1]);
  free(numbers);
}
/* ---- MPI_Test: where it finds the operation complete, as a wait. ---- */
static int test_fwd(MPI_Request *req, MPI_Request *dreq, int *flag, int *dflag, MPI_Status *status,
                    MPI_Status *dstatus) {
  (void)dflag, (void)dstatus;
  MPI_Status st;
  int r = MPI_Test(req, flag, &st);
  if (*flag) {
    delivered(dreq, &st);
    if (status != MPI_STATUS_IGNORE)
      *status = st;
  }
  return r;
}
static aug_int test_aug(MPI_Request *req, MPI_Request *dreq, int *flag, int *dflag, MPI_Status *status,
                        MPI_Status *dstatus) {
  (void)dflag, (void)dstatus;
  require(dreq != NULL, "MPI_Test in differentiated code needs a shadow of its request");
  MPI_Status st;
  int r;
  if (!no_record(*dreq) && recorded(*dreq)->deferred)
    r = make_deferred(dreq, &st, 0, flag);
  else
    r = MPI_Test(req, flag, &st);
  if (!*flag)
    return (aug_int){NULL, r};
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  return (aug_int){(void *)(long)completed(dreq, &st), r};
}
static void test_rev(MPI_Request *req, MPI_Request *dreq, int *flag, int *dflag, MPI_Status *status,
                     MPI_Status *dstatus, void *tape) {
  (void)req, (void)dreq, (void)flag, (void)dflag, (void)status, (void)dstatus;
  start_adjoint((int)(long)tape);
}

/* The reverse of the operation: its adjoint's message completes. */
static void finish_adjoint(int number) {
  operation *op = recorded(number);
  require(op->message != NULL, "an MPI_Isend or MPI_Irecv in differentiated code was never waited for");
  MPI_Wait(&op->pending, MPI_STATUS_IGNORE);
  if (op->sending && op->shadow)
    add_into(op->shadow, op->message, op->n);
  free(op->message);
  free(op);
  forget(number);
}
static void isend_rev(const void *buf, void *dbuf, int n, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                      MPI_Request *req, MPI_Request *dreq, void *tape) {
  AS_DOUBLES(n, dt, "MPI_Isend");
  (void)buf, (void)dbuf, (void)n, (void)dt, (void)dest, (void)tag, (void)comm, (void)req, (void)dreq;
  finish_adjoint((int)(long)tape);
}
static void irecv_rev(void *buf, void *dbuf, int n, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                      MPI_Request *req, MPI_Request *dreq, void *tape) {
  AS_DOUBLES(n, dt, "MPI_Irecv");
  (void)buf, (void)dbuf, (void)n, (void)dt, (void)source, (void)tag, (void)comm, (void)req, (void)dreq;
  finish_adjoint((int)(long)tape);
}
REGISTER void *__enzyme_register_derivative_MPI_Isend[2] = {(void *)MPI_Isend, (void *)isend_fwd};
REGISTER void *__enzyme_register_gradient_MPI_Isend[3] = {(void *)MPI_Isend, (void *)isend_aug, (void *)isend_rev};
REGISTER void *__enzyme_register_derivative_MPI_Irecv[2] = {(void *)MPI_Irecv, (void *)irecv_fwd};
REGISTER void *__enzyme_register_gradient_MPI_Irecv[3] = {(void *)MPI_Irecv, (void *)irecv_aug, (void *)irecv_rev};
REGISTER void *__enzyme_register_derivative_MPI_Wait[2] = {(void *)MPI_Wait, (void *)wait_fwd};
REGISTER void *__enzyme_register_gradient_MPI_Wait[3] = {(void *)MPI_Wait, (void *)wait_aug, (void *)wait_rev};
REGISTER void *__enzyme_register_derivative_MPI_Test[2] = {(void *)MPI_Test, (void *)test_fwd};
REGISTER void *__enzyme_register_gradient_MPI_Test[3] = {(void *)MPI_Test, (void *)test_aug, (void *)test_rev};
REGISTER void *__enzyme_register_derivative_MPI_Waitall[2] = {(void *)MPI_Waitall, (void *)waitall_fwd};
REGISTER void *__enzyme_register_gradient_MPI_Waitall[3] = {(void *)MPI_Waitall, (void *)waitall_aug,
                                                           (void *)waitall_rev};

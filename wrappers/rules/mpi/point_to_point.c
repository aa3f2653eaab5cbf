/* Derivatives of MPI's point-to-point communication: MPI_Send, MPI_Recv,
 * MPI_Sendrecv, and MPI_Isend and MPI_Irecv completed by MPI_Wait,
 * MPI_Waitall or MPI_Test (part of mpi.c's translation unit). */
#include "common.h"

/* ---- MPI_Send: reverse receives the adjoint from the destination ---- */
static int send_fwd(const void *buf, const void *dbuf, int n, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  AS_DOUBLES(n, dt, "MPI_Send");
  int r = MPI_Send(buf, n, dt, dest, tag, comm);
  double *owned, *t = or_zeros(dbuf, n, &owned);
  MPI_Send(t, n, dt, dest, tag, comm);
  free(owned);
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
  double *t = scratch(n);
  MPI_Recv(t, n, dt, dest, tag, comm, MPI_STATUS_IGNORE);
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
  MPI_Status st;
  int r = MPI_Recv(buf, n, dt, source, tag, comm, &st);
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  double *owned, *t = or_zeros(dbuf, n, &owned);
  MPI_Recv(t, n, dt, st.MPI_SOURCE, st.MPI_TAG, comm, MPI_STATUS_IGNORE);
  free(owned);
  return r;
}
static aug_int recv_aug(void *buf, void *dbuf, int n, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                        MPI_Status *status, MPI_Status *dstatus) {
  AS_DOUBLES(n, dt, "MPI_Recv");
  (void)dbuf, (void)dstatus;
  MPI_Status st;
  int r = MPI_Recv(buf, n, dt, source, tag, comm, &st);
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  int *from = malloc(2 * sizeof(int));
  require(from != NULL, "out of memory in an MPI derivative");
  from[0] = st.MPI_SOURCE, from[1] = st.MPI_TAG;
  return (aug_int){from, r};
}
static void recv_rev(void *buf, void *dbuf, int n, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                     MPI_Status *status, MPI_Status *dstatus, void *tape) {
  AS_DOUBLES(n, dt, "MPI_Recv");
  (void)buf, (void)source, (void)tag, (void)status, (void)dstatus;
  int *from = tape;
  double *t = scratch(n);
  if (dbuf) {
    memcpy(t, dbuf, n * sizeof(double));
    /* The received values overwrote the buffer: what it held had no effect. */
    memset(dbuf, 0, n * sizeof(double));
  } else {
    memset(t, 0, n * sizeof(double));
  }
  MPI_Send(t, n, dt, from[0], from[1], comm);
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
  MPI_Status s;
  int r = MPI_Sendrecv(send, sc, st, dest, stag, recv, rc, rt, source, rtag, comm, &s);
  if (status != MPI_STATUS_IGNORE)
    *status = s;
  double *zeros = NULL;
  if (!dsend) {
    zeros = scratch(sc);
    memset(zeros, 0, sc * sizeof(double));
  }
  double *sink = drecv ? drecv : scratch(rc);
  MPI_Sendrecv(dsend ? dsend : zeros, sc, st, dest, stag, sink, rc, rt, s.MPI_SOURCE, s.MPI_TAG, comm,
               MPI_STATUS_IGNORE);
  if (!drecv)
    free(sink);
  free(zeros);
  return r;
}
static aug_int sendrecv_aug(const void *send, void *dsend, int sc, MPI_Datatype st, int dest, int stag, void *recv,
                            void *drecv, int rc, MPI_Datatype rt, int source, int rtag, MPI_Comm comm,
                            MPI_Status *status, MPI_Status *dstatus) {
  AS_DOUBLES(sc, st, "MPI_Sendrecv");
  AS_DOUBLES(rc, rt, "MPI_Sendrecv");
  (void)dsend, (void)drecv, (void)dstatus;
  MPI_Status s;
  int r = MPI_Sendrecv(send, sc, st, dest, stag, recv, rc, rt, source, rtag, comm, &s);
  if (status != MPI_STATUS_IGNORE)
    *status = s;
  int *from = malloc(2 * sizeof(int));
  require(from != NULL, "out of memory in an MPI derivative");
  from[0] = s.MPI_SOURCE, from[1] = s.MPI_TAG;
  return (aug_int){from, r};
}
static void sendrecv_rev(const void *send, void *dsend, int sc, MPI_Datatype st, int dest, int stag, void *recv,
                         void *drecv, int rc, MPI_Datatype rt, int source, int rtag, MPI_Comm comm, MPI_Status *status,
                         MPI_Status *dstatus, void *tape) {
  AS_DOUBLES(sc, st, "MPI_Sendrecv");
  AS_DOUBLES(rc, rt, "MPI_Sendrecv");
  (void)send, (void)recv, (void)source, (void)rtag, (void)status, (void)dstatus;
  int *from = tape;
  /* The received values' adjoints go back to where they came from; the sent
     values' adjoints come back from where they went. */
  double *back = scratch(rc), *t = scratch(sc);
  if (drecv) {
    memcpy(back, drecv, rc * sizeof(double));
    memset(drecv, 0, rc * sizeof(double));
  } else {
    memset(back, 0, rc * sizeof(double));
  }
  MPI_Sendrecv(back, rc, rt, from[0], from[1], t, sc, st, dest, stag, comm, MPI_STATUS_IGNORE);
  if (dsend)
    add_into(dsend, t, sc);
  free(back);
  free(t);
  free(from);
}
REGISTER void *__enzyme_register_derivative_MPI_Sendrecv[2] = {(void *)MPI_Sendrecv, (void *)sendrecv_fwd};
REGISTER void *__enzyme_register_gradient_MPI_Sendrecv[3] = {(void *)MPI_Sendrecv, (void *)sendrecv_aug,
                                                            (void *)sendrecv_rev};

/* ---- Non-blocking point to point: MPI_Isend, MPI_Irecv, MPI_Wait, MPI_Waitall,
 * MPI_Test.
 * Forward mode: the tangent travels in a second message whose request is
 * kept in the shadow of the request. Reverse mode: the shadow of the request
 * holds the number of a record of the operation; the reverse of its wait
 * starts the adjoint's message the other way, and the reverse of the
 * operation itself waits for it (and adds what came back). ---- */
typedef struct {
  int sending; /* an Isend (its adjoint comes back) or an Irecv (its adjoint goes back) */
  double *shadow;
  int n, peer, tag;
  MPI_Comm comm;
  double *adjoint;
  MPI_Request pending;
} operation;

static operation **operations;
static int operation_count, operation_cap;

/* A record's number, from 1 (0: none). */
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

static operation *recorded(int number) {
  require(number > 0 && number <= operation_count && operations[number - 1],
          "a request waited for in differentiated code was not started by a differentiated MPI_Isend or MPI_Irecv");
  return operations[number - 1];
}

static void forget(int number) { operations[number - 1] = NULL; }

static int isend_fwd(const void *buf, const void *dbuf, int n, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                     MPI_Request *req, MPI_Request *dreq) {
  AS_DOUBLES(n, dt, "MPI_Isend");
  require(dbuf != NULL && dreq != NULL, "MPI_Isend in differentiated code needs shadows of its buffer and request");
  int r = MPI_Isend(buf, n, dt, dest, tag, comm, req);
  MPI_Isend(dbuf, n, dt, dest, tag, comm, dreq);
  return r;
}
static int irecv_fwd(void *buf, void *dbuf, int n, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                     MPI_Request *req, MPI_Request *dreq) {
  AS_DOUBLES(n, dt, "MPI_Irecv");
  require(dbuf != NULL && dreq != NULL, "MPI_Irecv in differentiated code needs shadows of its buffer and request");
  require(source != MPI_ANY_SOURCE && tag != MPI_ANY_TAG,
          "MPI_Irecv from any source or with any tag is not differentiated in forward mode yet");
  int r = MPI_Irecv(buf, n, dt, source, tag, comm, req);
  MPI_Irecv(dbuf, n, dt, source, tag, comm, dreq);
  return r;
}
static int wait_fwd(MPI_Request *req, MPI_Request *dreq, MPI_Status *status, MPI_Status *dstatus) {
  (void)dstatus;
  int r = MPI_Wait(req, status);
  if (dreq)
    MPI_Wait(dreq, MPI_STATUS_IGNORE);
  return r;
}
static int waitall_fwd(int count, MPI_Request *reqs, MPI_Request *dreqs, MPI_Status *statuses,
                       MPI_Status *dstatuses) {
  (void)dstatuses;
  int r = MPI_Waitall(count, reqs, statuses);
  if (dreqs)
    MPI_Waitall(count, dreqs, MPI_STATUSES_IGNORE);
  return r;
}

/* The record of an Isend or Irecv whose request is `*dreq`: its number goes
 * into the request's shadow (and the tape). */
static void *remember(int sending, void *dbuf, int n, int peer, int tag, MPI_Comm comm, MPI_Request *dreq) {
  require(dreq != NULL, "MPI_Isend and MPI_Irecv in differentiated code need a shadow of their request");
  operation *op = malloc(sizeof *op);
  require(op != NULL, "out of memory in an MPI derivative");
  *op = (operation){sending, dbuf, n, peer, tag, comm, NULL, MPI_REQUEST_NULL};
  int number = record(op);
  *dreq = number;
  return (void *)(long)number;
}
static aug_int isend_aug(const void *buf, void *dbuf, int n, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                         MPI_Request *req, MPI_Request *dreq) {
  AS_DOUBLES(n, dt, "MPI_Isend");
  int r = MPI_Isend(buf, n, dt, dest, tag, comm, req);
  return (aug_int){remember(1, dbuf, n, dest, tag, comm, dreq), r};
}
static aug_int irecv_aug(void *buf, void *dbuf, int n, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                         MPI_Request *req, MPI_Request *dreq) {
  AS_DOUBLES(n, dt, "MPI_Irecv");
  int r = MPI_Irecv(buf, n, dt, source, tag, comm, req);
  return (aug_int){remember(0, dbuf, n, source, tag, comm, dreq), r};
}

/* After the wait: an Irecv's actual source and tag. Number 0: a request
 * already completed (by an MPI_Test) or null, nothing to record. */
static void completed(int number, const MPI_Status *st) {
  if (number == 0)
    return;
  operation *op = recorded(number);
  if (!op->sending)
    op->peer = st->MPI_SOURCE, op->tag = st->MPI_TAG;
}

static aug_int wait_aug(MPI_Request *req, MPI_Request *dreq, MPI_Status *status, MPI_Status *dstatus) {
  (void)dstatus;
  require(dreq != NULL, "MPI_Wait in differentiated code needs a shadow of its request");
  MPI_Status st;
  int number = *dreq;
  int r = MPI_Wait(req, &st);
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  completed(number, &st);
  return (aug_int){(void *)(long)number, r};
}
static aug_int waitall_aug(int count, MPI_Request *reqs, MPI_Request *dreqs, MPI_Status *statuses,
                           MPI_Status *dstatuses) {
  (void)dstatuses;
  require(dreqs != NULL, "MPI_Waitall in differentiated code needs a shadow of its requests");
  MPI_Status *st = malloc((count > 0 ? count : 1) * sizeof(MPI_Status));
  int *numbers = malloc((count > 0 ? count : 1) * sizeof(int) + sizeof(int));
  require(st != NULL && numbers != NULL, "out of memory in an MPI derivative");
  numbers[0] = count;
  for (int k = 0; k < count; k++) numbers[k + 1] = dreqs[k];
  int r = MPI_Waitall(count, reqs, st);
  for (int k = 0; k < count; k++) {
    completed(numbers[k + 1], &st[k]);
    if (statuses != MPI_STATUSES_IGNORE)
      statuses[k] = st[k];
  }
  free(st);
  return (aug_int){numbers, r};
}

/* The reverse of a wait: the adjoint's message starts, the other way. */
static void start_adjoint(int number) {
  if (number == 0)
    return;
  operation *op = recorded(number);
  op->adjoint = scratch(op->n);
  if (op->sending) {
    MPI_Irecv(op->adjoint, op->n, MPI_DOUBLE, op->peer, op->tag, op->comm, &op->pending);
  } else {
    if (op->shadow) {
      memcpy(op->adjoint, op->shadow, op->n * sizeof(double));
      /* The received values overwrote the buffer: what it held had no effect. */
      memset(op->shadow, 0, op->n * sizeof(double));
    } else {
      memset(op->adjoint, 0, op->n * sizeof(double));
    }
    MPI_Isend(op->adjoint, op->n, MPI_DOUBLE, op->peer, op->tag, op->comm, &op->pending);
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
/* ---- MPI_Test: where it finds the operation complete, as a wait (its
 * reverse starts the adjoint's message); the request's shadow then holds no
 * record, so a later wait on the spent request does nothing. ---- */
static int test_fwd(MPI_Request *req, MPI_Request *dreq, int *flag, int *dflag, MPI_Status *status,
                    MPI_Status *dstatus) {
  (void)dflag, (void)dstatus;
  int r = MPI_Test(req, flag, status);
  /* The tangent's message was started beside the value's: it completes too. */
  if (*flag && dreq)
    MPI_Wait(dreq, MPI_STATUS_IGNORE);
  return r;
}
static aug_int test_aug(MPI_Request *req, MPI_Request *dreq, int *flag, int *dflag, MPI_Status *status,
                        MPI_Status *dstatus) {
  (void)dflag, (void)dstatus;
  require(dreq != NULL, "MPI_Test in differentiated code needs a shadow of its request");
  MPI_Status st;
  int number = *dreq;
  int r = MPI_Test(req, flag, &st);
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  if (!*flag)
    return (aug_int){NULL, r};
  completed(number, &st);
  *dreq = 0;
  return (aug_int){(void *)(long)number, r};
}
static void test_rev(MPI_Request *req, MPI_Request *dreq, int *flag, int *dflag, MPI_Status *status,
                     MPI_Status *dstatus, void *tape) {
  (void)req, (void)dreq, (void)flag, (void)dflag, (void)status, (void)dstatus;
  start_adjoint((int)(long)tape);
}

/* The reverse of the operation: its adjoint's message completes. */
static void finish_adjoint(int number) {
  operation *op = recorded(number);
  require(op->adjoint != NULL, "an MPI_Isend or MPI_Irecv in differentiated code was never waited for");
  MPI_Wait(&op->pending, MPI_STATUS_IGNORE);
  if (op->sending && op->shadow)
    add_into(op->shadow, op->adjoint, op->n);
  free(op->adjoint);
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

/* Derivatives of MPI communication (MPICH's ABI), as Enzyme-style custom
 * rules: forward mode sends tangents alongside values; in reverse mode the
 * adjoint communication runs the other way (a send's adjoint is a receive,
 * a broadcast's a reduction). Contiguous doubles (`MPI_DOUBLE`) and
 * `MPI_SUM` reductions only: anything else stops the program with a message
 * naming it, rather than give a wrong derivative. Built only where MPICH's
 * headers are (see the Makefile); linked into programs that declare these
 * functions and ask for derivatives. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REGISTER static __attribute__((used))

static void require(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "enzyme-rs: %s\n", what);
    fflush(stderr);
    abort();
  }
}

static void doubles_only(MPI_Datatype dt, const char *call) {
  if (dt != MPI_DOUBLE) {
    fprintf(stderr, "enzyme-rs: derivatives of %s support MPI_DOUBLE data only\n", call);
    fflush(stderr);
    abort();
  }
}

static void add_into(double *to, const double *from, int n) {
  for (int k = 0; k < n; k++) to[k] += from[k];
}

static double *scratch(int n) {
  double *t = malloc((n > 0 ? n : 1) * sizeof(double));
  require(t != NULL, "out of memory in an MPI derivative");
  return t;
}

/* ---- MPI_Send: reverse receives the adjoint from the destination ---- */
static int send_fwd(const void *buf, const void *dbuf, int n, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  doubles_only(dt, "MPI_Send");
  int r = MPI_Send(buf, n, dt, dest, tag, comm);
  if (dbuf)
    MPI_Send(dbuf, n, dt, dest, tag, comm);
  return r;
}
static int send_aug(const void *buf, void *dbuf, int n, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  (void)dbuf;
  doubles_only(dt, "MPI_Send");
  return MPI_Send(buf, n, dt, dest, tag, comm);
}
static void send_rev(const void *buf, void *dbuf, int n, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
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
typedef struct {
  void *tape;
  int result;
} aug_int;

static int recv_fwd(void *buf, void *dbuf, int n, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                    MPI_Status *status, MPI_Status *dstatus) {
  (void)dstatus;
  doubles_only(dt, "MPI_Recv");
  MPI_Status st;
  int r = MPI_Recv(buf, n, dt, source, tag, comm, &st);
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  if (dbuf)
    MPI_Recv(dbuf, n, dt, st.MPI_SOURCE, st.MPI_TAG, comm, MPI_STATUS_IGNORE);
  return r;
}
static aug_int recv_aug(void *buf, void *dbuf, int n, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                        MPI_Status *status, MPI_Status *dstatus) {
  (void)dbuf, (void)dstatus;
  doubles_only(dt, "MPI_Recv");
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

/* ---- MPI_Allreduce (sum): the adjoints are summed over the ranks too ---- */
static int allreduce_fwd(const void *send, const void *dsend, void *recv, void *drecv, int n, MPI_Datatype dt,
                         MPI_Op op, MPI_Comm comm) {
  doubles_only(dt, "MPI_Allreduce");
  require(op == MPI_SUM, "derivatives of MPI_Allreduce support MPI_SUM only");
  int r = MPI_Allreduce(send, recv, n, dt, op, comm);
  if (drecv)
    MPI_Allreduce(send == MPI_IN_PLACE ? MPI_IN_PLACE : dsend, drecv, n, dt, op, comm);
  return r;
}
static int allreduce_aug(const void *send, void *dsend, void *recv, void *drecv, int n, MPI_Datatype dt, MPI_Op op,
                         MPI_Comm comm) {
  (void)dsend, (void)drecv;
  doubles_only(dt, "MPI_Allreduce");
  require(op == MPI_SUM, "derivatives of MPI_Allreduce support MPI_SUM only");
  return MPI_Allreduce(send, recv, n, dt, op, comm);
}
static void allreduce_rev(const void *send, void *dsend, void *recv, void *drecv, int n, MPI_Datatype dt, MPI_Op op,
                          MPI_Comm comm) {
  (void)recv;
  double *t = scratch(n);
  if (drecv)
    memcpy(t, drecv, n * sizeof(double));
  else
    memset(t, 0, n * sizeof(double));
  MPI_Allreduce(MPI_IN_PLACE, t, n, dt, op, comm);
  if (send == MPI_IN_PLACE) {
    if (drecv)
      memcpy(drecv, t, n * sizeof(double));
  } else {
    if (drecv)
      memset(drecv, 0, n * sizeof(double));
    if (dsend)
      add_into(dsend, t, n);
  }
  free(t);
}
REGISTER void *__enzyme_register_derivative_MPI_Allreduce[2] = {(void *)MPI_Allreduce, (void *)allreduce_fwd};
REGISTER void *__enzyme_register_gradient_MPI_Allreduce[3] = {(void *)MPI_Allreduce, (void *)allreduce_aug,
                                                             (void *)allreduce_rev};

/* ---- MPI_Bcast: the adjoints are summed at the root ---- */
static int bcast_fwd(void *buf, void *dbuf, int n, MPI_Datatype dt, int root, MPI_Comm comm) {
  doubles_only(dt, "MPI_Bcast");
  int r = MPI_Bcast(buf, n, dt, root, comm);
  if (dbuf)
    MPI_Bcast(dbuf, n, dt, root, comm);
  return r;
}
static int bcast_aug(void *buf, void *dbuf, int n, MPI_Datatype dt, int root, MPI_Comm comm) {
  (void)dbuf;
  doubles_only(dt, "MPI_Bcast");
  return MPI_Bcast(buf, n, dt, root, comm);
}
static void bcast_rev(void *buf, void *dbuf, int n, MPI_Datatype dt, int root, MPI_Comm comm) {
  (void)buf;
  int rank;
  MPI_Comm_rank(comm, &rank);
  double *t = scratch(n), *sum = scratch(n);
  if (dbuf)
    memcpy(t, dbuf, n * sizeof(double));
  else
    memset(t, 0, n * sizeof(double));
  MPI_Reduce(t, sum, n, dt, MPI_SUM, root, comm);
  if (dbuf) {
    if (rank == root)
      memcpy(dbuf, sum, n * sizeof(double));
    else
      memset(dbuf, 0, n * sizeof(double));
  }
  free(t);
  free(sum);
}
REGISTER void *__enzyme_register_derivative_MPI_Bcast[2] = {(void *)MPI_Bcast, (void *)bcast_fwd};
REGISTER void *__enzyme_register_gradient_MPI_Bcast[3] = {(void *)MPI_Bcast, (void *)bcast_aug, (void *)bcast_rev};

/* ---- MPI_Reduce (sum): the root's adjoint is broadcast back ---- */
static int reduce_fwd(const void *send, const void *dsend, void *recv, void *drecv, int n, MPI_Datatype dt, MPI_Op op,
                      int root, MPI_Comm comm) {
  doubles_only(dt, "MPI_Reduce");
  require(op == MPI_SUM, "derivatives of MPI_Reduce support MPI_SUM only");
  require(send != MPI_IN_PLACE, "derivatives of MPI_Reduce do not support MPI_IN_PLACE yet");
  int r = MPI_Reduce(send, recv, n, dt, op, root, comm);
  if (dsend)
    MPI_Reduce(dsend, drecv, n, dt, op, root, comm);
  return r;
}
static int reduce_aug(const void *send, void *dsend, void *recv, void *drecv, int n, MPI_Datatype dt, MPI_Op op,
                      int root, MPI_Comm comm) {
  (void)dsend, (void)drecv;
  doubles_only(dt, "MPI_Reduce");
  require(op == MPI_SUM, "derivatives of MPI_Reduce support MPI_SUM only");
  require(send != MPI_IN_PLACE, "derivatives of MPI_Reduce do not support MPI_IN_PLACE yet");
  return MPI_Reduce(send, recv, n, dt, op, root, comm);
}
static void reduce_rev(const void *send, void *dsend, void *recv, void *drecv, int n, MPI_Datatype dt, MPI_Op op,
                       int root, MPI_Comm comm) {
  (void)send, (void)recv, (void)op;
  int rank;
  MPI_Comm_rank(comm, &rank);
  double *t = scratch(n);
  if (rank == root && drecv) {
    memcpy(t, drecv, n * sizeof(double));
    memset(drecv, 0, n * sizeof(double));
  } else {
    memset(t, 0, n * sizeof(double));
  }
  MPI_Bcast(t, n, dt, root, comm);
  if (dsend)
    add_into(dsend, t, n);
  free(t);
}
REGISTER void *__enzyme_register_derivative_MPI_Reduce[2] = {(void *)MPI_Reduce, (void *)reduce_fwd};
REGISTER void *__enzyme_register_gradient_MPI_Reduce[3] = {(void *)MPI_Reduce, (void *)reduce_aug,
                                                          (void *)reduce_rev};

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

/* ---- MPI_Allreduce: a sum's adjoints are summed over the ranks too; a max's
 * or min's derivative belongs to the rank holding the extreme (the lowest
 * such rank, as MPI_MAXLOC/MPI_MINLOC choose) ---- */
typedef struct {
  double value;
  int rank;
} value_rank;

/* MAX/MIN as MAXLOC/MINLOC: the results into recv, each element's owner into owner. */
static int extreme_with_owner(const void *send, void *recv, int n, MPI_Op op, MPI_Comm comm, int *owner) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  const double *in = send == MPI_IN_PLACE ? recv : send;
  value_rank *pairs = malloc((n > 0 ? n : 1) * sizeof(value_rank));
  require(pairs != NULL, "out of memory in an MPI derivative");
  for (int k = 0; k < n; k++) pairs[k] = (value_rank){in[k], rank};
  int r = MPI_Allreduce(MPI_IN_PLACE, pairs, n, MPI_DOUBLE_INT, op == MPI_MAX ? MPI_MAXLOC : MPI_MINLOC, comm);
  for (int k = 0; k < n; k++) ((double *)recv)[k] = pairs[k].value, owner[k] = pairs[k].rank;
  free(pairs);
  return r;
}

static void supported_op(MPI_Op op) {
  require(op == MPI_SUM || op == MPI_MAX || op == MPI_MIN,
          "derivatives of MPI_Allreduce support MPI_SUM, MPI_MAX and MPI_MIN only");
}

static int allreduce_fwd(const void *send, const void *dsend, void *recv, void *drecv, int n, MPI_Datatype dt,
                         MPI_Op op, MPI_Comm comm) {
  doubles_only(dt, "MPI_Allreduce");
  supported_op(op);
  if (op == MPI_SUM) {
    int r = MPI_Allreduce(send, recv, n, dt, op, comm);
    if (drecv)
      MPI_Allreduce(send == MPI_IN_PLACE ? MPI_IN_PLACE : dsend, drecv, n, dt, op, comm);
    return r;
  }
  int rank, *owner = malloc((n > 0 ? n : 1) * sizeof(int));
  MPI_Comm_rank(comm, &rank);
  double *t = scratch(n);
  const double *din = send == MPI_IN_PLACE ? drecv : dsend;
  for (int k = 0; k < n; k++) t[k] = din ? din[k] : 0;
  int r = extreme_with_owner(send, recv, n, op, comm, owner);
  for (int k = 0; k < n; k++)
    if (owner[k] != rank) t[k] = 0;
  MPI_Allreduce(MPI_IN_PLACE, t, n, dt, MPI_SUM, comm);
  if (drecv)
    memcpy(drecv, t, n * sizeof(double));
  free(t);
  free(owner);
  return r;
}
static aug_int allreduce_aug(const void *send, void *dsend, void *recv, void *drecv, int n, MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm) {
  (void)dsend, (void)drecv;
  doubles_only(dt, "MPI_Allreduce");
  supported_op(op);
  if (op == MPI_SUM)
    return (aug_int){NULL, MPI_Allreduce(send, recv, n, dt, op, comm)};
  int *owner = malloc((n > 0 ? n : 1) * sizeof(int));
  require(owner != NULL, "out of memory in an MPI derivative");
  int r = extreme_with_owner(send, recv, n, op, comm, owner);
  return (aug_int){owner, r};
}
static void allreduce_rev(const void *send, void *dsend, void *recv, void *drecv, int n, MPI_Datatype dt, MPI_Op op,
                          MPI_Comm comm, void *tape) {
  (void)recv;
  int *owner = tape, rank;
  MPI_Comm_rank(comm, &rank);
  double *t = scratch(n);
  if (drecv)
    memcpy(t, drecv, n * sizeof(double));
  else
    memset(t, 0, n * sizeof(double));
  MPI_Allreduce(MPI_IN_PLACE, t, n, dt, MPI_SUM, comm);
  /* What each rank's input receives: all of it for a sum, the owner's share for an extreme. */
  if (op != MPI_SUM)
    for (int k = 0; k < n; k++)
      if (owner[k] != rank) t[k] = 0;
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
  free(owner);
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

/* ---- MPI_Sendrecv: both directions at once, reversed ---- */
static int sendrecv_fwd(const void *send, const void *dsend, int sc, MPI_Datatype st, int dest, int stag, void *recv,
                        void *drecv, int rc, MPI_Datatype rt, int source, int rtag, MPI_Comm comm, MPI_Status *status,
                        MPI_Status *dstatus) {
  (void)dstatus;
  doubles_only(st, "MPI_Sendrecv");
  doubles_only(rt, "MPI_Sendrecv");
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
  (void)dsend, (void)drecv, (void)dstatus;
  doubles_only(st, "MPI_Sendrecv");
  doubles_only(rt, "MPI_Sendrecv");
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

/* ---- MPI_Allgather: each rank's block's adjoint is summed over the ranks ---- */
static int allgather_fwd(const void *send, const void *dsend, int sc, MPI_Datatype st, void *recv, void *drecv,
                         int rc, MPI_Datatype rt, MPI_Comm comm) {
  doubles_only(st, "MPI_Allgather");
  doubles_only(rt, "MPI_Allgather");
  require(send != MPI_IN_PLACE, "derivatives of MPI_Allgather do not support MPI_IN_PLACE yet");
  int r = MPI_Allgather(send, sc, st, recv, rc, rt, comm);
  if (drecv) {
    double *z = NULL;
    if (!dsend) {
      z = scratch(sc);
      memset(z, 0, sc * sizeof(double));
    }
    MPI_Allgather(dsend ? dsend : z, sc, st, drecv, rc, rt, comm);
    free(z);
  }
  return r;
}
static int allgather_aug(const void *send, void *dsend, int sc, MPI_Datatype st, void *recv, void *drecv, int rc,
                         MPI_Datatype rt, MPI_Comm comm) {
  (void)dsend, (void)drecv;
  doubles_only(st, "MPI_Allgather");
  doubles_only(rt, "MPI_Allgather");
  require(send != MPI_IN_PLACE, "derivatives of MPI_Allgather do not support MPI_IN_PLACE yet");
  return MPI_Allgather(send, sc, st, recv, rc, rt, comm);
}
static void allgather_rev(const void *send, void *dsend, int sc, MPI_Datatype st, void *recv, void *drecv, int rc,
                          MPI_Datatype rt, MPI_Comm comm) {
  (void)send, (void)recv, (void)st;
  int size;
  MPI_Comm_size(comm, &size);
  double *all = scratch(rc * size), *t = scratch(sc);
  if (drecv) {
    memcpy(all, drecv, (size_t)rc * size * sizeof(double));
    memset(drecv, 0, (size_t)rc * size * sizeof(double));
  } else {
    memset(all, 0, (size_t)rc * size * sizeof(double));
  }
  MPI_Reduce_scatter_block(all, t, rc, rt, MPI_SUM, comm);
  if (dsend)
    add_into(dsend, t, sc);
  free(all);
  free(t);
}
REGISTER void *__enzyme_register_derivative_MPI_Allgather[2] = {(void *)MPI_Allgather, (void *)allgather_fwd};
REGISTER void *__enzyme_register_gradient_MPI_Allgather[3] = {(void *)MPI_Allgather, (void *)allgather_aug,
                                                             (void *)allgather_rev};

/* ---- MPI_Gather: the root scatters the blocks' adjoints back ---- */
static int gather_fwd(const void *send, const void *dsend, int sc, MPI_Datatype st, void *recv, void *drecv, int rc,
                      MPI_Datatype rt, int root, MPI_Comm comm) {
  doubles_only(st, "MPI_Gather");
  require(send != MPI_IN_PLACE, "derivatives of MPI_Gather do not support MPI_IN_PLACE yet");
  int r = MPI_Gather(send, sc, st, recv, rc, rt, root, comm);
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  double *z = NULL, *sink = drecv;
  if (!dsend) {
    z = scratch(sc);
    memset(z, 0, sc * sizeof(double));
  }
  if (!sink && rank == root)
    sink = scratch(rc * size);
  MPI_Gather(dsend ? dsend : z, sc, st, sink, rc, rt, root, comm);
  if (sink != drecv)
    free(sink);
  free(z);
  return r;
}
static int gather_aug(const void *send, void *dsend, int sc, MPI_Datatype st, void *recv, void *drecv, int rc,
                      MPI_Datatype rt, int root, MPI_Comm comm) {
  (void)dsend, (void)drecv;
  doubles_only(st, "MPI_Gather");
  require(send != MPI_IN_PLACE, "derivatives of MPI_Gather do not support MPI_IN_PLACE yet");
  return MPI_Gather(send, sc, st, recv, rc, rt, root, comm);
}
static void gather_rev(const void *send, void *dsend, int sc, MPI_Datatype st, void *recv, void *drecv, int rc,
                       MPI_Datatype rt, int root, MPI_Comm comm) {
  (void)send, (void)recv;
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  double *t = scratch(sc), *from = drecv;
  if (!from && rank == root) {
    from = scratch(rc * size);
    memset(from, 0, (size_t)rc * size * sizeof(double));
  }
  MPI_Scatter(from, rc, rt, t, sc, st, root, comm);
  if (from != drecv)
    free(from);
  if (rank == root && drecv)
    memset(drecv, 0, (size_t)rc * size * sizeof(double));
  if (dsend)
    add_into(dsend, t, sc);
  free(t);
}
REGISTER void *__enzyme_register_derivative_MPI_Gather[2] = {(void *)MPI_Gather, (void *)gather_fwd};
REGISTER void *__enzyme_register_gradient_MPI_Gather[3] = {(void *)MPI_Gather, (void *)gather_aug,
                                                          (void *)gather_rev};

/* ---- MPI_Scatter: the root gathers the blocks' adjoints ---- */
static int scatter_fwd(const void *send, const void *dsend, int sc, MPI_Datatype st, void *recv, void *drecv, int rc,
                       MPI_Datatype rt, int root, MPI_Comm comm) {
  doubles_only(rt, "MPI_Scatter");
  require(recv != MPI_IN_PLACE, "derivatives of MPI_Scatter do not support MPI_IN_PLACE yet");
  int r = MPI_Scatter(send, sc, st, recv, rc, rt, root, comm);
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  double *sink = drecv ? drecv : scratch(rc), *from = (double *)dsend;
  if (!from && rank == root) {
    from = scratch(sc * size);
    memset(from, 0, (size_t)sc * size * sizeof(double));
  }
  MPI_Scatter(from, sc, st, sink, rc, rt, root, comm);
  if (!drecv)
    free(sink);
  if (from != dsend)
    free(from);
  return r;
}
static int scatter_aug(const void *send, void *dsend, int sc, MPI_Datatype st, void *recv, void *drecv, int rc,
                       MPI_Datatype rt, int root, MPI_Comm comm) {
  (void)dsend, (void)drecv;
  doubles_only(rt, "MPI_Scatter");
  require(recv != MPI_IN_PLACE, "derivatives of MPI_Scatter do not support MPI_IN_PLACE yet");
  return MPI_Scatter(send, sc, st, recv, rc, rt, root, comm);
}
static void scatter_rev(const void *send, void *dsend, int sc, MPI_Datatype st, void *recv, void *drecv, int rc,
                        MPI_Datatype rt, int root, MPI_Comm comm) {
  (void)send, (void)recv;
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  double *mine = scratch(rc), *all = rank == root ? scratch(sc * size) : NULL;
  if (drecv) {
    memcpy(mine, drecv, rc * sizeof(double));
    memset(drecv, 0, rc * sizeof(double));
  } else {
    memset(mine, 0, rc * sizeof(double));
  }
  MPI_Gather(mine, rc, rt, all, sc, st, root, comm);
  if (rank == root && dsend)
    add_into(dsend, all, sc * size);
  free(mine);
  free(all);
}
REGISTER void *__enzyme_register_derivative_MPI_Scatter[2] = {(void *)MPI_Scatter, (void *)scatter_fwd};
REGISTER void *__enzyme_register_gradient_MPI_Scatter[3] = {(void *)MPI_Scatter, (void *)scatter_aug,
                                                           (void *)scatter_rev};

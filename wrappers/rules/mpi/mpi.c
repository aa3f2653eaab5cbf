/* Derivatives of MPI communication (MPICH's ABI), as Enzyme-style custom
 * rules: forward mode sends tangents alongside values; in reverse mode the
 * adjoint communication runs the other way (a send's adjoint is a receive,
 * a broadcast's a reduction). Contiguous doubles (`MPI_DOUBLE`, and types
 * made of it by `MPI_Type_contiguous`, handled as that many doubles) and
 * `MPI_SUM`, `MPI_PROD`, `MPI_MAX` and `MPI_MIN` reductions
 * only: anything else stops the program with a message
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

/* How many doubles one element of dt holds: MPI_DOUBLE, and types made of
 * it by MPI_Type_contiguous (or MPI_Type_dup), nested; anything else stops
 * the program. */
static int doubles_per(MPI_Datatype dt, const char *call) {
  /* (Fortran's double precision is a type of its own in C.) */
  if (dt == MPI_DOUBLE || dt == MPI_DOUBLE_PRECISION || dt == MPI_REAL8)
    return 1;
  int ni, na, nd, combiner;
  MPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner);
  if ((combiner == MPI_COMBINER_CONTIGUOUS || combiner == MPI_COMBINER_DUP) && ni <= 1 && na == 0 && nd == 1) {
    int count = 1;
    MPI_Datatype base;
    MPI_Type_get_contents(dt, ni, na, nd, &count, NULL, &base);
    int ok = combiner == MPI_COMBINER_DUP ? 1 : count;
    int inner = doubles_per(base, call);
    int bi, ba, bd, bc;
    MPI_Type_get_envelope(base, &bi, &ba, &bd, &bc);
    if (bc != MPI_COMBINER_NAMED)
      MPI_Type_free(&base);
    return ok * inner;
  }
  fprintf(stderr,
          "enzyme-rs: derivatives of %s support MPI_DOUBLE data and contiguous types of it "
          "(MPI_Type_contiguous) only\n",
          call);
  fflush(stderr);
  abort();
}

/* The count and type as that many MPI_DOUBLEs: the same bytes, and the same
 * type signature for matching the other side's call. */
#define AS_DOUBLES(n, dt, call) ((n) *= doubles_per((dt), (call)), (dt) = MPI_DOUBLE)

static int at_root(int root, MPI_Comm comm) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  return rank == root;
}

static void add_into(double *to, const double *from, int n) {
  for (int k = 0; k < n; k++) to[k] += from[k];
}

static double *scratch(int n) {
  double *t = malloc((n > 0 ? n : 1) * sizeof(double));
  require(t != NULL, "out of memory in an MPI derivative");
  return t;
}

/* A buffer without a shadow (constant here) still takes part in the
 * tangent's communication, which the other ranks expect: as zeros. */
static double *or_zeros(const void *shadow, int n, double **owned) {
  *owned = NULL;
  if (shadow)
    return (double *)shadow;
  *owned = scratch(n);
  memset(*owned, 0, (n > 0 ? n : 1) * sizeof(double));
  return *owned;
}

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
typedef struct {
  void *tape;
  int result;
} aug_int;

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

/* ---- MPI_Allreduce: a sum's adjoints are summed over the ranks too; a max's
 * or min's derivative belongs to the rank holding the extreme (the lowest
 * such rank, as MPI_MAXLOC/MPI_MINLOC choose); a product's partial for one
 * rank is the product of the other ranks' values (gathered, so zeros need
 * no division) ---- */
typedef struct {
  double value;
  int rank;
} value_rank;

/* MAX/MIN as MAXLOC/MINLOC on every rank: the results into out (unless
 * NULL: a rank other than MPI_Reduce's root), each element's owner into
 * owner. The input is recv for MPI_IN_PLACE. */
static int extreme_with_owner(const void *send, const void *recv, double *out, int n, MPI_Op op, MPI_Comm comm,
                              int *owner) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  const double *in = send == MPI_IN_PLACE ? recv : send;
  value_rank *pairs = malloc((n > 0 ? n : 1) * sizeof(value_rank));
  require(pairs != NULL, "out of memory in an MPI derivative");
  for (int k = 0; k < n; k++) pairs[k] = (value_rank){in[k], rank};
  int r = MPI_Allreduce(MPI_IN_PLACE, pairs, n, MPI_DOUBLE_INT, op == MPI_MAX ? MPI_MAXLOC : MPI_MINLOC, comm);
  for (int k = 0; k < n; k++) {
    if (out)
      out[k] = pairs[k].value;
    owner[k] = pairs[k].rank;
  }
  free(pairs);
  return r;
}

static void supported_op(MPI_Op op, const char *call) {
  if (op == MPI_SUM || op == MPI_MAX || op == MPI_MIN || op == MPI_PROD)
    return;
  fprintf(stderr, "enzyme-rs: derivatives of %s support MPI_SUM, MPI_PROD, MPI_MAX and MPI_MIN only\n", call);
  fflush(stderr);
  abort();
}

/* Per element, the product of every other rank's input (before the call,
 * which may overwrite an in-place buffer). */
static double *others_product(const void *send, const void *recv, int n, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const double *in = send == MPI_IN_PLACE ? recv : send;
  double *all = scratch(n * size), *out = scratch(n);
  MPI_Allgather(in, n, MPI_DOUBLE, all, n, MPI_DOUBLE, comm);
  for (int k = 0; k < n; k++) {
    out[k] = 1;
    for (int s = 0; s < size; s++)
      if (s != rank) out[k] *= all[s * n + k];
  }
  free(all);
  return out;
}

static int allreduce_fwd(const void *send, const void *dsend, void *recv, void *drecv, int n, MPI_Datatype dt,
                         MPI_Op op, MPI_Comm comm) {
  AS_DOUBLES(n, dt, "MPI_Allreduce");
  supported_op(op, "MPI_Allreduce");
  if (op == MPI_SUM) {
    int r = MPI_Allreduce(send, recv, n, dt, op, comm);
    double *owned_in, *owned_out, *out = or_zeros(drecv, n, &owned_out);
    const double *in = send == MPI_IN_PLACE ? MPI_IN_PLACE : or_zeros(dsend, n, &owned_in);
    MPI_Allreduce(in, out, n, dt, op, comm);
    if (send != MPI_IN_PLACE)
      free(owned_in);
    free(owned_out);
    return r;
  }
  /* Each rank's share of the result's tangent, summed over the ranks. */
  int rank, r;
  MPI_Comm_rank(comm, &rank);
  double *t = scratch(n);
  const double *din = send == MPI_IN_PLACE ? drecv : dsend;
  for (int k = 0; k < n; k++) t[k] = din ? din[k] : 0;
  if (op == MPI_PROD) {
    double *others = others_product(send, recv, n, comm);
    for (int k = 0; k < n; k++) t[k] *= others[k];
    free(others);
    r = MPI_Allreduce(send, recv, n, dt, op, comm);
  } else {
    int *owner = malloc((n > 0 ? n : 1) * sizeof(int));
    require(owner != NULL, "out of memory in an MPI derivative");
    r = extreme_with_owner(send, recv, recv, n, op, comm, owner);
    for (int k = 0; k < n; k++)
      if (owner[k] != rank) t[k] = 0;
    free(owner);
  }
  MPI_Allreduce(MPI_IN_PLACE, t, n, dt, MPI_SUM, comm);
  if (drecv)
    memcpy(drecv, t, n * sizeof(double));
  free(t);
  return r;
}
static aug_int allreduce_aug(const void *send, void *dsend, void *recv, void *drecv, int n, MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm) {
  AS_DOUBLES(n, dt, "MPI_Allreduce");
  (void)dsend, (void)drecv;
  supported_op(op, "MPI_Allreduce");
  if (op == MPI_SUM)
    return (aug_int){NULL, MPI_Allreduce(send, recv, n, dt, op, comm)};
  if (op == MPI_PROD) {
    double *others = others_product(send, recv, n, comm);
    return (aug_int){others, MPI_Allreduce(send, recv, n, dt, op, comm)};
  }
  int *owner = malloc((n > 0 ? n : 1) * sizeof(int));
  require(owner != NULL, "out of memory in an MPI derivative");
  int r = extreme_with_owner(send, recv, recv, n, op, comm, owner);
  return (aug_int){owner, r};
}
static void allreduce_rev(const void *send, void *dsend, void *recv, void *drecv, int n, MPI_Datatype dt, MPI_Op op,
                          MPI_Comm comm, void *tape) {
  AS_DOUBLES(n, dt, "MPI_Allreduce");
  (void)recv;
  int *owner = tape, rank;
  double *others = tape;
  MPI_Comm_rank(comm, &rank);
  double *t = scratch(n);
  if (drecv)
    memcpy(t, drecv, n * sizeof(double));
  else
    memset(t, 0, n * sizeof(double));
  MPI_Allreduce(MPI_IN_PLACE, t, n, dt, MPI_SUM, comm);
  /* What each rank's input receives: all of it for a sum, the owner's share
   * for an extreme, times the other ranks' product for a product. */
  if (op == MPI_PROD)
    for (int k = 0; k < n; k++) t[k] *= others[k];
  else if (op != MPI_SUM)
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
  AS_DOUBLES(n, dt, "MPI_Bcast");
  int r = MPI_Bcast(buf, n, dt, root, comm);
  double *owned, *t = or_zeros(dbuf, n, &owned);
  MPI_Bcast(t, n, dt, root, comm);
  free(owned);
  return r;
}
static int bcast_aug(void *buf, void *dbuf, int n, MPI_Datatype dt, int root, MPI_Comm comm) {
  AS_DOUBLES(n, dt, "MPI_Bcast");
  (void)dbuf;
  return MPI_Bcast(buf, n, dt, root, comm);
}
static void bcast_rev(void *buf, void *dbuf, int n, MPI_Datatype dt, int root, MPI_Comm comm) {
  AS_DOUBLES(n, dt, "MPI_Bcast");
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

/* ---- MPI_Reduce: as MPI_Allreduce with the result at the root only. The
 * root's adjoint is broadcast back; each rank's input gets all of it for a
 * sum, the owner's share for a max or min, times the other ranks' product
 * for a product. MPI_IN_PLACE at the root: its input is recv. ---- */

/* Per element, what the result's derivative is of this rank's input (the
 * owner mask or the other ranks' product), computed on every rank (it
 * takes collective calls) before the call overwrites an in-place input;
 * NULL for a sum. The result of MAX/MIN goes into recv at the root. */
static double *reduce_shares(const void *send, void *recv, int n, MPI_Op op, int root, MPI_Comm comm, int *r) {
  if (op == MPI_SUM)
    return NULL;
  if (op == MPI_PROD)
    return others_product(send, recv, n, comm);
  int rank, *owner = malloc((n > 0 ? n : 1) * sizeof(int));
  require(owner != NULL, "out of memory in an MPI derivative");
  MPI_Comm_rank(comm, &rank);
  *r = extreme_with_owner(send, recv, rank == root ? recv : NULL, n, op, comm, owner);
  double *share = scratch(n);
  for (int k = 0; k < n; k++)
    share[k] = owner[k] == rank;
  free(owner);
  return share;
}

/* The primal call, where reduce_shares did not already compute it. */
static int reduce_primal(const void *send, void *recv, int n, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
                         int r) {
  return op == MPI_MAX || op == MPI_MIN ? r : MPI_Reduce(send, recv, n, dt, op, root, comm);
}

static int reduce_fwd(const void *send, const void *dsend, void *recv, void *drecv, int n, MPI_Datatype dt, MPI_Op op,
                      int root, MPI_Comm comm) {
  AS_DOUBLES(n, dt, "MPI_Reduce");
  supported_op(op, "MPI_Reduce");
  int rank, r = MPI_SUCCESS;
  MPI_Comm_rank(comm, &rank);
  /* This rank's input tangent, times its share. */
  double *t = scratch(n);
  const double *din = send == MPI_IN_PLACE ? drecv : dsend;
  for (int k = 0; k < n; k++)
    t[k] = din ? din[k] : 0;
  double *share = reduce_shares(send, recv, n, op, root, comm, &r);
  r = reduce_primal(send, recv, n, dt, op, root, comm, r);
  if (share)
    for (int k = 0; k < n; k++)
      t[k] *= share[k];
  free(share);
  if (rank == root) {
    double *owned = NULL, *out = drecv ? drecv : or_zeros(NULL, n, &owned);
    MPI_Reduce(MPI_IN_PLACE, t, n, dt, MPI_SUM, root, comm);
    memcpy(out, t, n * sizeof(double));
    free(owned);
  } else {
    MPI_Reduce(t, NULL, n, dt, MPI_SUM, root, comm);
  }
  free(t);
  return r;
}
static aug_int reduce_aug(const void *send, void *dsend, void *recv, void *drecv, int n, MPI_Datatype dt, MPI_Op op,
                          int root, MPI_Comm comm) {
  AS_DOUBLES(n, dt, "MPI_Reduce");
  (void)dsend, (void)drecv;
  supported_op(op, "MPI_Reduce");
  int r = MPI_SUCCESS;
  double *share = reduce_shares(send, recv, n, op, root, comm, &r);
  return (aug_int){share, reduce_primal(send, recv, n, dt, op, root, comm, r)};
}
static void reduce_rev(const void *send, void *dsend, void *recv, void *drecv, int n, MPI_Datatype dt, MPI_Op op,
                       int root, MPI_Comm comm, void *tape) {
  AS_DOUBLES(n, dt, "MPI_Reduce");
  (void)recv, (void)op;
  double *share = tape;
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
  if (share)
    for (int k = 0; k < n; k++)
      t[k] *= share[k];
  /* In place at the root, recv was its input: the adjoint goes back there. */
  double *to = send == MPI_IN_PLACE ? drecv : dsend;
  if (to)
    add_into(to, t, n);
  free(t);
  free(share);
}
REGISTER void *__enzyme_register_derivative_MPI_Reduce[2] = {(void *)MPI_Reduce, (void *)reduce_fwd};
REGISTER void *__enzyme_register_gradient_MPI_Reduce[3] = {(void *)MPI_Reduce, (void *)reduce_aug,
                                                          (void *)reduce_rev};

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

/* ---- MPI_Allgather: each rank's block's adjoint is summed over the ranks ---- */
static int allgather_fwd(const void *send, const void *dsend, int sc, MPI_Datatype st, void *recv, void *drecv,
                         int rc, MPI_Datatype rt, MPI_Comm comm) {
  AS_DOUBLES(sc, st, "MPI_Allgather");
  AS_DOUBLES(rc, rt, "MPI_Allgather");
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
  AS_DOUBLES(sc, st, "MPI_Allgather");
  AS_DOUBLES(rc, rt, "MPI_Allgather");
  (void)dsend, (void)drecv;
  require(send != MPI_IN_PLACE, "derivatives of MPI_Allgather do not support MPI_IN_PLACE yet");
  return MPI_Allgather(send, sc, st, recv, rc, rt, comm);
}
static void allgather_rev(const void *send, void *dsend, int sc, MPI_Datatype st, void *recv, void *drecv, int rc,
                          MPI_Datatype rt, MPI_Comm comm) {
  AS_DOUBLES(sc, st, "MPI_Allgather");
  AS_DOUBLES(rc, rt, "MPI_Allgather");
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
  AS_DOUBLES(sc, st, "MPI_Gather");
  if (at_root(root, comm))
    AS_DOUBLES(rc, rt, "MPI_Gather");
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
  AS_DOUBLES(sc, st, "MPI_Gather");
  if (at_root(root, comm))
    AS_DOUBLES(rc, rt, "MPI_Gather");
  (void)dsend, (void)drecv;
  require(send != MPI_IN_PLACE, "derivatives of MPI_Gather do not support MPI_IN_PLACE yet");
  return MPI_Gather(send, sc, st, recv, rc, rt, root, comm);
}
static void gather_rev(const void *send, void *dsend, int sc, MPI_Datatype st, void *recv, void *drecv, int rc,
                       MPI_Datatype rt, int root, MPI_Comm comm) {
  AS_DOUBLES(sc, st, "MPI_Gather");
  if (at_root(root, comm))
    AS_DOUBLES(rc, rt, "MPI_Gather");
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
  AS_DOUBLES(rc, rt, "MPI_Scatter");
  if (at_root(root, comm))
    AS_DOUBLES(sc, st, "MPI_Scatter");
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
  AS_DOUBLES(rc, rt, "MPI_Scatter");
  if (at_root(root, comm))
    AS_DOUBLES(sc, st, "MPI_Scatter");
  (void)dsend, (void)drecv;
  require(recv != MPI_IN_PLACE, "derivatives of MPI_Scatter do not support MPI_IN_PLACE yet");
  return MPI_Scatter(send, sc, st, recv, rc, rt, root, comm);
}
static void scatter_rev(const void *send, void *dsend, int sc, MPI_Datatype st, void *recv, void *drecv, int rc,
                        MPI_Datatype rt, int root, MPI_Comm comm) {
  AS_DOUBLES(rc, rt, "MPI_Scatter");
  if (at_root(root, comm))
    AS_DOUBLES(sc, st, "MPI_Scatter");
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

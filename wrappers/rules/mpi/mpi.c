/* Derivatives of MPI communication (MPICH's ABI), as Enzyme-style custom
 * rules: forward mode sends tangents alongside values; in reverse mode the
 * adjoint communication runs the other way (a send's adjoint is a receive,
 * a broadcast's a reduction). The collectives here; point-to-point calls
 * in point_to_point.c, included at the end. Contiguous doubles (`MPI_DOUBLE`, and types
 * made of it by `MPI_Type_contiguous`, handled as that many doubles) and
 * `MPI_SUM`, `MPI_PROD`, `MPI_MAX` and `MPI_MIN` reductions
 * only: anything else stops the program with a message
 * naming it, rather than give a wrong derivative. Built only where MPICH's
 * headers are (see the Makefile); linked into programs that declare these
 * functions and ask for derivatives. */
#include "common.h"

static int at_root(int root, MPI_Comm comm) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  return rank == root;
}

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

/* MPI_Send, MPI_Recv, MPI_Sendrecv and the non-blocking calls. */
#include "point_to_point.c"

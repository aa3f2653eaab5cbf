/* MPI derivatives at the edges of what a program passes, both modes: a 1-D
 * halo exchange whose end ranks have MPI_PROC_NULL for a neighbour (the
 * usual zero-Dirichlet boundary) by MPI_Sendrecv, by MPI_Send/MPI_Recv and
 * by MPI_Isend/MPI_Irecv (and with MPI_REQUEST_NULL requests where there is
 * no neighbour); receives from MPI_ANY_SOURCE with MPI_ANY_TAG, blocking,
 * non-blocking and by MPI_Sendrecv, whose statuses the function reads;
 * MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE; a message shorter than its
 * receive buffer; zero counts for every call, with and without buffers.
 * Where no neighbour sends, a ghost keeps a boundary value that depends on
 * x, so its adjoint must survive the exchange. Each kernel's result summed
 * over the ranks is checked in both modes against central differences
 * (mpi_check.h). Run with mpiexec -n 1, 2 and 3. */
#include "mpi_check.h"

enum { N = 5 };

static int rank_of(int *size) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  return rank;
}

/* The neighbours in a line of ranks: none (MPI_PROC_NULL) past the ends. */
static void neighbours(int *left, int *right) {
  int size, rank = rank_of(&size);
  *left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  *right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
}

/* This rank's cells u[1..n] and ghosts u[0], u[n+1], which start as
 * boundary values depending on x. */
static void cells(int n, const double *x, double *u) {
  for (int i = 0; i < n; i++) u[i + 1] = x[i] * (1 + 0.2 * x[i]);
  u[0] = 0.5 * x[0] * x[0], u[n + 1] = sin(x[n - 1]);
}

/* A nonlinear function of the cells and ghosts: a discrete Laplacian's energy. */
static double energy(int n, const double *u) {
  double s = 0;
  for (int i = 1; i <= n; i++) {
    double l = u[i - 1] - 2 * u[i] + u[i + 1];
    s += l * l * (1 + 0.5 * u[i]);
  }
  return s;
}

/* The halo exchange by MPI_Sendrecv, statuses ignored. */
static void halo_sendrecv(int n, double *x, double *out) {
  double u[N + 2];
  int left, right;
  neighbours(&left, &right);
  cells(n, x, u);
  MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 2, &u[n + 1], 1, MPI_DOUBLE, right, 2, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  *out = energy(n, u);
}

/* The halo exchange by MPI_Send and MPI_Recv (in either order by rank
 * parity); the status of the rightward receive says whether a value came
 * (its source and tag), and the function reads it. */
static void halo_send_recv(int n, double *x, double *out) {
  double u[N + 2];
  int size, rank = rank_of(&size), left, right;
  neighbours(&left, &right);
  cells(n, x, u);
  MPI_Status st;
  if (rank % 2 == 0) {
    MPI_Send(&u[n], 1, MPI_DOUBLE, right, 3, MPI_COMM_WORLD);
    MPI_Recv(&u[0], 1, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &st);
    MPI_Send(&u[1], 1, MPI_DOUBLE, left, 4, MPI_COMM_WORLD);
    MPI_Recv(&u[n + 1], 1, MPI_DOUBLE, right, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(&u[0], 1, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &st);
    MPI_Send(&u[n], 1, MPI_DOUBLE, right, 3, MPI_COMM_WORLD);
    MPI_Recv(&u[n + 1], 1, MPI_DOUBLE, right, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&u[1], 1, MPI_DOUBLE, left, 4, MPI_COMM_WORLD);
  }
  *out = energy(n, u) * (st.MPI_SOURCE == MPI_PROC_NULL ? 1.5 : 1) + (st.MPI_TAG + 2) * u[0];
}

/* The halo exchange by MPI_Irecv and MPI_Isend, MPI_Waitall ignoring the
 * statuses; then a second one completed by MPI_Wait, a status ignored and
 * one asked for (not read: MPICH's status of a non-blocking receive from
 * MPI_PROC_NULL may name rank 0). */
static void halo_nonblocking(int n, double *x, double *out) {
  double u[N + 2];
  int left, right;
  neighbours(&left, &right);
  cells(n, x, u);
  MPI_Request r[4], q[2];
  MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, &r[0]);
  MPI_Irecv(&u[n + 1], 1, MPI_DOUBLE, right, 6, MPI_COMM_WORLD, &r[1]);
  MPI_Isend(&u[n], 1, MPI_DOUBLE, right, 5, MPI_COMM_WORLD, &r[2]);
  MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 6, MPI_COMM_WORLD, &r[3]);
  MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
  double e = energy(n, u), flux = e * x[0], got = cos(x[1]);
  MPI_Status st;
  MPI_Irecv(&got, 1, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &q[0]);
  MPI_Isend(&flux, 1, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &q[1]);
  MPI_Wait(&q[1], MPI_STATUS_IGNORE);
  MPI_Wait(&q[0], &st);
  *out = e + got * got;
}

/* The halo exchange posting nothing where there is no neighbour: those
 * requests stay MPI_REQUEST_NULL; MPI_Waitall with statuses, then MPI_Wait
 * on a request already complete (null), which does nothing. */
static void halo_request_null(int n, double *x, double *out) {
  double u[N + 2];
  int left, right;
  neighbours(&left, &right);
  cells(n, x, u);
  MPI_Request r[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Status st[4];
  if (left != MPI_PROC_NULL) {
    MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 8, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 9, MPI_COMM_WORLD, &r[1]);
  }
  if (right != MPI_PROC_NULL) {
    MPI_Irecv(&u[n + 1], 1, MPI_DOUBLE, right, 9, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(&u[n], 1, MPI_DOUBLE, right, 8, MPI_COMM_WORLD, &r[3]);
  }
  MPI_Waitall(4, r, st);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  *out = energy(n, u);
}

/* Every rank's values to rank 0, which takes them in whatever order they
 * come: first by MPI_ANY_SOURCE with tag 20 ignoring the statuses (its use
 * of them does not depend on the order), then by MPI_ANY_SOURCE with
 * MPI_ANY_TAG (tags 10 + rank) into a buffer of two of which one arrives,
 * the other keeping a value that depends on x; rank 0 weighs each by the
 * source and tag its status names. */
static void any_source_recv(int n, double *x, double *out) {
  int size, rank = rank_of(&size);
  double mine = x[0] * x[1] + sin(x[2]), cube = x[3] * x[3] * x[n - 1], s = x[1] * x[2];
  MPI_Request q[2];
  MPI_Isend(&cube, 1, MPI_DOUBLE, 0, 20, MPI_COMM_WORLD, &q[0]);
  MPI_Isend(&mine, 1, MPI_DOUBLE, 0, 10 + rank, MPI_COMM_WORLD, &q[1]);
  if (rank == 0) {
    for (int k = 0; k < size; k++) {
      double v;
      MPI_Recv(&v, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      s += v * v * v;
    }
    for (int k = 0; k < size; k++) {
      double v[2] = {0, x[0] * x[4]};
      MPI_Status st;
      MPI_Recv(v, 2, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      s += sin(v[0]) * (st.MPI_TAG - 9) * (1 + 0.5 * st.MPI_SOURCE) + v[1] * v[1] * (k + 1);
    }
  }
  MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
  *out = s;
}

/* The same gathering by MPI_Irecv from MPI_ANY_SOURCE with MPI_ANY_TAG, all
 * posted at once, completed by MPI_Waitall with statuses (and, for the
 * sends, by MPI_Wait ignoring the status). */
static void any_source_irecv(int n, double *x, double *out) {
  int size, rank = rank_of(&size);
  double mine[2] = {x[0] * x[1] + sin(x[2]), x[3] * x[n - 1]}, v[2 * 8], s = x[1] * x[2];
  MPI_Request send, r[8];
  MPI_Status st[8];
  MPI_Isend(mine, 2, MPI_DOUBLE, 0, 10 + rank, MPI_COMM_WORLD, &send);
  if (rank == 0) {
    for (int k = 0; k < size; k++)
      MPI_Irecv(&v[2 * k], 2, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[k]);
    MPI_Waitall(size, r, st);
    for (int k = 0; k < size; k++)
      s += sin(v[2 * k]) * v[2 * k + 1] * (st[k].MPI_TAG - 9) * (1 + 0.5 * st[k].MPI_SOURCE);
  }
  MPI_Wait(&send, MPI_STATUS_IGNORE);
  *out = s;
}

/* A ring shift by MPI_Sendrecv receiving from MPI_ANY_SOURCE with
 * MPI_ANY_TAG (tags 30 + rank), reading the status. */
static void any_source_sendrecv(int n, double *x, double *out) {
  int size, rank = rank_of(&size);
  double mine = x[0] * x[n - 1], got;
  MPI_Status st;
  MPI_Sendrecv(&mine, 1, MPI_DOUBLE, (rank + 1) % size, 30 + rank, &got, 1, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG,
               MPI_COMM_WORLD, &st);
  *out = got * got * (st.MPI_TAG - 29) * (1 + st.MPI_SOURCE) + sin(x[1]) * got;
}

/* The same ring by MPI_Irecv from MPI_ANY_SOURCE with MPI_ANY_TAG, polled
 * by MPI_Test, and MPI_Isend completed by MPI_Wait. At 3 ranks a rank's
 * reverse sweep sends its adjoint to the previous rank while that one may
 * still wait for its value: the receive must not take the adjoint. */
static void any_source_ring(int n, double *x, double *out) {
  int size, rank = rank_of(&size), done = 0;
  double mine = sin(x[2]) * x[n - 1], got = x[3];
  MPI_Request r[2];
  MPI_Status st;
  MPI_Irecv(&got, 1, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[0]);
  MPI_Isend(&mine, 1, MPI_DOUBLE, (rank + 1) % size, 60 + rank, MPI_COMM_WORLD, &r[1]);
  while (!done) MPI_Test(&r[0], &done, &st);
  MPI_Wait(&r[1], MPI_STATUS_IGNORE);
  *out = got * got * (st.MPI_TAG - 59) + cos(got) * x[0];
}

/* Zero counts in every call, with buffers (whose values stay) and with
 * NULL, beside a real exchange of one value so there is a derivative. */
static void zero_counts(int n, double *x, double *out) {
  int size, rank = rank_of(&size), left, right, next = (rank + 1) % size, prev = (rank + size - 1) % size;
  neighbours(&left, &right);
  double a[2] = {x[0] * x[1], x[2]}, b[2] = {x[3], sin(x[4])}, all[2], got = 0;
  MPI_Request q[4];
  MPI_Sendrecv(x, 0, MPI_DOUBLE, next, 40, a, 0, MPI_DOUBLE, prev, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&x[1], 1, MPI_DOUBLE, next, 41, &got, 1, MPI_DOUBLE, prev, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rank % 2 == 0) {
    MPI_Send(NULL, 0, MPI_DOUBLE, right, 42, MPI_COMM_WORLD);
    MPI_Recv(b, 0, MPI_DOUBLE, left, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(b, 0, MPI_DOUBLE, left, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(NULL, 0, MPI_DOUBLE, right, 42, MPI_COMM_WORLD);
  }
  MPI_Irecv(NULL, 0, MPI_DOUBLE, prev, 43, MPI_COMM_WORLD, &q[0]);
  MPI_Irecv(a, 0, MPI_DOUBLE, prev, 44, MPI_COMM_WORLD, &q[1]);
  MPI_Isend(NULL, 0, MPI_DOUBLE, next, 43, MPI_COMM_WORLD, &q[2]);
  MPI_Isend(b, 0, MPI_DOUBLE, next, 44, MPI_COMM_WORLD, &q[3]);
  MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
  MPI_Bcast(a, 0, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Allreduce(a, b, 0, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(a, b, 0, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Reduce(a, b, 0, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(a, b, 0, MPI_DOUBLE, MPI_PROD, 0, MPI_COMM_WORLD);
  MPI_Allgather(a, 0, MPI_DOUBLE, all, 0, MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Gather(a, 0, MPI_DOUBLE, all, 0, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Scatter(all, 0, MPI_DOUBLE, b, 0, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  *out = a[0] * a[1] + b[0] * b[1] + got * got * x[2];
}

/* How many values a message from MPI_ANY_SOURCE brought, asked of its
 * status with MPI_Get_count inside the differentiated code (an integer
 * query, inactive), and used: the previous rank sends rank + 1 values (at
 * most 3) into a buffer of 3 whose unfilled tail keeps x-dependent values. */
static void counted(int n, double *x, double *out) {
  int size, rank = rank_of(&size), next = (rank + 1) % size, got = 0;
  int sending = next + 1 > 3 ? 3 : next + 1;
  double mine[3] = {x[0] * x[1], sin(x[2]), x[3] * x[3]}, a[3] = {x[4], x[4] * x[0], cos(x[1])};
  MPI_Status st;
  MPI_Sendrecv(mine, sending, MPI_DOUBLE, next, 60, a, 3, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
               &st);
  MPI_Get_count(&st, MPI_DOUBLE, &got);
  double s = 0;
  for (int k = 0; k < got; k++) s += a[k] * a[k] * (k + 1);
  for (int k = got; k < 3; k++) s += 0.5 * a[k];
  *out = s * got + x[n - 1];
}

/* What the receives' statuses say, kept for the caller, which reads them
 * with MPI_Get_count: a ring shift of two values by MPI_Sendrecv into a
 * buffer of three from MPI_ANY_SOURCE with MPI_ANY_TAG, one value by
 * MPI_Isend/MPI_Irecv into a buffer of two, and a receive from
 * MPI_PROC_NULL. */
static MPI_Status kept[3];
static void statuses_kept(int n, double *x, double *out) {
  int size, rank = rank_of(&size), next = (rank + 1) % size, prev = (rank + size - 1) % size;
  double a[3] = {0, 0, x[2]}, b[2] = {0, x[3]}, c = x[4], mine = x[0] * x[1];
  MPI_Request q[2];
  MPI_Sendrecv(x, 2, MPI_DOUBLE, next, 50 + rank, a, 3, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
               &kept[0]);
  MPI_Irecv(b, 2, MPI_DOUBLE, prev, 51, MPI_COMM_WORLD, &q[0]);
  MPI_Isend(&mine, 1, MPI_DOUBLE, next, 51, MPI_COMM_WORLD, &q[1]);
  MPI_Wait(&q[0], &kept[1]);
  MPI_Wait(&q[1], MPI_STATUS_IGNORE);
  MPI_Recv(&c, 1, MPI_DOUBLE, MPI_PROC_NULL, 52, MPI_COMM_WORLD, &kept[2]);
  *out = a[0] * a[1] * a[2] + sin(b[0]) * b[1] + c * c * x[0];
}

/* Whether the kept statuses say what MPI says: counts 2, 1 and 0, sources
 * and tags the previous rank's and MPI_PROC_NULL's (MPI_ANY_TAG). */
static int statuses_right(const char *mode) {
  int size, rank = rank_of(&size), prev = (rank + size - 1) % size, counts[3];
  for (int k = 0; k < 3; k++) MPI_Get_count(&kept[k], MPI_DOUBLE, &counts[k]);
  int right = counts[0] == 2 && counts[1] == 1 && counts[2] == 0 && kept[0].MPI_SOURCE == prev &&
              kept[0].MPI_TAG == 50 + prev && kept[1].MPI_SOURCE == prev && kept[1].MPI_TAG == 51 &&
              kept[2].MPI_SOURCE == MPI_PROC_NULL && kept[2].MPI_TAG == MPI_ANY_TAG;
  if (!right)
    printf("FAIL statuses after %s (rank %d): counts %d, %d, %d, sources %d, %d, %d, tags %d, %d, %d\n", mode, rank,
           counts[0], counts[1], counts[2], kept[0].MPI_SOURCE, kept[1].MPI_SOURCE, kept[2].MPI_SOURCE,
           kept[0].MPI_TAG, kept[1].MPI_TAG, kept[2].MPI_TAG);
  return right;
}

static int rank, size, count, failed;
static double X0[N], VX[N];

/* The kernel reaches __enzyme_autodiff as a constant (not through a table). */
#define CHECK(f, what)                                                                                               \
  do {                                                                                                               \
    double rev, fwd, fd;                                                                                             \
    int bad = check_x_only((void *)f, what, N, X0, VX, &rev, &fwd, &fd);                                             \
    count++, failed += bad != 0;                                                                                     \
    if (rank == 0 && !bad)                                                                                           \
      printf("%s: reverse %.12g, forward %.12g, differences %.12g\n", what, rev, fwd, fd);                           \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < N; i++) X0[i] = 0.4 * sin(1.0 + i + 5 * rank), VX[i] = cos(0.7 * i + rank);
  CHECK(halo_sendrecv, "halo by MPI_Sendrecv, MPI_PROC_NULL at the ends");
  CHECK(halo_send_recv, "halo by MPI_Send/MPI_Recv, MPI_PROC_NULL at the ends");
  CHECK(halo_nonblocking, "halo by MPI_Isend/MPI_Irecv, MPI_PROC_NULL at the ends");
  CHECK(halo_request_null, "halo with MPI_REQUEST_NULL at the ends");
  CHECK(any_source_recv, "MPI_Recv from MPI_ANY_SOURCE with MPI_ANY_TAG");
  CHECK(any_source_irecv, "MPI_Irecv from MPI_ANY_SOURCE with MPI_ANY_TAG");
  CHECK(any_source_sendrecv, "MPI_Sendrecv from MPI_ANY_SOURCE with MPI_ANY_TAG");
  CHECK(any_source_ring, "MPI_Irecv from MPI_ANY_SOURCE with MPI_ANY_TAG polled by MPI_Test, a ring");
  CHECK(zero_counts, "zero counts");
  CHECK(counted, "MPI_Get_count of a message from MPI_ANY_SOURCE, in differentiated code");
  CHECK(statuses_kept, "statuses of short messages, MPI_ANY_SOURCE and MPI_PROC_NULL");
  /* The statuses each mode's receives leave. */
  double x[N], dx[N] = {0}, out, dout = 1;
  for (int i = 0; i < N; i++) x[i] = X0[i];
  __enzyme_autodiff((void *)statuses_kept, enzyme_const, N, enzyme_dup, x, dx, enzyme_dup, &out, &dout);
  count++, failed += !statuses_right("reverse mode");
  __enzyme_fwddiff((void *)statuses_kept, enzyme_const, N, enzyme_dup, x, dx, enzyme_dup, &out, &dout);
  count++, failed += !statuses_right("forward mode");
  if (rank == 0)
    printf("%smpi edges: %d ranks, %d of %d checks right\n", failed ? "FAIL " : "", size, count - failed, count);
  MPI_Finalize();
  return failed != 0;
}

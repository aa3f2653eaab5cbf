/* Derivatives across MPI communication, both modes: a parameter broadcast
 * from rank 0, a halo exchanged around a ring (MPI_Send/MPI_Recv, in
 * either order by rank parity), an MPI_Allreduce and an MPI_Reduce of
 * partial sums. The function's results summed over all ranks are
 * differentiated: the gradient (reverse mode, every rank seeding 1) is
 * checked against forward mode (<grad, v> = tangent in direction v, summed
 * over ranks) and against a central difference of the whole parallel
 * computation; likewise MPI_Sendrecv, MPI_Allgather, MPI_Gather,
 * MPI_Scatter, a max MPI_Allreduce, MPI_Reduce with max, min, product and
 * sum (in place at the root too), a derived type of contiguous doubles
 * (MPI_Type_contiguous, MPI_Type_dup), and non-blocking MPI_Isend and
 * MPI_Irecv completed by MPI_Wait, MPI_Waitall and MPI_Test. A hybrid function adds an OpenMP parallel loop with a sum
 * reduction before the MPI_Allreduce (built with -fopenmp). Run with
 * mpiexec -n 1, 2 and 3. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

extern int enzyme_const, enzyme_dup;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum { N = 6 };

static double model(double *x, double *p, int rank, int size) {
  MPI_Bcast(p, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  double left;
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  if (size == 1) {
    left = x[N - 1];
  } else if (rank % 2 == 0) {
    MPI_Send(&x[N - 1], 1, MPI_DOUBLE, next, 7, MPI_COMM_WORLD);
    MPI_Recv(&left, 1, MPI_DOUBLE, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(&left, 1, MPI_DOUBLE, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&x[N - 1], 1, MPI_DOUBLE, next, 7, MPI_COMM_WORLD);
  }
  double local = sin(left) * x[0] * p[1];
  for (int i = 0; i < N; i++) local += x[i] * x[i] * p[0] + cos(x[i]);
  double total, at_root = 0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce(&local, &at_root, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  return total * p[1] + (rank == 0 ? 0.5 * at_root * at_root : 0);
}

/* MPI and OpenMP: each rank's threads sum, the ranks sum. */
static double hybrid(const double *x, int n) {
  double local = 0, total;
#pragma omp parallel for reduction(+ : local)
  for (int i = 0; i < n; i++) local += sin(x[i]) * x[(i + 1) % n];
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return total * total;
}

/* The other collectives: a ring shift by MPI_Sendrecv, MPI_Allgather,
 * MPI_Gather then MPI_Scatter through rank 0, an MPI_Allreduce max (whose
 * derivative belongs to the rank holding it) and an MPI_Allreduce product
 * (in place, one factor exactly zero on one element). */
static double collectives(double *x, int rank, int size) {
  double shifted[N], all[64 * N], mx[N], back[N], gathered[64 * N];
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Sendrecv(x, N, MPI_DOUBLE, next, 3, shifted, N, MPI_DOUBLE, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Allgather(x, N, MPI_DOUBLE, all, N, MPI_DOUBLE, MPI_COMM_WORLD);
  double sq[N];
  for (int i = 0; i < N; i++) sq[i] = x[i] * x[i] + 0.01 * rank * i;
  MPI_Allreduce(sq, mx, N, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Gather(sq, N, MPI_DOUBLE, gathered, N, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0)
    for (int k = 0; k < N * size; k++) gathered[k] = sin(gathered[k]);
  MPI_Scatter(gathered, N, MPI_DOUBLE, back, N, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  double f[N];
  for (int i = 0; i < N; i++) f[i] = i == 1 && rank == 0 ? 0 * x[i] : 1 + 0.1 * sin(x[i] + rank);
  MPI_Allreduce(MPI_IN_PLACE, f, N, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD);
  double s = 0;
  for (int i = 0; i < N; i++) s += shifted[i] * x[i] + mx[i] * back[i] + f[i] * (i + 1);
  for (int k = 0; k < N * size; k++) s += cos(all[k]) * (rank + 1);
  return s;
}

/* MPI_Reduce with every operation: a max at rank 0, a min at the last
 * rank, a product in place at rank 0 (one factor exactly zero on one
 * element) and a sum in place at the last rank; only the root reads the
 * result. */
static double rooted(double *x, int rank, int size) {
  double v[N], mx[N], mn[N], f[N], s[N];
  for (int i = 0; i < N; i++) v[i] = sin(x[i] + 0.3 * rank) * x[(i + 1) % N] + 0.01 * rank * i;
  MPI_Reduce(v, mx, N, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(v, mn, N, MPI_DOUBLE, MPI_MIN, size - 1, MPI_COMM_WORLD);
  for (int i = 0; i < N; i++) f[i] = i == 2 && rank == size - 1 ? 0 * x[i] : 1 + 0.2 * cos(x[i] * (rank + 1));
  MPI_Reduce(rank == 0 ? MPI_IN_PLACE : f, f, N, MPI_DOUBLE, MPI_PROD, 0, MPI_COMM_WORLD);
  for (int i = 0; i < N; i++) s[i] = x[i] * x[i] * (rank + 1);
  MPI_Reduce(rank == size - 1 ? MPI_IN_PLACE : s, s, N, MPI_DOUBLE, MPI_SUM, size - 1, MPI_COMM_WORLD);
  double out = 0;
  for (int i = 0; i < N; i++) {
    if (rank == 0) out += mx[i] * (i + 1) + f[i] * f[i];
    if (rank == size - 1) out += mn[i] * mn[i] + sin(s[i]);
  }
  return out;
}

/* A derived type of contiguous doubles (three, and a duplicate of it; MPICH
 * reduces only predefined types): a ring shift by MPI_Sendrecv, an
 * MPI_Allgather and an MPI_Bcast of such elements. */
static MPI_Datatype vec3, vec3_dup;
static double triples(double *x, int rank, int size) {
  double shifted[N], all[64 * N], b[N];
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Sendrecv(x, N / 3, vec3, next, 9, shifted, N / 3, vec3_dup, prev, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  double sq[N];
  for (int i = 0; i < N; i++) sq[i] = x[i] * x[i] * (1 + 0.1 * rank) + 0.01 * rank * i;
  MPI_Allgather(sq, N / 3, vec3_dup, all, N / 3, vec3, MPI_COMM_WORLD);
  for (int i = 0; i < N; i++) b[i] = rank == 0 ? sin(x[i]) : 0;
  MPI_Bcast(b, N / 3, vec3, 0, MPI_COMM_WORLD);
  double s = 0;
  for (int i = 0; i < N; i++) s += shifted[i] * x[i] + b[i] * x[(i + 1) % N];
  for (int k = 0; k < N * size; k++) s += sin(all[k]) * (k % 4 + 1) * 0.1;
  return s;
}

/* A receive polled with MPI_Test until it completes (the send waited for),
 * then an MPI_Wait on the spent request, which does nothing. */
static double polled(double *x, int rank, int size) {
  double got = 0;
  int next = (rank + 1) % size, prev = (rank + size - 1) % size, done = 0, polls = 0;
  MPI_Request r[2];
  MPI_Irecv(&got, 1, MPI_DOUBLE, prev, 11, MPI_COMM_WORLD, &r[0]);
  double out = x[3] * x[3];
  MPI_Isend(&out, 1, MPI_DOUBLE, next, 11, MPI_COMM_WORLD, &r[1]);
  while (!done) {
    MPI_Test(&r[0], &done, MPI_STATUS_IGNORE);
    polls++;
  }
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  MPI_Wait(&r[1], MPI_STATUS_IGNORE);
  return sin(got) * x[0] + 0 * polls;
}

/* Non-blocking halo exchange: MPI_Irecv/MPI_Isend completed by MPI_Waitall
 * and by MPI_Wait. */
static double nonblocking(double *x, int rank, int size) {
  double left = 0, right = 0, y = 0;
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Request r[4], q[2];
  MPI_Irecv(&left, 1, MPI_DOUBLE, prev, 5, MPI_COMM_WORLD, &r[0]);
  MPI_Irecv(&right, 1, MPI_DOUBLE, next, 6, MPI_COMM_WORLD, &r[1]);
  MPI_Isend(&x[N - 1], 1, MPI_DOUBLE, next, 5, MPI_COMM_WORLD, &r[2]);
  MPI_Isend(&x[0], 1, MPI_DOUBLE, prev, 6, MPI_COMM_WORLD, &r[3]);
  MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
  MPI_Irecv(&y, 1, MPI_DOUBLE, prev, 8, MPI_COMM_WORLD, &q[0]);
  MPI_Isend(&x[1], 1, MPI_DOUBLE, next, 8, MPI_COMM_WORLD, &q[1]);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  MPI_Wait(&q[1], MPI_STATUS_IGNORE);
  return left * x[0] * x[0] + sin(right) * x[N - 1] + y * y * x[2];
}

#define CHECK_OTHER(FN, NAME)                                                                                          \
  do {                                                                                                               \
    double c[N], gc[N] = {0}, tc[N];                                                                                   \
    for (int i = 0; i < N; i++) c[i] = X0[i], tc[i] = VX[i];                                                           \
    __enzyme_autodiff((void *)FN, c, gc, enzyme_const, rank, enzyme_const, size);                                      \
    double cd = 0, crev, cfwd;                                                                                         \
    for (int i = 0; i < N; i++) cd += gc[i] * VX[i];                                                                   \
    MPI_Allreduce(&cd, &crev, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);                                                 \
    for (int i = 0; i < N; i++) c[i] = X0[i];                                                                          \
    double ct = __enzyme_fwddiff((void *)FN, c, tc, enzyme_const, rank, enzyme_const, size);                           \
    MPI_Allreduce(&ct, &cfwd, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);                                                 \
    double cp[N], cm[N];                                                                                               \
    for (int i = 0; i < N; i++) cp[i] = X0[i] + h * VX[i], cm[i] = X0[i] - h * VX[i];                                  \
    double vp2 = FN(cp, rank, size), vm2 = FN(cm, rank, size), sp2, sm2;                                               \
    MPI_Allreduce(&vp2, &sp2, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);                                                 \
    MPI_Allreduce(&vm2, &sm2, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);                                                 \
    double cfd = (sp2 - sm2) / (2 * h);                                                                                \
    int bad = !(fabs(crev - cfwd) <= 1e-10 * (1 + fabs(cfwd))) + !(fabs(cfwd - cfd) <= 1e-6 * (1 + fabs(cfd)));        \
    failures += bad;                                                                                                   \
    if (rank == 0)                                                                                                     \
      printf("%s%s: reverse %.12g, forward %.12g, difference %.12g\n", bad ? "FAIL " : "", NAME, crev, cfwd, cfd);     \
  } while (0)

static int rank, size;
static double X0[N], P0[2], VX[N], VP[2];

/* The sum over ranks of model(x0 + s v). */
static double global(double s) {
  double x[N], p[2];
  for (int i = 0; i < N; i++) x[i] = X0[i] + s * VX[i];
  for (int i = 0; i < 2; i++) p[i] = P0[i] + s * VP[i];
  double mine = model(x, p, rank, size), sum;
  MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < N; i++) {
    X0[i] = 0.3 * sin(1.0 + i + 7 * rank);
    VX[i] = cos(0.5 * i + rank);
  }
  /* Only rank 0's parameter counts (it is broadcast): other ranks hold junk. */
  P0[0] = rank == 0 ? 0.8 : 123, P0[1] = rank == 0 ? -0.4 : 456;
  VP[0] = 0.3, VP[1] = -0.7;

  /* Reverse mode. */
  double x[N], dx[N] = {0}, p[2] = {P0[0], P0[1]}, dp[2] = {0, 0};
  for (int i = 0; i < N; i++) x[i] = X0[i];
  __enzyme_autodiff((void *)model, x, dx, p, dp, enzyme_const, rank, enzyme_const, size);
  double dot = 0;
  for (int i = 0; i < N; i++) dot += dx[i] * VX[i];
  dot += dp[0] * VP[0] + dp[1] * VP[1];
  double rev;
  MPI_Allreduce(&dot, &rev, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

  /* Forward mode. */
  double tx[N], tp[2] = {VP[0], VP[1]};
  for (int i = 0; i < N; i++) x[i] = X0[i], tx[i] = VX[i];
  p[0] = P0[0], p[1] = P0[1];
  double t = __enzyme_fwddiff((void *)model, x, tx, p, tp, enzyme_const, rank, enzyme_const, size), fwd;
  MPI_Allreduce(&t, &fwd, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

  double h = 1e-6, fd = (global(h) - global(-h)) / (2 * h);
  int failures = 0;
  if (!(fabs(rev - fwd) <= 1e-11 * (1 + fabs(fwd)))) failures++;
  if (!(fabs(fwd - fd) <= 1e-6 * (1 + fabs(fd)))) failures++;

  /* The hybrid function, both modes, against differences of the sum over ranks. */
  enum { M = 64 };
  double y[M], gy[M] = {0}, ty[M];
  for (int i = 0; i < M; i++) y[i] = 0.1 * cos(i + 3.0 * rank), ty[i] = sin(2.0 * i);
  __enzyme_autodiff((void *)hybrid, y, gy, enzyme_const, M);
  double hdot = 0, hrev, hfwd;
  for (int i = 0; i < M; i++) hdot += gy[i] * ty[i];
  MPI_Allreduce(&hdot, &hrev, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double ht = __enzyme_fwddiff((void *)hybrid, y, ty, enzyme_const, M);
  MPI_Allreduce(&ht, &hfwd, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double yp[M], ym[M];
  for (int i = 0; i < M; i++) yp[i] = y[i] + h * ty[i], ym[i] = y[i] - h * ty[i];
  double vp = hybrid(yp, M), vm = hybrid(ym, M), sp, sm;
  MPI_Allreduce(&vp, &sp, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&vm, &sm, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double hfd = (sp - sm) / (2 * h);
  /* The other collectives and non-blocking calls, both modes, against
     differences of the sum over ranks. */
  CHECK_OTHER(collectives, "collectives");
  CHECK_OTHER(nonblocking, "non-blocking");
  CHECK_OTHER(polled, "MPI_Test polling");
  CHECK_OTHER(rooted, "MPI_Reduce max/min/prod/sum");
  MPI_Type_contiguous(3, MPI_DOUBLE, &vec3);
  MPI_Type_commit(&vec3);
  MPI_Type_dup(vec3, &vec3_dup);
  CHECK_OTHER(triples, "derived type of contiguous doubles");
  MPI_Type_free(&vec3_dup);
  MPI_Type_free(&vec3);

  int hybrid_failures = !(fabs(hrev - hfwd) <= 1e-10 * (1 + fabs(hfwd))) + !(fabs(hfwd - hfd) <= 1e-6 * (1 + fabs(hfd)));
  failures += hybrid_failures;
  if (rank == 0 && hybrid_failures)
    printf("FAIL hybrid: reverse %.17g, forward %.17g, difference %.17g\n", hrev, hfwd, hfd);
  if (rank == 0) {
    if (failures) printf("FAIL reverse %.17g, forward %.17g, difference %.17g\n", rev, fwd, fd);
    printf("mpi derivatives: %d ranks, reverse %.12g, forward %.12g, difference %.12g\n", size, rev, fwd, fd);
  }
  MPI_Finalize();
  return failures != 0;
}

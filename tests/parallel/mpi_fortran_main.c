/* Drives mpi_fortran.f90's fmodel, fcollect and fnonblocking (MPI through its Fortran
 * bindings): the sum over ranks of each one's result, differentiated in both
 * modes, against central differences of the whole parallel computation. Run
 * with mpiexec -n 1, 2 and 3. */
#include "mpi_check.h"
void fmodel(int n, double *x, double *p, double *out);
void fcollect(int n, double *x, double *out);
void fnonblocking(int n, double *x, double *out);

enum { N = 5 };
static int rank, size;
static double X0[N], P0[2], VX[N], VP[2];

static double global(double s) {
  double x[N], p[2], out, sum;
  for (int i = 0; i < N; i++) x[i] = X0[i] + s * VX[i];
  for (int i = 0; i < 2; i++) p[i] = P0[i] + s * VP[i];
  fmodel(N, x, p, &out);
  MPI_Allreduce(&out, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < N; i++) X0[i] = 0.4 * sin(1.0 + i + 5 * rank), VX[i] = cos(0.7 * i + rank);
  /* Only rank 0's parameters count (they are broadcast). */
  P0[0] = rank == 0 ? 0.8 : 11, P0[1] = rank == 0 ? -0.6 : 22;
  VP[0] = 0.3, VP[1] = -0.5;

  double x[N], dx[N] = {0}, p[2] = {P0[0], P0[1]}, dp[2] = {0, 0}, out, dout = 1;
  for (int i = 0; i < N; i++) x[i] = X0[i];
  __enzyme_autodiff((void *)fmodel, enzyme_const, N, enzyme_dup, x, dx, enzyme_dup, p, dp, enzyme_dup, &out, &dout);
  double dot = dp[0] * VP[0] + dp[1] * VP[1], rev, fwd;
  for (int i = 0; i < N; i++) dot += dx[i] * VX[i];
  MPI_Allreduce(&dot, &rev, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

  double tx[N], tp[2] = {VP[0], VP[1]}, tout = 0;
  for (int i = 0; i < N; i++) x[i] = X0[i], tx[i] = VX[i];
  p[0] = P0[0], p[1] = P0[1];
  __enzyme_fwddiff((void *)fmodel, enzyme_const, N, enzyme_dup, x, tx, enzyme_dup, p, tp, enzyme_dup, &out, &tout);
  MPI_Allreduce(&tout, &fwd, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

  double h = 1e-6, fd = (global(h) - global(-h)) / (2 * h);
  int bad = !(fabs(rev - fwd) <= 1e-10 * (1 + fabs(fwd))) + !(fabs(fwd - fd) <= 1e-6 * (1 + fabs(fd)));
  if (rank == 0 && bad)
    printf("FAIL fmodel: reverse %.12g, forward %.12g, differences %.12g\n", rev, fwd, fd);

  double crev, cfwd, cfd, nrev, nfwd, nfd;
  bad += check_x_only((void *)fcollect, "fcollect", N, X0, VX, &crev, &cfwd, &cfd);
  bad += check_x_only((void *)fnonblocking, "fnonblocking", N, X0, VX, &nrev, &nfwd, &nfd);
  if (rank == 0)
    printf("%smpi fortran: %d ranks, reverse %.12g, %.12g and %.12g, forward %.12g, %.12g and %.12g, differences "
           "%.12g, %.12g and %.12g\n",
           bad ? "FAIL " : "", size, rev, crev, nrev, fwd, cfwd, nfwd, fd, cfd, nfd);
  MPI_Finalize();
  return bad != 0;
}

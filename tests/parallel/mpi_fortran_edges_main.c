/* Drives mpi_fortran_edges.f90's subroutines (MPI's Fortran bindings at the
 * edges: MPI_PROC_NULL, MPI_ANY_SOURCE with MPI_ANY_TAG, the statuses
 * ignored, zero counts): the sum over ranks of each one's result, both
 * modes, against central differences (mpi_check.h). Run with mpiexec -n 1,
 * 2 and 3. */
#include "mpi_check.h"

void fhalo_edges(int n, double *x, double *out);
void fnonblocking_edges(int n, double *x, double *out);
void fany_source(int n, double *x, double *out);
void fzero_counts(int n, double *x, double *out);

enum { N = 5 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, failed = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double x0[N], v[N], rev[4], fwd[4], fd[4];
  for (int i = 0; i < N; i++) x0[i] = 0.4 * sin(2.0 + i + 3 * rank), v[i] = cos(0.9 * i + rank);
  failed += check_x_only((void *)fhalo_edges, "fhalo_edges", N, x0, v, &rev[0], &fwd[0], &fd[0]) != 0;
  failed += check_x_only((void *)fnonblocking_edges, "fnonblocking_edges", N, x0, v, &rev[1], &fwd[1], &fd[1]) != 0;
  failed += check_x_only((void *)fany_source, "fany_source", N, x0, v, &rev[2], &fwd[2], &fd[2]) != 0;
  failed += check_x_only((void *)fzero_counts, "fzero_counts", N, x0, v, &rev[3], &fwd[3], &fd[3]) != 0;
  if (rank == 0)
    printf("%smpi fortran edges: %d ranks, %d of 4 right; reverse %.12g, %.12g, %.12g, %.12g; differences %.12g, "
           "%.12g, %.12g, %.12g\n",
           failed ? "FAIL " : "", size, 4 - failed, rev[0], rev[1], rev[2], rev[3], fd[0], fd[1], fd[2], fd[3]);
  MPI_Finalize();
  return failed != 0;
}

/* The MPI tests' check of a kernel of x alone, void f(int n, double *x,
 * double *out), whose ranks' results are summed: reverse mode's <gradient,
 * v> and forward mode's tangent along v (each summed over the ranks)
 * against each other (relative 1e-10) and against a central difference of
 * the whole parallel computation (relative 1e-6), and no message left
 * unreceived after them. Says on rank 0 what disagrees (on any rank what
 * was left); returns how many checks failed. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_const, enzyme_dup;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

static int check_x_only(void *f, const char *name, int n, const double *x0, const double *v, double *rev,
                        double *fwd, double *fd) {
  void (*call)(int, double *, double *) = (void (*)(int, double *, double *))f;
  double *c = malloc(4 * n * sizeof(double)), *dc = c + n, *cp = c + 2 * n, *cm = c + 3 * n;
  double out, dout = 1, tout = 0, vp, vm, sp, sm, h = 1e-6, dot = 0;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < n; i++) c[i] = x0[i], dc[i] = 0;
  __enzyme_autodiff(f, enzyme_const, n, enzyme_dup, c, dc, enzyme_dup, &out, &dout);
  for (int i = 0; i < n; i++) dot += dc[i] * v[i];
  MPI_Allreduce(&dot, rev, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++) c[i] = x0[i], dc[i] = v[i];
  __enzyme_fwddiff(f, enzyme_const, n, enzyme_dup, c, dc, enzyme_dup, &out, &tout);
  MPI_Allreduce(&tout, fwd, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++) cp[i] = x0[i] + h * v[i], cm[i] = x0[i] - h * v[i];
  /* A reduction between the calls: a receive from MPI_ANY_SOURCE in one must
     not take a message of the next. */
  call(n, cp, &vp);
  MPI_Allreduce(&vp, &sp, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  call(n, cm, &vm);
  MPI_Allreduce(&vm, &sm, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  *fd = (sp - sm) / (2 * h);
  free(c);
  int bad = !(fabs(*rev - *fwd) <= 1e-10 * (1 + fabs(*fwd))) + !(fabs(*fwd - *fd) <= 1e-6 * (1 + fabs(*fd)));
  if (rank == 0 && bad) printf("FAIL %s: reverse %.12g, forward %.12g, differences %.12g\n", name, *rev, *fwd, *fd);
  /* Every rank's sends are done by the barrier; one still waiting for a
     receive is a message the derivatives sent that nothing asked for. */
  int left, any;
  MPI_Status st;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &left, &st);
  if (left) printf("FAIL %s: rank %d has a message left from %d, tag %d\n", name, rank, st.MPI_SOURCE, st.MPI_TAG);
  MPI_Allreduce(&left, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  return bad + any;
}

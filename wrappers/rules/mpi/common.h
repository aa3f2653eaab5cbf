/* What the MPI rules share (mpi.c, point_to_point.c): stopping with a
 * message, element types as doubles, scratch buffers. */
#ifndef ENZYME_RS_MPI_COMMON_H
#define ENZYME_RS_MPI_COMMON_H

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
/* An augmented forward pass's tape and the call's result. */
typedef struct {
  void *tape;
  int result;
} aug_int;

#endif

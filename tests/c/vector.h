/* Vectors of four doubles (clang's vector extensions) and unaligned loads
 * and stores of them, for the SIMD tests. */
#ifndef VECTOR_H
#define VECTOR_H
#include <string.h>

typedef double v4d __attribute__((vector_size(32)));

static inline v4d load4(const double *p) {
  v4d v;
  memcpy(&v, p, sizeof v);
  return v;
}

static inline void store4(double *p, v4d v) { memcpy(p, &v, sizeof v); }

#endif

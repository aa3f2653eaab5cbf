// expect: cannot differentiate memory copy (`memcpy`/`memmove`) whose contents have no known type in `copy_then_measure`
// expect: help: reverse mode must know which copied bytes are floats
/* Copying a struct with an array inside: clang's TBAA describes the array
 * as untyped bytes, so reverse mode cannot tell its floats; refused (this
 * once produced wrong derivatives when such bytes were taken for integers). */
#include <math.h>
extern int enzyme_dup;

typedef struct {
  double pos[3];
  int id;
} point;

typedef struct {
  point a, b;
  double weight;
  double *extra; /* a pointer inside: its shadow travels with the copy */
} segment;

void __enzyme_autodiff_v(void *, ...);

static double length_sq(const segment *s) {
  double d = 0;
  for (int i = 0; i < 3; i++) {
    double t = s->b.pos[i] - s->a.pos[i];
    d += t * t;
  }
  return d * s->weight + s->extra[0];
}

static double copy_then_measure(segment *dst, const segment *src) {
  *dst = *src; /* whole-struct copy */
  dst->weight *= 2;
  return length_sq(dst);
}

int main(void) {
  double e = 0.5, de = 0, de2 = 0;
  segment src = {{{0, 0, 0}, 1}, {{1, 2, 2}, 2}, 0.5, &e}, dsrc = {{{0}, 0}, {{0}, 0}, 0, &de};
  segment dst, ddst = {{{0}, 0}, {{0}, 0}, 0, &de2};
  __enzyme_autodiff_v((void *)copy_then_measure, enzyme_dup, &dst, &ddst, enzyme_dup, &src, &dsrc);
  return 0;
}

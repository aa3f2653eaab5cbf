/* Unions copied whole: clang gives a union the LLVM type of one member (here
 * `long[2]`), so that type says nothing about the bytes; a copy typed by it
 * lost the derivative of the doubles inside (reverse mode at -O0 gave 0).
 * The address escapes to a function registered inactive, so the optimiser
 * keeps the copy. Checked against the closed form and finite differences,
 * forward against reverse. */
#include "check.h"

union pair {
  long bits[2];
  double d[2];
};
void keep(void *p);
void keep(void *p) { (void)p; }
void *__enzyme_inactivefn[] = {(void *)keep};

static double copied(double x) {
  union pair u, v;
  u.d[0] = x;
  u.d[1] = sin(x) * x;
  keep(&u);
  v = u;
  keep(&v);
  return v.d[0] * v.d[1];
}

static double copied_twice(double x) {
  union pair u[2], v[2];
  for (int i = 0; i < 2; i++) {
    u[i].d[0] = x * (i + 1);
    u[i].d[1] = exp(0.5 * x) + i;
  }
  keep(u);
  v[0] = u[1];
  v[1] = u[0];
  keep(v);
  return v[0].d[0] * v[1].d[1] + v[1].d[0] * v[0].d[1];
}

int main(void) {
  for (double x = -0.8; x < 1.5; x += 0.55) {
    CHECK_UNARY(copied, x, 2 * x * sin(x) + x * x * cos(x));
    double e = exp(0.5 * x);
    CHECK_UNARY(copied_twice, x, 3 * e + 1 + 1.5 * x * e); /* 2x e + x (e + 1) */
  }
  return CHECK_DONE();
}

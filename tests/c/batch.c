/* __enzyme_batch: N evaluations of a function in one call, lanes given as
 * N values (enzyme_vector, the default), one shared value (enzyme_scalar)
 * or one strided buffer (enzyme_buffer); checked against N plain calls. */
#include "check.h"

extern int enzyme_width, enzyme_vector, enzyme_scalar, enzyme_buffer;

typedef struct {
  double r[4];
} four;
typedef double vec2 __attribute__((ext_vector_type(2)));
four __enzyme_batch(void *, ...);
vec2 __enzyme_batch_2(void *, ...);
void __enzyme_batch_void(void *, ...);
typedef struct {
  float r0, r1;
} two_floats;
two_floats __enzyme_batch_f(void *, ...);

__attribute__((noinline)) double relu_scaled(double x, double a) { return x > 0 ? a * x : 0.01 * x; }

__attribute__((noinline)) double norm3(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += v[i] * v[i];
  return sqrt(s);
}

__attribute__((noinline)) void add_one(double *x) { *x += 1.0; }

__attribute__((noinline)) float mixed(float x, double y) { return x * (float)y + 1.0f; }

int main(void) {
  four r = __enzyme_batch((void *)relu_scaled, enzyme_width, 4, enzyme_vector, -1.0, 0.5, 2.0, -3.0, enzyme_scalar,
                          3.0);
  double xs[4] = {-1.0, 0.5, 2.0, -3.0};
  for (int k = 0; k < 4; k++)
    CHECK("relu_scaled lane", r.r[k], relu_scaled(xs[k], 3.0), 0);

  double vs[2][3] = {{3, 4, 12}, {1, 2, 2}};
  vec2 n = __enzyme_batch_2((void *)norm3, enzyme_width, 2, enzyme_buffer, sizeof vs[0], &vs[0][0], enzyme_scalar, 3);
  CHECK("norm3 lane 0 (buffer)", n[0], 13.0, 0);
  CHECK("norm3 lane 1 (buffer)", n[1], 3.0, 0);
  vec2 n2 = __enzyme_batch_2((void *)norm3, enzyme_width, 2, vs[1], vs[0], enzyme_scalar, 2);
  CHECK("norm3 lane 0 (vector pointers)", n2[0], sqrt(5.0), 0);
  CHECK("norm3 lane 1 (vector pointers)", n2[1], 5.0, 0);

  double a = 1.5, b = -2.0, c = 10.0;
  __enzyme_batch_void((void *)add_one, enzyme_width, 3, &a, &b, &c);
  CHECK("add_one lane 0", a, 2.5, 0);
  CHECK("add_one lane 1", b, -1.0, 0);
  CHECK("add_one lane 2", c, 11.0, 0);

  two_floats m = __enzyme_batch_f((void *)mixed, enzyme_width, 2, 2.0f, 3.0f, enzyme_scalar, 0.5);
  CHECK("mixed lane 0", m.r0, 2.0, 0);
  CHECK("mixed lane 1", m.r1, 2.5, 0);
  return CHECK_DONE();
}

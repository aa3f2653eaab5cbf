// expect: `scale` returns `ptr`, which has no derivative
// expect: forward_pointer_result.c:11
// expect: read the tangents from the shadow arguments
double *__enzyme_fwddiff(void *, ...);

static double *scale(double *x) { x[0] = x[0] * x[0]; return x; }

int main(void) {
  double x[1] = {3}, dx[1] = {1};
  /* the tangent is in dx; the result would be a pointer */
  double *r = __enzyme_fwddiff((void *)scale, x, dx);
  return (int)r[0];
}

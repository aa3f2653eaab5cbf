// expect: cannot differentiate store of a differentiated value into memory that has no shadow in `scale_into`
// expect: unsupported_memory.c:8
// expect: help: pass the pointer with `enzyme_dup`
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

double scale_into(const double *x, double *log) {
  log[0] = x[0] * 3.0; /* `log` is passed enzyme_const below: it has no shadow */
  return x[0] * log[0];
}

int main(void) {
  double x[1] = {2.0}, dx[1] = {0}, log[1];
  __enzyme_autodiff((void *)scale_into, enzyme_dup, x, dx, enzyme_const, log);
  return 0;
}

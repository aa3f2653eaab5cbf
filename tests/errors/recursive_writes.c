// expect: cannot differentiate `fill`: it has side effects and is called recursively
// expect: recursive_writes.c:9
extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);

static void fill(double *out, const double *x, int lo, int hi) {
  if (hi - lo == 1) {
    /* writes memory: recomputing it in a derivative would repeat the write */
    out[lo] = x[lo] * x[lo];
    return;
  }
  int mid = (lo + hi) / 2;
  fill(out, x, lo, mid);
  fill(out, x, mid, hi);
}

static double total(const double *x, int n) {
  double buf[8];
  fill(buf, x, 0, n);
  double s = 0;
  for (int i = 0; i < n; i++) s += buf[i];
  return s;
}

int main(void) {
  double x[3] = {1, 2, 3}, dx[3] = {0};
  __enzyme_autodiff((void *)total, enzyme_dup, x, dx, 3);
  return 0;
}

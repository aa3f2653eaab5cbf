// expect: `__enzyme_fwdsplit` of `scale` has no `__enzyme_augmentfwd` to take its tape from
// expect: fwdsplit_no_augment.c:14
/* The augmented call gives `x` no shadow: another derivative, another tape. */
extern int enzyme_const;
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_fwdsplit(void *, ...);
void scale(double *x, int n) {
  for (int i = 0; i < n; i++) x[i] *= x[i];
}

int main(void) {
  double x[3] = {1, 2, 3}, dx[3] = {1, 1, 1};
  void *tape = __enzyme_augmentfwd((void *)scale, enzyme_const, x, 3);
  __enzyme_fwdsplit((void *)scale, x, dx, 3, tape);
  return 0;
}

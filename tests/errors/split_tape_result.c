// expect: `__enzyme_augmentfwd` is declared to return `double`, which cannot hold its tape
// expect: split_tape_result.c:12
// expect: declare it returning `void *` (the tape)
/* The augmented forward call must return the tape (or nothing): a double
 * result has no room for it. */
double __enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
static void scale(double *x) { x[0] *= 3; }

int main(void) {
  double x[1] = {2}, dx[1] = {1};
  double t = __enzyme_augmentfwd((void *)scale, x, dx);
  return t > 0;
}

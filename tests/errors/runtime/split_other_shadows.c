/* The reverse part of split mode works on the shadows the forward part was
 * given; a reverse call passing others (here: NULL in the forward call, the
 * real shadow only in the reverse call) stops with a message instead of
 * computing with the wrong memory. */
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
static void f(double *x) { x[0] *= x[0]; }
int main(void) {
  double x[1] = {2}, dx[1] = {1};
  void *t = __enzyme_augmentfwd((void *)f, x, (double *)0);
  __enzyme_reverse((void *)f, x, dx, t);
  return 0;
}

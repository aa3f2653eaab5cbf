// expect: the function reaches code that starts threads (`spawn_and_join` calls `pthread_create`)
// expect: threads.c:26
/* Differentiated code that starts threads (issue 39, item 6: a Rust
 * derivative over rayon's par_iter linked for 16 minutes without a word):
 * refused before anything is cloned, with one message naming the call. */
#include <pthread.h>
double __enzyme_autodiff(void *, ...);

static void *square(void *p) {
  double *x = p;
  *x = *x * *x;
  return 0;
}

__attribute__((noinline)) static void spawn_and_join(double *x) {
  pthread_t t;
  pthread_create(&t, 0, square, x);
  pthread_join(t, 0);
}

static double f(double x) {
  spawn_and_join(&x);
  return x;
}

int main(void) { return __enzyme_autodiff((void *)f, 3.0) != 6.0; }

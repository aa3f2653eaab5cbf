/* Loop-carried values that rotate: a block's phis are a parallel copy, so
 * the reverse sweep must read all their adjoints before it gives any of them
 * to the values coming in (the "swap" problem), and a value's adjoint must
 * not be mixed up with that of the variable that later holds another value
 * (the "lost copy" problem). Two- and three-value rotations, swaps through a
 * temporary, kept copies, conditional rotations, rotations of a function's
 * own parameters, shifts through local arrays (memory at -O0, registers once
 * promoted), nested recurrences and early exits; each with a constant and a
 * run-time trip count. Every Jacobian is checked four ways: reverse mode
 * against central differences, forward mode against reverse, split mode
 * (augmented forward call, then the reverse call) against reverse, and
 * vector mode (every column in one forward call, every row in one reverse
 * call) against width 1. Issue 39, item 0: all three of the loops
 * were silently wrong in reverse mode before. */
#include "jacobian.h"

extern int enzyme_width, enzyme_dupv, enzyme_dupnoneedv;
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

/* Trip counts the optimiser cannot see. */
int runtime_n = 5, runtime_one = 1, runtime_three = 3;

/* The first loop: (a, b) <- (b, a b + sin a). */
static void rot2_sin(const double *x, double *y) {
  double a = x[0], b = x[1];
  for (int i = 0; i < 5; i++) {
    double t = a;
    a = b;
    b = t * b + sin(t);
  }
  y[0] = a + 2 * b;
}

static void rot2_sin_n(const double *x, double *y) {
  double a = x[0], b = x[1];
  for (int i = 0; i < runtime_n; i++) {
    double t = a;
    a = b;
    b = t * b + sin(t);
  }
  y[0] = a + 2 * b;
}

/* The second loop: the value kept is the one before the update. */
static void lost_copy(const double *x, double *y) {
  double v = 0.0, t = x[0];
  for (int i = 0; i < 1; i++) {
    v = t;
    t = 1.0;
  }
  y[0] = v;
}

static void lost_copy_n(const double *x, double *y) {
  double v = 0.0, t = x[0];
  for (int i = 0; i < runtime_one; i++) {
    v = t;
    t = 1.0;
  }
  y[0] = v;
}

/* The third loop, and three times round. */
static void lost_copy_square(const double *x, double *y) {
  double v = 0.0, t = x[0];
  for (int i = 0; i < 1; i++) {
    v = t;
    t = t * t;
  }
  y[0] = v;
}

static void lost_copy_square_n(const double *x, double *y) {
  double v = 0.0, t = x[0];
  for (int i = 0; i < runtime_three; i++) {
    v = t;
    t = t * t + 0.25 * v;
  }
  y[0] = v;
  y[1] = t;
}

/* A plain swap each time round, the values growing apart. */
static void swap2(const double *x, double *y) {
  double a = x[0], b = x[1];
  for (int i = 0; i < runtime_n; i++) {
    double t = a;
    a = b;
    b = t;
    a = a * 1.1 + 0.3 * sin(b);
  }
  y[0] = a;
  y[1] = b * b;
}

/* Three values rotating: (a, b, c) <- (b, c, a c + cos b). */
static void rot3(const double *x, double *y) {
  double a = x[0], b = x[1], c = x[2];
  for (int i = 0; i < runtime_n; i++) {
    double t = a;
    a = b;
    b = c;
    c = t * c * 0.5 + cos(a);
  }
  y[0] = a + 2 * b + 3 * c;
  y[1] = a * b * c;
}

/* Three values rotating the other way, trip count known. */
static void rot3_back(const double *x, double *y) {
  double a = x[0], b = x[1], c = x[2];
  for (int i = 0; i < 4; i++) {
    double t = c;
    c = b;
    b = a;
    a = t + 0.5 * sin(b * c);
  }
  y[0] = a - b + c * c;
}

/* Kept copies: a Fibonacci-like recurrence, the old value used twice. */
static void kept_copies(const double *x, double *y) {
  double prev = x[0], cur = x[1], older = x[2];
  for (int i = 0; i < runtime_n; i++) {
    double next = 0.5 * cur + 0.3 * prev * older;
    older = prev;
    prev = cur;
    cur = next;
  }
  y[0] = cur + prev;
  y[1] = older;
}

/* Swaps decided by the data: a conditional rotation. */
static void conditional_rotation(const double *x, double *y) {
  double a = x[0], b = x[1], c = x[2];
  for (int i = 0; i < runtime_n; i++) {
    if (a < b) {
      double t = a;
      a = b;
      b = c;
      c = t;
    } else {
      double t = b;
      b = a;
      a = t * 0.9;
    }
    c = c + 0.1 * sin(a * b);
  }
  y[0] = a + 2 * b + 3 * c;
}

/* A loop swapping the function's own parameters. */
__attribute__((noinline)) static double swap_params(double a, double b, int n) {
  for (int i = 0; i < n; i++) {
    double t = a;
    a = b;
    b = t + 0.5 * a * t;
  }
  return a * b + b;
}

static void swap_params_wrapper(const double *x, double *y) { y[0] = swap_params(x[0], x[1], runtime_n); }

/* A shift through a local array: a delay line. */
static void delay_line(const double *x, double *y) {
  double w[3] = {x[0], x[1], x[2]};
  for (int i = 0; i < runtime_n; i++) {
    double in = sin(w[2]) + 0.5 * w[0];
    w[2] = w[1];
    w[1] = w[0];
    w[0] = in;
  }
  y[0] = w[0] + 2 * w[1] + 3 * w[2];
}

/* Elements swapped in place through a temporary, indices moving. */
static void array_swaps(const double *x, double *y) {
  double w[4] = {x[0], x[1], x[2], x[0] * x[1]};
  for (int i = 0; i < runtime_n; i++) {
    int j = i % 4, k = (i + 1) % 4;
    double t = w[j];
    w[j] = w[k];
    w[k] = t * 1.5 + 0.1 * w[j];
  }
  y[0] = w[0] + 2 * w[1] + 3 * w[2] + 4 * w[3];
}

/* Nested recurrences: the outer loop rotates what the inner loop builds. */
static void nested(const double *x, double *y) {
  double a = x[0], b = x[1];
  for (int i = 0; i < 3; i++) {
    double s = 0;
    for (int j = 0; j < runtime_three; j++) {
      double t = s;
      s = a * 0.5 + t * b;
      a = t + 0.25;
    }
    double t = a;
    a = b;
    b = s + 0.1 * t;
  }
  y[0] = a;
  y[1] = b;
}

/* A rotation left early: the values after the exit are the rotated ones. */
static void early_exit(const double *x, double *y) {
  double a = x[0], b = x[1];
  for (int i = 0; i < 10; i++) {
    double t = a;
    a = b;
    b = t * b;
    if (i + 2 > runtime_n)
      break;
  }
  y[0] = a + 3 * b;
}

/* Ping-pong buffers: the pointers rotate, so their shadows must too. */
static void ping_pong(const double *x, double *y) {
  double u[4], v[4];
  for (int k = 0; k < 4; k++) u[k] = x[k % 3] * (1 + 0.1 * k);
  double *cur = u, *next = v;
  for (int i = 0; i < runtime_n; i++) {
    for (int k = 0; k < 4; k++) next[k] = cur[k] + 0.2 * sin(cur[(k + 1) % 4] - cur[(k + 3) % 4]);
    double *t = cur;
    cur = next;
    next = t;
  }
  y[0] = cur[0] + 2 * cur[1] + 3 * cur[2] + 4 * cur[3];
  y[1] = next[0] * next[3];
}

/* A rotation of pointers into one array, the values read through them. */
static void pointer_rotation(const double *x, double *y) {
  double w[3] = {x[0], x[1], x[2]};
  double *p = &w[0], *q = &w[1], *r = &w[2];
  double s = 0;
  for (int i = 0; i < runtime_n; i++) {
    s = s * 0.5 + *p * *q + sin(*r);
    *r = *r + 0.1 * s;
    double *t = p;
    p = q;
    q = r;
    r = t;
  }
  y[0] = s + *p;
}

/* Split reverse mode (augmented forward call, then the reverse call) and
 * vector mode (the whole Jacobian in one forward call and one reverse call)
 * against width 1, row by row. */
#define CHECK_SPLIT_AND_VECTOR(f, N, M, ...)                                                           \
  do {                                                                                                 \
    const double x0_[N] = {__VA_ARGS__};                                                               \
    double x_[N], y_[M], rev_[M][N];                                                                   \
    for (int j = 0; j < M; j++) {                                                                      \
      double dx_[N] = {0}, dy_[M] = {0};                                                               \
      for (int k = 0; k < N; k++) x_[k] = x0_[k];                                                      \
      dy_[j] = 1;                                                                                      \
      __enzyme_autodiff_v((void *)f, enzyme_dup, x_, dx_, enzyme_dup, y_, dy_);                        \
      for (int i = 0; i < N; i++) rev_[j][i] = dx_[i];                                                 \
      double sx_[N] = {0}, sy_[M] = {0};                                                               \
      for (int k = 0; k < N; k++) x_[k] = x0_[k];                                                      \
      void *tape_ = __enzyme_augmentfwd((void *)f, enzyme_dup, x_, sx_, enzyme_dup, y_, sy_);          \
      sy_[j] = 1;                                                                                      \
      __enzyme_reverse((void *)f, enzyme_dup, x_, sx_, enzyme_dup, y_, sy_, tape_);                    \
      for (int i = 0; i < N; i++) CHECK(#f " split reverse vs combined", sx_[i], rev_[j][i], TOL_MODES); \
    }                                                                                                  \
    double e_[N][N] = {{0}}, t_[N][M], dxv_[M][N] = {{0}}, dyv_[M][M] = {{0}};                         \
    for (int k = 0; k < N; k++) e_[k][k] = 1;                                                          \
    for (int k = 0; k < M; k++) dyv_[k][k] = 1;                                                        \
    for (int k = 0; k < N; k++) x_[k] = x0_[k];                                                        \
    __enzyme_fwddiff_v((void *)f, enzyme_width, N, enzyme_dupv, sizeof e_[0], x_, &e_[0][0],           \
                       enzyme_dupnoneedv, sizeof t_[0], y_, &t_[0][0]);                                \
    __enzyme_autodiff_v((void *)f, enzyme_width, M, enzyme_dupv, sizeof dxv_[0], x_, &dxv_[0][0],      \
                        enzyme_dupnoneedv, sizeof dyv_[0], y_, &dyv_[0][0]);                           \
    for (int j = 0; j < M; j++)                                                                        \
      for (int i = 0; i < N; i++) {                                                                    \
        CHECK(#f " forward vector vs reverse", t_[i][j], rev_[j][i], TOL_MODES);                       \
        CHECK(#f " reverse vector vs reverse", dxv_[j][i], rev_[j][i], TOL_MODES);                     \
      }                                                                                                \
  } while (0)

#define CHECK_ALL(f, N, M, ...)                \
  do {                                         \
    CHECK_JACOBIAN(f, N, M, __VA_ARGS__);      \
    CHECK_SPLIT_AND_VECTOR(f, N, M, __VA_ARGS__); \
  } while (0)

int main(void) {
  /* The numbers: d/dx0 = 33.76..., d/dx1 = 16.87... at (0.3, 0.7) */
  {
    double x[2] = {0.3, 0.7}, dx[2] = {0, 0}, y[1], dy[1] = {1};
    __enzyme_autodiff_v((void *)rot2_sin, enzyme_dup, x, dx, enzyme_dup, y, dy);
    double fd[2];
    for (int i = 0; i < 2; i++) {
      double xp[2] = {0.3, 0.7}, xm[2] = {0.3, 0.7}, yp, ym;
      xp[i] += 1e-6;
      xm[i] -= 1e-6;
      rot2_sin(xp, &yp);
      rot2_sin(xm, &ym);
      fd[i] = (yp - ym) / 2e-6;
      CHECK("rot2_sin reverse vs finite difference", dx[i], fd[i], TOL_FD);
    }
  }
  {
    double x[1] = {0.3}, dx[1] = {0}, y[1], dy[1] = {1};
    __enzyme_autodiff_v((void *)lost_copy, enzyme_dup, x, dx, enzyme_dup, y, dy);
    CHECK("lost_copy: d/dx of the kept value", dx[0], 1.0, TOL_EXACT);
    dx[0] = 0;
    dy[0] = 1; /* the reverse call consumed the seed */
    __enzyme_autodiff_v((void *)lost_copy_square, enzyme_dup, x, dx, enzyme_dup, y, dy);
    CHECK("lost_copy_square: d/dx of the kept value", dx[0], 1.0, TOL_EXACT);
  }
  /* The parameters' own gradient, by value. */
  {
    grad2 g = __enzyme_autodiff_2((void *)swap_params, 0.4, 0.9, enzyme_const, 4);
    double h = 1e-6;
    CHECK("swap_params d/da", g.dx, (swap_params(0.4 + h, 0.9, 4) - swap_params(0.4 - h, 0.9, 4)) / (2 * h), TOL_FD);
    CHECK("swap_params d/db", g.dy, (swap_params(0.4, 0.9 + h, 4) - swap_params(0.4, 0.9 - h, 4)) / (2 * h), TOL_FD);
    double fa = __enzyme_fwddiff((void *)swap_params, enzyme_dup, 0.4, 1.0, enzyme_dup, 0.9, 0.0, enzyme_const, 4);
    double fb = __enzyme_fwddiff((void *)swap_params, enzyme_dup, 0.4, 0.0, enzyme_dup, 0.9, 1.0, enzyme_const, 4);
    CHECK("swap_params forward d/da vs reverse", fa, g.dx, TOL_MODES);
    CHECK("swap_params forward d/db vs reverse", fb, g.dy, TOL_MODES);
  }
  CHECK_ALL(rot2_sin, 2, 1, 0.3, 0.7);
  CHECK_ALL(rot2_sin_n, 2, 1, 0.3, 0.7);
  CHECK_ALL(lost_copy, 1, 1, 0.3);
  CHECK_ALL(lost_copy_n, 1, 1, 0.3);
  CHECK_ALL(lost_copy_square, 1, 1, 0.3);
  CHECK_ALL(lost_copy_square_n, 1, 2, 0.7);
  CHECK_ALL(swap2, 2, 2, 0.4, -0.6);
  CHECK_ALL(rot3, 3, 2, 0.4, -0.6, 0.8);
  CHECK_ALL(rot3_back, 3, 1, 0.4, -0.6, 0.8);
  CHECK_ALL(kept_copies, 3, 2, 0.4, -0.6, 0.8);
  CHECK_ALL(conditional_rotation, 3, 1, 0.45, -0.6, 0.8);
  CHECK_ALL(conditional_rotation, 3, 1, -0.3, 0.5, 0.2);
  CHECK_ALL(swap_params_wrapper, 2, 1, 0.4, 0.9);
  CHECK_ALL(delay_line, 3, 1, 0.4, -0.6, 0.8);
  CHECK_ALL(array_swaps, 3, 1, 0.4, -0.6, 0.8);
  CHECK_ALL(nested, 2, 2, 0.4, -0.6);
  CHECK_ALL(early_exit, 2, 1, 0.9, 1.1);
  CHECK_ALL(ping_pong, 3, 2, 0.4, -0.6, 0.8);
  CHECK_ALL(pointer_rotation, 3, 1, 0.4, -0.6, 0.8);
  return CHECK_DONE();
}

/* The benchmark `main` (see bench.h); included last by each kernel. */
#ifndef FD_H
#define FD_H 1e-6
#endif
#ifndef FD_TOL
#define FD_TOL 1e-5
#endif

#ifdef CUSTOM_CHECK
#define RUN_FORWARD() (forward(), 0.0) /* a Jacobian: forward fills it */
#else
#define RUN_FORWARD() forward()
#endif

#ifndef CUSTOM_CHECK
static struct param PARAMS[MAX_PARAMS];
static int NPARAMS;

static void zero_adjoints(void) {
  for (int j = 0; j < NPARAMS; j++) memset(PARAMS[j].dx, 0, PARAMS[j].n * sizeof(double));
}

/* Runs another gradient (`run`, into the adjoints) and compares it, every
 * entry, with reverse mode's (`rev`); the reference is `run`'s when
 * `run_is_reference` (a closed form), reverse mode's otherwise. */
static int against_reverse(void (*run)(void), const char *who, double **rev, int run_is_reference) {
  int f = 0;
  zero_adjoints();
  run();
  for (int j = 0; j < NPARAMS; j++) {
    char what[64];
    snprintf(what, sizeof what, "%s d/d%s vs reverse", who, PARAMS[j].name);
    for (int i = 0; i < PARAMS[j].n; i++)
      f += run_is_reference ? check_close(what, rev[j][i], PARAMS[j].dx[i], 1e-9)
                            : check_close(what, PARAMS[j].dx[i], rev[j][i], 1e-9);
  }
  return f;
}

static int check(void) {
  int f = 0;
  zero_adjoints();
  reverse();
  double *want[MAX_PARAMS];
  for (int j = 0; j < NPARAMS; j++) {
    struct param *p = &PARAMS[j];
    want[j] = malloc(p->n * sizeof(double));
    memcpy(want[j], p->dx, p->n * sizeof(double));
    char what[64];
    snprintf(what, sizeof what, "reverse d/d%s vs finite difference", p->name);
    for (int i = 0; i < p->n; i += p->n / 13 + 1) f += check_close(what, p->dx[i], fd_of(&p->x[i], FD_H), FD_TOL);
  }
#ifdef HAVE_FORWARD
  double expect = 0;
  for (int j = 0; j < NPARAMS; j++)
    for (int i = 0; i < PARAMS[j].n; i++) expect += want[j][i] * PARAMS[j].tx[i];
  f += check_close("forward vs reverse (directional derivative)", forward(), expect, 1e-9);
#endif
#ifdef HAVE_HAND
  f += against_reverse(hand, "hand-written", want, 0);
#endif
#ifdef HAVE_ANALYTIC
  f += against_reverse(analytic, "analytic", want, 1);
#endif
  for (int j = 0; j < NPARAMS; j++) free(want[j]);
  return f;
}

static void dump(void) {
  zero_adjoints();
  reverse();
  for (int j = 0; j < NPARAMS; j++)
    for (int i = 0; i < PARAMS[j].n; i++) printf("%.17g\n", PARAMS[j].dx[i]);
}
#endif

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "check";
  int n = argc > 2 ? atoi(argv[2]) : 0;
  int reps = argc > 3 ? atoi(argv[3]) : 5;
  if (strcmp(mode, "modes") == 0) {
    printf("primal reverse");
#ifdef HAVE_FORWARD
    printf(" forward");
#endif
#ifdef HAVE_HAND
    printf(" hand");
#endif
    printf("\n");
    return 0;
  }
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  sched_setaffinity(0, sizeof one, &one); /* best effort */
  setup(n);
#ifndef CUSTOM_CHECK
  NPARAMS = params(PARAMS);
  for (int j = 0; j < NPARAMS; j++) /* a fixed direction for forward mode */
    for (int i = 0; i < PARAMS[j].n; i++) PARAMS[j].tx[i] = cos(0.37 * i + j);
#endif
  if (strcmp(mode, "check") == 0) {
    int failures = check();
    printf("%s check %d %s\n", NAME, n, failures ? "FAILED" : "ok");
    return failures != 0;
  }
  if (strcmp(mode, "dump") == 0) {
    dump();
    return 0;
  }
  if (strcmp(mode, "none") == 0) return 0;
  void (*run)(void) = 0;
  if (strcmp(mode, "reverse") == 0) run = reverse;
#ifdef HAVE_HAND
  if (strcmp(mode, "hand") == 0) run = hand;
#endif
  int fwd = 0, prim = strcmp(mode, "primal") == 0;
#ifdef HAVE_FORWARD
  fwd = strcmp(mode, "forward") == 0;
#endif
  if (!run && !fwd && !prim) {
    fprintf(stderr, "%s: unknown mode `%s`\n", NAME, mode);
    return 2;
  }
  double best = 1e300, sink = 0;
  for (int r = 0; r < reps + 1; r++) {
    double t0 = now_ms();
#ifndef CUSTOM_CHECK
    if (run) zero_adjoints(); /* part of the cost: adjoints accumulate */
#endif
    if (run) run();
#ifdef HAVE_FORWARD
    else if (fwd)
      sink += RUN_FORWARD();
#endif
    else
      sink += primal();
    double t = now_ms() - t0;
    if (r > 0 && t < best) best = t; /* the first run warms up */
  }
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  printf("%s %s %d %.4f %ld\n", NAME, mode, n, best, u.ru_maxrss);
  return sink == 12345.678; /* keeps the results alive */
}

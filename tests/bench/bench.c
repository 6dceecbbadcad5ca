/* bench.c — qkv's benchmark (targets: docs/performance.md). Times key presses drawn into a real
 * terminal (ncurses on a pseudo-terminal whose output is read and counted), the
 * core's trace and matrix products, the d_k sweep, the real program's start-up
 * and peak memory, and the printer against the same trace written with numpy.
 *
 *   qkv-bench QKV_BINARY TRACE_NUMPY_PY
 *
 * stdout: one figure per line, `name value unit`, each a median or a 99th
 * percentile of many repetitions. stderr: commentary, then one `target …` line
 * per target of the issue. Exit status: 0 every target met, 1 some missed, 2 a
 * figure could not be measured. It is not a unit test (its numbers depend on the
 * machine) and it must never change the program it measures: it drives app_update
 * and draw_frame exactly as tui.c does. */
/* posix_openpt, ptsname and wait4 (ncursesw's pkg-config may define these too). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 600
#endif

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "app/app.h"
#include "present/lesson.h"
#include "io/problem/builtin.h"
#include "io/problem/save.h"
#include "qkv/attention.h"
#include "qkv/cost.h"
#include "qkv/error.h"
#include "qkv/heads.h"
#include "qkv/matrix.h"
#include "qkv/problem.h"
#include "qkv/rng.h"
#include "qkv/sweep.h"
#include "qkv/train.h"
#include "tui/draw.h"
#include "tui/layout.h"
#include "tui/palette.h"

#define TERM_TYPE "xterm-256color"
#define KEYS_LINE_TEXT "Tab matrix" /* the keys line, the last row of the first frame */
#define QUIET_MS 20       /* output this long silent after the keys line: frame complete */
#define CHILD_TIMEOUT_MS 5000

/* The targets; a figure is checked when it has been measured. */
struct target {
	const char *name;
	double limit;
	bool at_least; /* true: value >= limit; false: value <= limit */
	bool measured;
	double value;
};

static struct target targets[] = {
	{ "frame_edit_p99_us_80x24", 500, false, false, 0 },
	{ "frame_edit_p99_us_n64_dk1024", 4000, false, false, 0 },
	{ "frame_edit_p99_us_n1024_dk64", 16000, false, false, 0 },
	{ "bytes_per_edit_80x24", 1024, false, false, 0 },
	{ "sweep_ms_default", 16, false, false, 0 },
	{ "startup_ms", 10, false, false, 0 },
	{ "peak_rss_kib", 16384, false, false, 0 },
	{ "core_gflops_n512_dk64", 8, true, false, 0 },
	{ "printer_vs_numpy_ratio", 0.1, false, false, 0 },
	{ "train_tick_ms_p99_largest_live", 50, false, false, 0 },
	{ "printer_json_vs_numpy_ratio", 0.1, false, false, 0 },
	{ "printer_csv_vs_numpy_ratio", 0.1, false, false, 0 },
	{ "printer_text_vs_numpy_ratio", 0.1, false, false, 0 },
	{ "max_block_ms_n1024_dk4096", 100, false, false, 0 },
	{ "max_block_ms_projected_identity", 100, false, false, 0 },
	{ "max_block_ms_saturation_256", 100, false, false, 0 },
	{ "max_block_ms_heads8_dmodel512", 100, false, false, 0 },
	{ "lesson_parse_ms_4mib_notes", 500, false, false, 0 },
	{ "lesson_parse_ms_4mib_blank_lines_in_problem", 500, false, false, 0 },
	{ "core_vs_blas_ratio_n1024", 1.5, false, false, 0 },
	{ "core_vs_blas_ratio_n2048", 1.5, false, false, 0 },
	{ "core_vs_blas_ratio_n4096", 1.5, false, false, 0 },
};

#define TARGET_COUNT ((int)(sizeof targets / sizeof targets[0]))

/* --- figures ---------------------------------------------------------------------- */

/* Prints `name value unit` on stdout and remembers the value if it has a target. */
static void figure(const char *name, double value, const char *unit, int decimals)
{
	printf("%s %.*f %s\n", name, decimals, value, unit);
	fflush(stdout);
	for (int i = 0; i < TARGET_COUNT; i++)
		if (strcmp(targets[i].name, name) == 0) {
			targets[i].measured = true;
			targets[i].value = value;
		}
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The nearest-rank percentile p (0 < p <= 1) of count samples; sorts them. */
static double percentile(double *samples, int count, double p)
{
	int rank = (int)ceil(p * count);

	qsort(samples, (size_t)count, sizeof *samples, compare_doubles);
	if (rank < 1)
		rank = 1;
	return samples[rank - 1];
}

static double *samples_new(int count)
{
	double *samples = calloc((size_t)count, sizeof *samples);

	if (samples == NULL) {
		fprintf(stderr, "bench: out of memory\n");
		exit(2);
	}
	return samples;
}

/* Microseconds on the monotonic clock. */
static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* --- a terminal in this process: ncurses on the slave, the master read back ------- */

/* A pseudo-terminal with an ncurses SCREEN on its slave side. A reader thread
 * empties the master while a frame is written (a pty holds only a few KiB, and a
 * full 200×60 frame is larger); after each frame the caller takes the lock and
 * reads the rest itself, so the byte count at that moment is exact. */
struct terminal {
	int master;
	FILE *out, *in;
	SCREEN *screen;
	pthread_t reader;
	pthread_mutex_t lock;
	atomic_bool stop;
	long long bytes; /* read from the master so far (under lock) */
};

/* Reads whatever the master holds; the caller holds the lock. */
static void terminal_read_locked(struct terminal *t)
{
	char buffer[16384];
	ssize_t got;

	while ((got = read(t->master, buffer, sizeof buffer)) > 0)
		t->bytes += got;
}

static void *terminal_reader(void *arg)
{
	struct terminal *t = arg;
	struct pollfd pfd = { .fd = t->master, .events = POLLIN, .revents = 0 };

	while (!atomic_load(&t->stop)) {
		if (poll(&pfd, 1, 10) <= 0)
			continue;
		if (!(pfd.revents & POLLIN)) {
			sleep_ms(1);
			continue;
		}
		pthread_mutex_lock(&t->lock);
		terminal_read_locked(t);
		pthread_mutex_unlock(&t->lock);
	}
	return NULL;
}

/* Everything written to the terminal so far, in bytes (drains the master first). */
static long long terminal_settle(struct terminal *t)
{
	long long bytes;

	pthread_mutex_lock(&t->lock);
	terminal_read_locked(t);
	bytes = t->bytes;
	pthread_mutex_unlock(&t->lock);
	return bytes;
}

/* Opens a width × height pty and starts ncurses on it as tui.c does; 0 or -1. */
static int terminal_open(struct terminal *t, int width, int height)
{
	struct winsize size = { (unsigned short)height, (unsigned short)width, 0, 0 };
	int slave;
	char *name;

	memset(t, 0, sizeof *t);
	t->master = posix_openpt(O_RDWR | O_NOCTTY);
	if (t->master < 0 || grantpt(t->master) != 0 || unlockpt(t->master) != 0 ||
	    (name = ptsname(t->master)) == NULL)
		return -1;
	slave = open(name, O_RDWR | O_NOCTTY);
	if (slave < 0)
		return -1;
	ioctl(t->master, TIOCSWINSZ, &size);
	fcntl(t->master, F_SETFL, fcntl(t->master, F_GETFL) | O_NONBLOCK);
	t->out = fdopen(slave, "w");
	t->in = fdopen(dup(slave), "r");
	if (t->out == NULL || t->in == NULL)
		return -1;
	pthread_mutex_init(&t->lock, NULL);
	atomic_store(&t->stop, false);
	if (pthread_create(&t->reader, NULL, terminal_reader, t) != 0)
		return -1;
	t->screen = newterm(TERM_TYPE, t->out, t->in);
	if (t->screen == NULL)
		return -1;
	set_term(t->screen);
	if (LINES != height || COLS != width)
		resizeterm(height, width);
	if (has_colors()) {
		start_color();
		use_default_colors();
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	return 0;
}

static void terminal_close(struct terminal *t)
{
	endwin();
	terminal_settle(t);
	atomic_store(&t->stop, true);
	pthread_join(t->reader, NULL);
	delscreen(t->screen);
	fclose(t->out);
	fclose(t->in);
	close(t->master);
	pthread_mutex_destroy(&t->lock);
}

static int64_t now_ms(void)
{
	return (int64_t)(now_us() / 1000.0);
}

/* One key press, as the interface handles it: app_update, then render. Returns
 * the microseconds from the event to doupdate() returning. */
static double key_press(struct app *app, struct layout *l, int key)
{
	double start = now_us();
	struct event event = { .type = EVENT_KEY, .key = key, .now_ms = now_ms() };

	draw_render(app, l, app_update(app, &event));
	return now_us() - start;
}

/* Edits a Q cell `edits` times on a width × height terminal, alternately by typing
 * (a digit, then Enter) and by nudging ('+'); the cursor walks round four cells
 * between edits. An edit's time is that of the key press that commits it (Enter
 * or '+'): event, recompute, draw, doupdate; its bytes are what that frame wrote.
 * Prints frame_edit_{p99,median}_us_<suffix>, frame_key_p99_us_<suffix> (every
 * key press of the run: moves, digits, commits), and the median bytes per edit
 * and per forced full repaint. p is taken over. */
static int bench_edits(struct qkv_problem *p, int width, int height, int edits, const char *suffix)
{
	static const int walk[] = { APP_KEY_RIGHT, APP_KEY_DOWN, APP_KEY_LEFT, APP_KEY_UP };
	enum { REPAINTS = 50 };
	struct terminal term;
	struct app app;
	struct layout layout;
	double *times = samples_new(edits), *bytes = samples_new(edits);
	double *keys = samples_new(3 * edits), *repaint = samples_new(REPAINTS);
	int key_count = 0;
	char name[96];

	if (terminal_open(&term, width, height) != 0) {
		fprintf(stderr, "bench: cannot open a pseudo-terminal with ncurses (%s)\n", strerror(errno));
		qkv_problem_fini(p);
		return -1;
	}
	if (app_init(&app, p, NULL, &(struct app_options){ .palette_count = palette_count() }) != 0) {
		terminal_close(&term);
		app_fini(&app);
		return -1;
	}
	app.palette = palette_default();
	memset(&layout, 0, sizeof layout);
	{
		struct event resize = { .type = EVENT_RESIZE, .width = COLS, .height = LINES, .now_ms = now_ms() };
		draw_render(&app, &layout, app_update(&app, &resize));
	}
	for (int e = 0; e < edits; e++) {
		long long before;

		keys[key_count++] = key_press(&app, &layout, walk[e % 4]);
		if (e % 2 == 0)
			keys[key_count++] = key_press(&app, &layout, '1' + e % 9);
		before = terminal_settle(&term);
		times[e] = key_press(&app, &layout, e % 2 == 0 ? APP_KEY_ENTER : '+');
		bytes[e] = (double)(terminal_settle(&term) - before);
		keys[key_count++] = times[e];
	}
	for (int r = 0; r < REPAINTS; r++) {
		long long before = terminal_settle(&term);

		clearok(curscr, TRUE);
		draw_render(&app, &layout, REDRAW_ALL);
		repaint[r] = (double)(terminal_settle(&term) - before);
	}
	app_fini(&app);
	terminal_close(&term);

	snprintf(name, sizeof name, "frame_edit_p99_us_%s", suffix);
	figure(name, percentile(times, edits, 0.99), "us", 1);
	snprintf(name, sizeof name, "frame_edit_median_us_%s", suffix);
	figure(name, percentile(times, edits, 0.5), "us", 1);
	snprintf(name, sizeof name, "frame_key_p99_us_%s", suffix);
	figure(name, percentile(keys, key_count, 0.99), "us", 1);
	snprintf(name, sizeof name, "bytes_per_edit_%s", suffix);
	figure(name, percentile(bytes, edits, 0.5), "bytes", 0);
	snprintf(name, sizeof name, "bytes_full_repaint_%s", suffix);
	figure(name, percentile(repaint, REPAINTS, 0.5), "bytes", 0);
	free(times);
	free(bytes);
	free(keys);
	free(repaint);
	return 0;
}

/* --- the core ---------------------------------------------------------------------- */

/* The trace of the worked example, many times. */
static int bench_core_small(void)
{
	enum { RUNS = 20000 };
	struct qkv_problem p;
	struct qkv_trace t;
	double *times = samples_new(RUNS);
	int rc;

	qkv_problem_init(&p);
	qkv_trace_init(&t);
	rc = qkv_problem_worked_example(&p);
	for (int r = 0; r < RUNS && rc == 0; r++) {
		double start = now_us();

		rc = qkv_attention(&p, &t);
		times[r] = now_us() - start;
	}
	if (rc == 0) {
		figure("core_us_n3_dk2", percentile(times, RUNS, 0.5), "us", 2);
		figure("core_us_p99_n3_dk2", percentile(times, RUNS, 0.99), "us", 2);
	}
	qkv_trace_fini(&t);
	qkv_problem_fini(&p);
	free(times);
	return rc;
}

/* The trace at n = 512, d_k = d_v = 64. core_gflops is the target: the
 * trace's matrix products (Q Kᵀ and A V, as qkv_attention runs them) over their own
 * time; the whole trace, with its 2·n² exp and log calls, is reported beside it. */
static int bench_core_large(void)
{
	enum { RUNS = 40, N = 512, D = 64 };
	const double flops = 2.0 * N * N * D + 2.0 * N * N * D;
	struct qkv_problem p;
	struct qkv_trace t;
	struct qkv_matrix scores, output;
	double *whole = samples_new(RUNS), *products = samples_new(RUNS);
	int rc;

	qkv_problem_init(&p);
	qkv_trace_init(&t);
	qkv_matrix_init(&scores);
	qkv_matrix_init(&output);
	rc = qkv_problem_random(&p, N, D, D, 1);
	if (rc == 0)
		rc = qkv_attention(&p, &t); /* warm: storage allocated once */
	for (int r = 0; r < RUNS && rc == 0; r++) {
		double start = now_us();

		rc = qkv_attention(&p, &t);
		whole[r] = now_us() - start;
	}
	if (rc == 0)
		rc = qkv_matrix_multiply(&scores, &t.q, &t.k_t);
	for (int r = 0; r < RUNS && rc == 0; r++) {
		double start = now_us();

		rc = qkv_matrix_multiply(&scores, &t.q, &t.k_t);
		if (rc == 0)
			rc = qkv_matrix_multiply(&output, &t.weights, &t.v);
		products[r] = now_us() - start;
	}
	if (rc == 0) {
		double median_whole = percentile(whole, RUNS, 0.5);

		figure("core_gflops_n512_dk64", flops / (percentile(products, RUNS, 0.5) * 1e3),
		       "GFLOPS", 2);
		figure("core_trace_gflops_n512_dk64", flops / (median_whole * 1e3), "GFLOPS", 2);
		figure("core_ms_n512_dk64", median_whole / 1e3, "ms", 2);
	}
	qkv_matrix_fini(&scores);
	qkv_matrix_fini(&output);
	qkv_trace_fini(&t);
	qkv_problem_fini(&p);
	free(whole);
	free(products);
	return rc;
}

/* The saturation view's default sweep: 16 tokens, 8 trials, d_k = 1 … 1024. */
static int bench_sweep(void)
{
	enum { RUNS = 60 };
	struct qkv_sweep_point points[QKV_SWEEP_MAX_POINTS];
	double *times = samples_new(RUNS);

	for (int r = 0; r < RUNS; r++) {
		double start = now_us();

		if (qkv_sweep(16, 8, (uint64_t)r + 1, 1024, points) < 0) {
			free(times);
			return -1;
		}
		times[r] = now_us() - start;
	}
	figure("sweep_ms_default", percentile(times, RUNS, 0.5) / 1e3, "ms", 2);
	figure("sweep_ms_p99_default", percentile(times, RUNS, 0.99) / 1e3, "ms", 2);
	free(times);
	return 0;
}

/* Parsing the largest lessons read (4 MiB): one step of 4 MiB of note lines, and
 * one inline problem of about 4 M blank lines. The parse appends each line in time
 * of its own length, so both take about as long as reading 4 MiB. */
static int bench_lesson_parse(void)
{
	enum { RUNS = 5 };
	static const char note[] = "note Ask the class which token t1 listens to, and why.\n";
	static const char head[] = "step a\nproblem\n{\"Q\": [[1]], \"K\": [[1]], \"V\": [[1]]}\n";
	size_t size = (size_t)LESSON_MAX_BYTES, used;
	char *notes = malloc(size), *blank = malloc(size);
	double *times = samples_new(RUNS), *blank_times = samples_new(RUNS);
	struct lesson l;
	char err[600];
	int rc = 0;

	if (notes == NULL || blank == NULL || times == NULL || blank_times == NULL) {
		free(notes);
		free(blank);
		free(times);
		free(blank_times);
		return -1;
	}
	memcpy(notes, "step a\n", 7);
	for (used = 7; used + sizeof note - 1 <= size; used += sizeof note - 1)
		memcpy(notes + used, note, sizeof note - 1);
	memset(notes + used, '\n', size - used);
	memcpy(blank, head, sizeof head - 1);
	memset(blank + sizeof head - 1, '\n', size - (sizeof head - 1) - 4);
	memcpy(blank + size - 4, "end\n", 4);
	for (int r = 0; r < RUNS && rc == 0; r++) {
		double start = now_us();

		rc = lesson_parse(notes, size, "notes.lesson", &l, err, sizeof err);
		times[r] = now_us() - start;
		if (rc == 0)
			lesson_free(&l);
		start = now_us();
		if (rc == 0 && (rc = lesson_parse(blank, size, "blank.lesson", &l, err, sizeof err)) == 0)
			lesson_free(&l);
		blank_times[r] = now_us() - start;
	}
	if (rc != 0)
		fprintf(stderr, "bench: %s\n", err);
	else {
		figure("lesson_parse_ms_4mib_notes", percentile(times, RUNS, 0.5) / 1e3, "ms", 1);
		figure("lesson_parse_ms_4mib_blank_lines_in_problem", percentile(blank_times, RUNS, 0.5) / 1e3, "ms", 1);
	}
	free(notes);
	free(blank);
	free(times);
	free(blank_times);
	return rc;
}

/* The learning view's ticks, through app_update: the default lookup task at d_k 256
 * (the stall demonstration), and the largest problem the view trains live, whose
 * ticks must never keep the interface waiting (≤ 50 ms). */
static int bench_train_ticks(int tokens, int d_k, const char *name)
{
	enum { TICKS = 40 };
	struct qkv_train_config c;
	struct qkv_problem p;
	struct app app;
	double *times = samples_new(TICKS);
	struct event run = { .type = EVENT_TRAIN_RUN }, tick = { .type = EVENT_TICK };
	int rc;

	qkv_train_config_default(&c, QKV_TASK_LOOKUP);
	c.tokens = tokens;
	c.d_model = qkv_train_default_d_model(c.task, tokens);
	c.d_k = d_k;
	c.steps = 100000;
	qkv_problem_init(&p);
	rc = builtin_worked_example(&p);
	if (rc != 0) {
		qkv_problem_fini(&p);
		free(times);
		return rc;
	}
	rc = app_init(&app, &p, NULL, NULL);
	if (rc == 0 && (rc = app_learning_open(&app, &c)) == 0) {
		app_update(&app, &run);
		for (int k = 0; k < TICKS; k++) {
			double start = now_us();

			tick.now_ms = k;
			app_update(&app, &tick);
			times[k] = now_us() - start;
		}
		figure(name, percentile(times, TICKS, 0.99) / 1e3, "ms", 2);
	}
	app_fini(&app);
	free(times);
	return rc;
}

/* --- the longest time between two handled inputs --------------------------------- */

/* Runs keys (0-terminated) through app_update and draw_render on a 120 × 40 pty as
 * tui.c does, each followed by the ticks a busy interface gets every 20 ms until
 * the computation it started is taken in, and prints max_block_ms_<suffix>: the
 * longest single app_update + draw, that is the longest time no key, signal or
 * resize can be handled. The start-up is reported apart, as startup_block_ms_<suffix>:
 * app_init_traced, after a long first trace computed beside it as tui.c does (or
 * app_init computing a short one). p is taken over. */
static int bench_blocking(struct qkv_problem *p, const int *keys, const char *suffix)
{
	struct terminal term;
	struct app app;
	struct layout layout;
	double longest = 0, start, worst_key_start = 0;
	int worst_key = 0;
	struct qkv_trace first;
	bool computed;
	char name[96];

	if (terminal_open(&term, 120, 40) != 0) {
		qkv_problem_fini(p);
		return -1;
	}
	/* As tui.c: a long first trace is computed beside the interface, then taken in. */
	qkv_trace_init(&first);
	computed = app_trace_is_long(p) && qkv_attention(p, &first) == 0;
	start = now_us();
	if (app_init_traced(&app, p, computed ? &first : NULL, NULL,
			    &(struct app_options){ .palette_count = palette_count() }) != 0) {
		qkv_trace_fini(&first);
		terminal_close(&term);
		app_fini(&app);
		return -1;
	}
	qkv_trace_fini(&first);
	snprintf(name, sizeof name, "startup_block_ms_%s", suffix);
	figure(name, (now_us() - start) / 1e3, "ms", 1);
	app.palette = palette_default();
	memset(&layout, 0, sizeof layout);
	{
		struct event resize = { .type = EVENT_RESIZE, .width = COLS, .height = LINES, .now_ms = now_ms() };
		draw_render(&app, &layout, app_update(&app, &resize));
	}
	for (const int *k = keys; *k != 0; k++) {
		double took = key_press(&app, &layout, *k);

		if (took > longest) {
			longest = took;
			worst_key = *k;
			worst_key_start = 0;
		}
		while (app_busy(&app)) {
			struct event tick = { .type = EVENT_TICK };

			sleep_ms(20);
			tick.now_ms = now_ms();
			start = now_us();
			draw_render(&app, &layout, app_update(&app, &tick));
			took = now_us() - start;
			if (took > longest) {
				longest = took;
				worst_key = *k;
				worst_key_start = 1;
			}
		}
		terminal_settle(&term);
	}
	app_fini(&app);
	terminal_close(&term);
	fprintf(stderr, "bench: %s: the longest block came %s key %d\n", suffix,
		worst_key_start ? "on a tick after" : "with", worst_key);
	snprintf(name, sizeof name, "max_block_ms_%s", suffix);
	figure(name, longest / 1e3, "ms", 1);
	return 0;
}

/* The three scenarios: the largest direct problem (a structural change, its undo,
 * an edit of Q and one of K), a projected problem whose W's `I` ties to 2048 × 2048
 * identities (and back), and the saturation view at 256 tokens with more trials. */
static int bench_max_block(void)
{
	static const int large_keys[] = { '<', 'u', '+', APP_KEY_TAB, '+', 'j', 0 };
	static const int projected_keys[] = { 'I', '+', 'I', 0 };
	static const int saturation_keys[] = { 'S', 'l', 'l', 'h', 0 };
	struct qkv_problem p;
	struct qkv_rng rng;
	int failed = 0;

	qkv_problem_init(&p);
	failed |= qkv_problem_random(&p, QKV_MAX_TOKENS, QKV_MAX_DIM, QKV_MAX_DIM, 1) != 0 ||
		  bench_blocking(&p, large_keys, "n1024_dk4096") != 0;

	qkv_problem_init(&p);
	failed |= qkv_problem_random(&p, 256, 64, 64, 1) != 0;
	if (!failed) {
		/* X of 256 tokens × d_model 2048 and W's of 2048 × 64, from the same generator. */
		struct qkv_matrix *m[4] = { &p.x, &p.w_q, &p.w_k, &p.w_v };
		const int rows[4] = { 256, 2048, 2048, 2048 }, cols[4] = { 2048, 64, 64, 64 };

		qkv_rng_seed(&rng, 3);
		for (int i = 0; i < 4 && !failed; i++) {
			failed |= qkv_matrix_zero(m[i], rows[i], cols[i]) != 0;
			for (int r = 0; r < rows[i] && !failed; r++)
				for (int c = 0; c < cols[i]; c++)
					qkv_matrix_set(m[i], r, c, qkv_rng_normal(&rng) / 8);
		}
		qkv_matrix_fini(&p.q);
		qkv_matrix_fini(&p.k);
		qkv_matrix_fini(&p.v);
		p.form = QKV_FORM_PROJECTED;
		p.seeded = false;
		failed |= qkv_problem_check(&p) != 0 || bench_blocking(&p, projected_keys, "projected_identity") != 0;
	}

	qkv_problem_init(&p);
	failed |= qkv_problem_random(&p, 256, 64, 64, 1) != 0 ||
		  bench_blocking(&p, saturation_keys, "saturation_256") != 0;

	/* Eight heads of d_model 512 with as many tokens as the interface takes (a change's
	 * multiply-adds at most HEADS_INTERFACE_COST in main.c, 2·10⁸): an edit of X, its
	 * undo, halving d_k and its undo. */
	{
		static const int heads_keys[] = { '+', 'u', '<', 'u', 0 };
		int n = 16;

		qkv_problem_init(&p);
		while (n < QKV_MAX_TOKENS && qkv_problem_random_heads(&p, n + 16, 8, 512, 1) == 0 &&
		       qkv_heads_cost(&p) <= 2e8)
			n += 16;
		failed |= qkv_problem_random_heads(&p, n, 8, 512, 1) != 0;
		fprintf(stderr, "bench: heads8_dmodel512: %d tokens, %.0f million multiply-adds a change\n", n,
			qkv_heads_cost(&p) / 1e6);
		failed |= failed || bench_blocking(&p, heads_keys, "heads8_dmodel512") != 0;
	}
	return failed ? -1 : 0;
}

/* --- the real program on a pseudo-terminal ----------------------------------------- */

/* A child on a pty: its pid and the master side. */
struct child {
	pid_t pid;
	int master;
	char *output; /* everything it wrote, NUL-terminated */
	size_t length, capacity;
};

/* Starts argv[0] on a new width × height pty as its controlling terminal. */
static int child_start(struct child *c, char *const argv[], int width, int height)
{
	struct winsize size = { (unsigned short)height, (unsigned short)width, 0, 0 };
	char name[128];

	memset(c, 0, sizeof *c);
	c->master = posix_openpt(O_RDWR | O_NOCTTY);
	if (c->master < 0 || grantpt(c->master) != 0 || unlockpt(c->master) != 0 ||
	    ptsname(c->master) == NULL)
		return -1;
	snprintf(name, sizeof name, "%s", ptsname(c->master));
	ioctl(c->master, TIOCSWINSZ, &size);
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (c->pid == 0) {
		int slave;

		setsid();
		slave = open(name, O_RDWR);
		if (slave < 0)
			_exit(127);
		ioctl(slave, TIOCSCTTY, 0);
		dup2(slave, STDIN_FILENO);
		dup2(slave, STDOUT_FILENO);
		dup2(slave, STDERR_FILENO);
		if (slave > STDERR_FILENO)
			close(slave);
		close(c->master);
		execv(argv[0], argv);
		_exit(127);
	}
	fcntl(c->master, F_SETFL, fcntl(c->master, F_GETFL) | O_NONBLOCK);
	return 0;
}

/* Reads what the child wrote until it is quiet for quiet_ms after `text` has
 * appeared (NULL: after any new output); returns the time of the last bytes
 * read, or a negative number on a timeout or when the child closed the pty. */
static double child_read_frame(struct child *c, const char *text, int quiet_ms)
{
	size_t from = c->length;
	double last = -1, deadline = now_us() + CHILD_TIMEOUT_MS * 1e3;
	bool seen = false;
	struct pollfd pfd = { .fd = c->master, .events = POLLIN, .revents = 0 };

	while (now_us() < deadline) {
		int ready = poll(&pfd, 1, seen ? quiet_ms : 50);
		ssize_t got;

		if (ready == 0 && seen)
			return last;
		if (ready <= 0)
			continue;
		if (c->capacity - c->length < 8192) {
			size_t capacity = c->capacity * 2 + 65536;
			char *output = realloc(c->output, capacity);

			if (output == NULL)
				return -1;
			c->output = output;
			c->capacity = capacity;
		}
		got = read(c->master, c->output + c->length, c->capacity - c->length - 1);
		if (got <= 0)
			return got < 0 && errno == EAGAIN ? last : -1;
		last = now_us();
		c->length += (size_t)got;
		c->output[c->length] = '\0';
		if (!seen)
			seen = text == NULL || strstr(c->output + from, text) != NULL;
	}
	return -1;
}

/* Sends keys, then waits for the child's answer to go quiet. */
static void child_keys(struct child *c, const char *keys)
{
	if (write(c->master, keys, strlen(keys)) < 0)
		return;
	child_read_frame(c, NULL, QUIET_MS);
}

/* Reads until the child closes the pty, reaps it (killing it after the timeout),
 * and returns its peak resident set in KiB, or -1 when it did not exit with 0. */
static long child_finish(struct child *c)
{
	struct rusage usage;
	int status = 0;
	double deadline = now_us() + CHILD_TIMEOUT_MS * 1e3;
	pid_t done = 0;

	while (done == 0 && now_us() < deadline) {
		char buffer[4096];

		while (read(c->master, buffer, sizeof buffer) > 0)
			;
		done = wait4(c->pid, &status, WNOHANG, &usage);
		if (done == 0)
			sleep_ms(1);
	}
	if (done == 0) {
		kill(c->pid, SIGKILL);
		done = wait4(c->pid, &status, 0, &usage);
	}
	close(c->master);
	free(c->output);
	if (done != c->pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return usage.ru_maxrss;
}

/* From fork+exec of qkv on an 80×24 pty to its first complete frame: the time
 * of the last byte written before the output goes quiet for QUIET_MS after the
 * keys line (the frame's last row) has appeared. */
static int bench_startup(const char *qkv)
{
	enum { RUNS = 30 };
	char *argv[] = { (char *)qkv, NULL };
	double *times = samples_new(RUNS);

	for (int r = 0; r < RUNS; r++) {
		struct child c;
		double start = now_us(), frame;

		if (child_start(&c, argv, 80, 24) != 0) {
			free(times);
			return -1;
		}
		frame = child_read_frame(&c, KEYS_LINE_TEXT, QUIET_MS);
		child_keys(&c, "q");
		if (child_finish(&c) < 0 || frame < 0) {
			fprintf(stderr, "bench: %s did not draw its first frame and quit on q\n", qkv);
			free(times);
			return -1;
		}
		times[r] = (frame - start) / 1e3;
	}
	figure("startup_ms", percentile(times, RUNS, 0.5), "ms", 2);
	figure("startup_ms_p99", percentile(times, RUNS, 0.99), "ms", 2);
	free(times);
	return 0;
}

/* Peak memory of a session on the worked example: two edits, the stage walk, the
 * saturation view opened and closed, quit (and confirm: the edits are unsaved). */
static int bench_rss(const char *qkv)
{
	enum { RUNS = 5 };
	static const char *const session[] = {
		"1", "\r", "+", "\033[6~", "\033[6~", "\033[6~", "\033[6~", "\033[6~", "S", "S", "q", "y",
	};
	char *argv[] = { (char *)qkv, NULL };
	double *peaks = samples_new(RUNS);

	for (int r = 0; r < RUNS; r++) {
		struct child c;
		long peak;

		if (child_start(&c, argv, 80, 24) != 0 || child_read_frame(&c, KEYS_LINE_TEXT, QUIET_MS) < 0) {
			free(peaks);
			return -1;
		}
		for (size_t k = 0; k < sizeof session / sizeof session[0]; k++)
			child_keys(&c, session[k]);
		peak = child_finish(&c);
		if (peak < 0) {
			fprintf(stderr, "bench: the interactive session of %s did not end with status 0\n", qkv);
			free(peaks);
			return -1;
		}
		peaks[r] = (double)peak;
	}
	figure("peak_rss_kib", percentile(peaks, RUNS, 0.5), "KiB", 0);
	free(peaks);
	return 0;
}

/* --- the printer against numpy ----------------------------------------------------- */

/* Runs argv with stdout to the file `out` (NULL: /dev/null); returns the
 * milliseconds from fork to reaping, or -1 when it did not exit with 0. */
static double run_timed(char *const argv[], const char *out)
{
	double start = now_us();
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(out != NULL ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int quiet = open("/dev/null", O_WRONLY);

		if (fd < 0 || quiet < 0)
			_exit(127);
		dup2(fd, STDOUT_FILENO);
		dup2(quiet, STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return (now_us() - start) / 1e3;
}

/* The first interpreter that can import numpy: $QKV_BENCH_PYTHON, python3 on the
 * PATH, then the system's /usr/bin/python3. NULL when there is none. */
static const char *find_numpy_python(void)
{
	const char *candidates[] = { getenv("QKV_BENCH_PYTHON"), "python3", "/usr/bin/python3" };

	for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
		char *argv[] = { (char *)candidates[i], "-c", "import numpy", NULL };

		if (candidates[i] != NULL && candidates[i][0] != '\0' && run_timed(argv, NULL) >= 0)
			return candidates[i];
	}
	return NULL;
}

/* True when the two JSON traces agree on the weights and the output to 1e-9. */
static bool traces_agree(const char *path_a, const char *path_b)
{
	static const char *const keys[] = { "weights", "output" };
	json_t *a = json_load_file(path_a, 0, NULL), *b = json_load_file(path_b, 0, NULL);
	bool agree = a != NULL && b != NULL;

	for (size_t k = 0; agree && k < 2; k++) {
		json_t *ma = json_object_get(a, keys[k]), *mb = json_object_get(b, keys[k]);
		size_t i, j;
		json_t *row;

		agree = json_is_array(ma) && json_is_array(mb) && json_array_size(ma) == json_array_size(mb);
		json_array_foreach(ma, i, row) {
			json_t *other = json_array_get(mb, i), *cell;

			if (!agree || json_array_size(row) != json_array_size(other)) {
				agree = false;
				break;
			}
			json_array_foreach(row, j, cell)
				if (fabs(json_number_value(cell) - json_number_value(json_array_get(other, j))) > 1e-9)
					agree = false;
		}
	}
	json_decref(a);
	json_decref(b);
	return agree;
}

/* `qkv --print --format json FILE` (and csv, and the text report) against
 * trace_numpy.py FILE on the same 64-token problem (d_k = d_v = 64, seed 1, saved once in the loader's format). */
static int bench_printer(const char *qkv, const char *script)
{
	enum { RUNS = 12 };
	char dir[] = "/tmp/qkv-bench.XXXXXX", problem_path[64], c_out[64], py_out[64], err[256];
	const char *python = find_numpy_python();
	struct qkv_problem p;
	double *c_times = samples_new(RUNS), *py_times = samples_new(RUNS), *csv_times = samples_new(RUNS);
	double *text_times = samples_new(RUNS);
	int rc = -1;

	qkv_problem_init(&p);
	if (mkdtemp(dir) == NULL)
		goto done;
	snprintf(problem_path, sizeof problem_path, "%s/problem.json", dir);
	snprintf(c_out, sizeof c_out, "%s/qkv.json", dir);
	snprintf(py_out, sizeof py_out, "%s/numpy.json", dir);
	if (qkv_problem_random(&p, 64, 64, 64, 1) != 0 || save_file(problem_path, &p, err, sizeof err) != 0) {
		fprintf(stderr, "bench: cannot write the 64-token problem: %s\n", err);
		goto done;
	}
	{
		char *c_argv[] = { (char *)qkv, "--print", "--format", "json", problem_path, NULL };
		char *csv_argv[] = { (char *)qkv, "--print", "--format", "csv", problem_path, NULL };
		char *text_argv[] = { (char *)qkv, "--print", problem_path, NULL };
		char *py_argv[] = { (char *)python, (char *)script, problem_path, NULL };

		for (int r = 0; r < RUNS; r++)
			if ((c_times[r] = run_timed(c_argv, r == 0 ? c_out : NULL)) < 0 ||
			    (csv_times[r] = run_timed(csv_argv, NULL)) < 0 ||
			    (text_times[r] = run_timed(text_argv, NULL)) < 0)
				goto done;
		figure("printer_ms_n64_dk64", percentile(c_times, RUNS, 0.5), "ms", 2);
		figure("printer_csv_ms_n64_dk64", percentile(csv_times, RUNS, 0.5), "ms", 2);
		figure("printer_text_ms_n64_dk64", percentile(text_times, RUNS, 0.5), "ms", 2);
		if (python == NULL) {
			printf("printer_vs_numpy_ratio n/a numpy-not-installed\n");
			printf("printer_json_vs_numpy_ratio n/a numpy-not-installed\n");
			printf("printer_csv_vs_numpy_ratio n/a numpy-not-installed\n");
			printf("printer_text_vs_numpy_ratio n/a numpy-not-installed\n");
			fprintf(stderr, "bench: no python3 here can import numpy (Debian: apt-get install python3-numpy)\n");
			rc = 0;
			goto done;
		}
		for (int r = 0; r < RUNS; r++)
			if ((py_times[r] = run_timed(py_argv, r == 0 ? py_out : NULL)) < 0) {
				fprintf(stderr, "bench: %s %s failed\n", python, script);
				goto done;
			}
		if (!traces_agree(c_out, py_out)) {
			fprintf(stderr, "bench: qkv and numpy disagree on the 64-token trace\n");
			goto done;
		}
		fprintf(stderr, "bench: numpy via %s; both traces agree to 1e-9\n", python);
		figure("numpy_ms_n64_dk64", percentile(py_times, RUNS, 0.5), "ms", 2);
		figure("printer_vs_numpy_ratio", percentile(c_times, RUNS, 0.5) / percentile(py_times, RUNS, 0.5),
		       "ratio", 3);
		figure("printer_json_vs_numpy_ratio",
		       percentile(c_times, RUNS, 0.5) / percentile(py_times, RUNS, 0.5), "ratio", 3);
		figure("printer_csv_vs_numpy_ratio",
		       percentile(csv_times, RUNS, 0.5) / percentile(py_times, RUNS, 0.5), "ratio", 3);
		figure("printer_text_vs_numpy_ratio",
		       percentile(text_times, RUNS, 0.5) / percentile(py_times, RUNS, 0.5), "ratio", 3);
		rc = 0;
	}
done:
	unlink(problem_path);
	unlink(c_out);
	unlink(py_out);
	rmdir(dir);
	qkv_problem_fini(&p);
	free(c_times);
	free(csv_times);
	free(text_times);
	free(py_times);
	return rc;
}

/* Milliseconds on the monotonic clock, for the cost table's measurement. */
static double bench_clock_ms(void *context)
{
	(void)context;
	return now_us() / 1e3;
}

/* The cost explorer's standard algorithm (its own measurement: the median run at
 * each n, d_k = 64) against numpy's softmax(Q Kᵀ/√d) V in float64 on the BLAS
 * numpy is linked to (attention_numpy.py, beside trace_numpy.py), at n = 1024,
 * 2048 and 4096. The BLAS is named on a line of its own. */
static int bench_core_vs_blas(const char *trace_script)
{
	static const int sizes[] = { 1024, 2048, 4096 };
	const char *python = find_numpy_python(), *slash = strrchr(trace_script, '/');
	char script[1024], command[2200], line[256], blas[128] = "unknown";
	double numpy_ms[3] = { NAN, NAN, NAN };
	struct qkv_cost c;
	FILE *pipe;
	int rc;

	if (python == NULL) {
		for (int i = 0; i < 3; i++)
			printf("core_vs_blas_ratio_n%d n/a numpy-not-installed\n", sizes[i]);
		return 0;
	}
	snprintf(script, sizeof script, "%.*sattention_numpy.py", slash != NULL ? (int)(slash - trace_script + 1) : 0,
		 trace_script);
	snprintf(command, sizeof command, "'%s' '%s'", python, script);
	pipe = popen(command, "r");
	if (pipe == NULL)
		return -1;
	while (fgets(line, sizeof line, pipe) != NULL) {
		int n;
		double ms;

		if (sscanf(line, "blas %127s", blas) == 1)
			continue;
		for (int i = 0; i < 3; i++)
			if (sscanf(line, "%d %lf", &n, &ms) == 2 && n == sizes[i])
				numpy_ms[i] = ms;
	}
	if (pclose(pipe) != 0) {
		fprintf(stderr, "bench: %s failed\n", script);
		return -1;
	}
	rc = qkv_cost_init(&c, 64, 1, 4096, 1e9, QKV_COST_MEASURE(QKV_COST_STANDARD));
	if (rc == 0)
		rc = qkv_cost_run(&c, bench_clock_ms, NULL);
	if (rc != 0) {
		qkv_cost_fini(&c);
		return -1;
	}
	printf("blas_library %s name\n", blas);
	for (int i = 0; i < c.count; i++)
		for (int k = 0; k < 3; k++)
			if (c.rows[i].n == sizes[k]) {
				char name[64];

				snprintf(name, sizeof name, "core_standard_ms_n%d_dk64", sizes[k]);
				figure(name, c.rows[i].time[QKV_COST_STANDARD].ms, "ms", 2);
				snprintf(name, sizeof name, "numpy_%s_ms_n%d_dk64", blas, sizes[k]);
				figure(name, numpy_ms[k], "ms", 2);
				snprintf(name, sizeof name, "core_vs_blas_ratio_n%d", sizes[k]);
				figure(name, c.rows[i].time[QKV_COST_STANDARD].ms / numpy_ms[k], "ratio", 3);
			}
	qkv_cost_fini(&c);
	return 0;
}

/* --- main ---------------------------------------------------------------------------- */

/* The load average on stderr: the machine has two cores, and a build running beside
 * the benchmark shows up in every 99th percentile. */
static void say_load(const char *when)
{
	double load[1];

	if (getloadavg(load, 1) == 1)
		fprintf(stderr, "bench: load average %s: %.2f%s\n", when, load[0],
			load[0] > 0.5 ? " (other work is running: the figures will be slower than the machine)" : "");
}

/* The `target …` lines on stderr; returns 0 when every measured target is met. */
static int report_targets(void)
{
	int missed = 0;

	for (int i = 0; i < TARGET_COUNT; i++) {
		const struct target *t = &targets[i];
		bool ok = t->at_least ? t->value >= t->limit : t->value <= t->limit;

		if (!t->measured) {
			fprintf(stderr, "target %s n/a %s %g not measured\n", t->name, t->at_least ? ">=" : "<=",
				t->limit);
			continue;
		}
		fprintf(stderr, "target %s %g %s %g %s\n", t->name, t->value, t->at_least ? ">=" : "<=",
			t->limit, ok ? "ok" : "MISSED");
		missed += !ok;
	}
	return missed == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct qkv_problem p;
	int failed = 0, status;

	if (argc != 3) {
		fprintf(stderr, "usage: qkv-bench QKV_BINARY TRACE_NUMPY_PY\n");
		return 2;
	}
	/* The children and this process's own ncurses draw for the same terminal. */
	setenv("TERM", TERM_TYPE, 1);
	setenv("LC_ALL", "C.UTF-8", 1);
	unsetenv("LINES");
	unsetenv("COLUMNS");
	unsetenv("NO_COLOR");
	setlocale(LC_CTYPE, "");
	signal(SIGPIPE, SIG_IGN);

	say_load("before");
	/* QKV_BENCH_ONLY=lesson: only the lesson parse (a quick look while working). */
	if (getenv("QKV_BENCH_ONLY") != NULL && strcmp(getenv("QKV_BENCH_ONLY"), "lesson") == 0) {
		failed |= bench_lesson_parse() != 0;
		return failed ? 2 : report_targets();
	}
	/* QKV_BENCH_ONLY=max_block: only the longest blocks (a quick look while working). */
	if (getenv("QKV_BENCH_ONLY") != NULL && strcmp(getenv("QKV_BENCH_ONLY"), "max_block") == 0) {
		failed |= bench_max_block() != 0;
		say_load("after");
		return failed ? 2 : 0;
	}
	/* QKV_BENCH_ONLY=blas: only the core against numpy's BLAS (a quick look while working). */
	if (getenv("QKV_BENCH_ONLY") != NULL && strcmp(getenv("QKV_BENCH_ONLY"), "blas") == 0) {
		failed |= bench_core_vs_blas(argv[2]) != 0;
		say_load("after");
		return failed ? 2 : report_targets();
	}
	/* QKV_BENCH_ONLY=printer: only the real program's start-up and the printer
	 * against numpy (a quick look while working). */
	if (getenv("QKV_BENCH_ONLY") != NULL && strcmp(getenv("QKV_BENCH_ONLY"), "printer") == 0) {
		failed |= bench_startup(argv[1]) != 0;
		failed |= bench_printer(argv[1], argv[2]) != 0;
		say_load("after");
		return failed ? 2 : report_targets();
	}
	fprintf(stderr, "bench: frames into a pty (ncurses, %s)\n", TERM_TYPE);
	qkv_problem_init(&p);
	failed |= builtin_worked_example(&p) != 0 || bench_edits(&p, 80, 24, 2000, "80x24") != 0;
	qkv_problem_init(&p);
	failed |= qkv_problem_random(&p, 64, 1024, 64, 1) != 0 || bench_edits(&p, 200, 60, 1000, "n64_dk1024") != 0;
	/* The editor's largest n, and a wide d_k: an edit recomputes only what it reaches. */
	qkv_problem_init(&p);
	failed |= qkv_problem_random(&p, 1024, 64, 64, 1) != 0 || bench_edits(&p, 200, 60, 300, "n1024_dk64") != 0;
	qkv_problem_init(&p);
	failed |= qkv_problem_random(&p, 256, 4096, 64, 1) != 0 || bench_edits(&p, 200, 60, 300, "n256_dk4096") != 0;
	fprintf(stderr, "bench: the core\n");
	failed |= bench_core_small() != 0;
	failed |= bench_core_large() != 0;
	failed |= bench_core_vs_blas(argv[2]) != 0;
	failed |= bench_sweep() != 0;
	failed |= bench_lesson_parse() != 0;
	failed |= bench_train_ticks(8, 256, "train_tick_ms_p99_lookup_dk256") != 0;
	failed |= bench_train_ticks(64, 256, "train_tick_ms_p99_largest_live") != 0;
	fprintf(stderr, "bench: the longest blocks (large problems, computations beside the interface)\n");
	failed |= bench_max_block() != 0;
	fprintf(stderr, "bench: the real program (%s)\n", argv[1]);
	failed |= bench_startup(argv[1]) != 0;
	failed |= bench_rss(argv[1]) != 0;
	failed |= bench_printer(argv[1], argv[2]) != 0;

	say_load("after");
	status = report_targets();
	if (failed) {
		fprintf(stderr, "bench: some figures could not be measured\n");
		return 2;
	}
	return status;
}

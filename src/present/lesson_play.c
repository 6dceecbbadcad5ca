/* lesson_play.c — replaying a lesson (lesson.h): each action becomes the keys and
 * clicks a person would give, fed to app_update, or a fresh app_init for a new
 * problem. A computation that runs beside the interface is waited for, so a
 * replay ends in the same state however fast the machine is. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/files.h"
#include "app/info.h"
#include "app/view.h"
#include "present/lesson.h"
#include "io/problem/builtin.h"
#include "io/problem/load.h"
#include "qkv/error.h"
#include "qkv/problem.h"

#define MAX_PRESSES 64 /* keys one action may need: d_k from 1 to 4096 and back */

struct replay {
	const struct lesson *l;
	const struct lesson_action *a;
	char *err;
	size_t err_size;
};

static int replay_refuse(struct replay *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int replay_refuse(struct replay *r, const char *fmt, ...)
{
	va_list ap;
	int used = snprintf(r->err, r->err_size, "%s:%d: ", r->l->path, r->a != NULL ? r->a->line : 1);

	if (used < 0 || (size_t)used >= r->err_size)
		return -1;
	va_start(ap, fmt);
	vsnprintf(r->err + used, r->err_size - (size_t)used, fmt, ap);
	va_end(ap);
	return -1;
}

/* Ticks until a computation running beside the app is taken in. */
static void settle(struct app *app)
{
	while (app_busy(app)) {
		struct timespec pause = { 0, 2000000 };
		struct event tick = { .type = EVENT_TICK, .now_ms = app->now_ms };

		nanosleep(&pause, NULL);
		app_update(app, &tick);
		app_perform(app, app->now_ms);
	}
}

static void press(struct app *app, int key)
{
	struct event e = { .type = EVENT_KEY, .key = key, .now_ms = app->now_ms };

	app_update(app, &e);
	app_perform(app, app->now_ms);
	settle(app);
}

static void click(struct app *app, enum qkv_grid focus, int row, int col)
{
	struct event e = { .type = EVENT_CLICK, .focus = focus, .row = row, .col = col, .now_ms = app->now_ms };

	app_update(app, &e);
	app_perform(app, app->now_ms);
	settle(app);
}

static void resize(struct app *app, const struct lesson_look *look)
{
	struct event e = { .type = EVENT_RESIZE, .width = look->width, .height = look->height,
			   .now_ms = app->now_ms };

	app_update(app, &e);
}

/* The cost view's clock when none is given: milliseconds of CLOCK_MONOTONIC. */
static double monotonic_ms(void *context)
{
	struct timespec ts;

	(void)context;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A fresh app on p (taken over), with the look carried over. */
static int start(struct replay *r, struct app *app, bool live, struct qkv_problem *p, const struct lesson_look *look)
{
	int rc = qkv_problem_check(p);

	if (rc != 0) {
		qkv_problem_fini(p);
		return replay_refuse(r, "the problem cannot be computed: %s", qkv_error_string(rc));
	}
	/* The look enters through app_init's options, as the interface's does. */
	struct app_options options = { .palette_count = look->palette_count, .palette = look->palette,
					.projector = look->projector,
					.clock = look->clock != NULL ? look->clock : monotonic_ms,
					.clock_context = look->clock != NULL ? look->clock_context : NULL };

	if (live)
		app_fini(app);
	if (app_init(app, p, NULL, &options) != 0) {
		app_fini(app);
		memset(app, 0, sizeof *app);
		return replay_refuse(r, "out of memory");
	}
	settle(app);
	resize(app, look);
	return 0;
}

/* "t2" (a token's label), or a number from 1; the 0-based row. */
static int token_index(struct replay *r, const struct app *app, const char *text, bool queries, int *out)
{
	const struct qkv_problem *p = &app->problem;
	/* A query in cross-attention is one of its own labels; else a token. */
	bool own = queries && qkv_problem_is_cross(p);
	int count = own ? p->m : p->n;
	char *const *labels = own ? p->query_tokens : p->tokens;
	char *end;
	long number;

	for (int i = 0; i < count; i++)
		if (strcmp(labels[i], text) == 0) {
			*out = i;
			return 0;
		}
	number = strtol(text, &end, 10);
	if (end != text && *end == '\0' && number >= 1 && number <= count) {
		*out = (int)number - 1;
		return 0;
	}
	return replay_refuse(r, "no %s \"%s\" in this problem: its %s are %s … %s (or 1 to %d)",
			     own ? "query" : "token", text, own ? "queries" : "tokens", labels[0],
			     labels[count - 1], count);
}

/* "h2d1" (head 2's first column of d_v, as the screen labels the concatenation's
 * columns and W_O's rows) or a number from 1: the 0-based index, below limit. */
static int head_dim_index(struct replay *r, const struct app *app, const char *text, int limit, const char *what,
			  int *out)
{
	int d_v = app->heads.d_v, head, dim, used = 0;
	char *end;
	long number = strtol(text, &end, 10);

	if (end != text && *end == '\0' && number >= 1 && number <= limit) {
		*out = (int)number - 1;
		return 0;
	}
	if (sscanf(text, "h%dd%d%n", &head, &dim, &used) == 2 && text[used] == '\0' && head >= 1 &&
	    head <= app->heads.h && dim >= 1 && dim <= d_v) {
		*out = (head - 1) * d_v + dim - 1;
		return 0;
	}
	return replay_refuse(r, "no row or column \"%s\" of %s: it has h1d1 … h%dd%d (or 1 to %d)", text, what,
			     app->heads.h, d_v, limit);
}

/* "d3" or 3: the 0-based column, below limit. */
static int dim_index(struct replay *r, const char *text, int limit, const char *what, int *out)
{
	const char *digits = text[0] == 'd' || text[0] == 'm' ? text + 1 : text;
	char *end;
	long number = strtol(digits, &end, 10);

	if (end != digits && *end == '\0' && number >= 1 && number <= limit) {
		*out = (int)number - 1;
		return 0;
	}
	return replay_refuse(r, "no column \"%s\" of %s: it has 1 to %d", text, what, limit);
}

/* The matrix a grid names in app (inputs from the problem, the selected head's W
 * in a multi-head one, Q K V as used); an empty one when the problem has none. */
static const struct qkv_matrix *grid_matrix(const struct app *app, enum qkv_grid grid)
{
	static const struct qkv_matrix none;
	const struct qkv_matrix *m = qkv_grid_matrix(&app->problem, &app->trace, &app->heads, app->head, grid);

	return m != NULL ? m : &none;
}

/* True for the grids only a multi-head problem has (those its stages 6 and 7 show). */
static bool heads_grid(enum qkv_grid grid)
{
	return qkv_grid_info[grid].stage > QKV_STAGE_OUTPUT;
}

/* The 0-based cell an action names, checked against the problem. */
static int cell_place(struct replay *r, const struct app *app, const struct lesson_action *a, int *row, int *col)
{
	const struct qkv_matrix *m = grid_matrix(app, a->grid);
	const struct qkv_grid_info *info = &qkv_grid_info[a->grid];
	bool token_rows = info->rows == QKV_DIM_QUERIES || info->rows == QKV_DIM_KEYS;
	bool token_cols = info->cols == QKV_DIM_QUERIES || info->cols == QKV_DIM_KEYS;
	const char *name = info->name;

	if (heads_grid(a->grid) && app->problem.h < 1)
		return replay_refuse(r, "%s is a multi-head problem's: this problem has one head", name);
	if (m->rows == 0)
		return replay_refuse(r, "this problem has no %s: it gives %s", name,
				     app->problem.form == QKV_FORM_DIRECT ? "Q, K and V" : "X and W_Q, W_K, W_V");
	if (info->rows == QKV_DIM_HEADS_V ? head_dim_index(r, app, a->row, m->rows, name, row) != 0
	    : token_rows ? token_index(r, app, a->row, info->rows == QKV_DIM_QUERIES, row) != 0 : dim_index(r, a->row, m->rows, name, row) != 0)
		return -1;
	if (info->cols == QKV_DIM_HEADS_V ? head_dim_index(r, app, a->col, m->cols, name, col) != 0
	    : token_cols ? token_index(r, app, a->col, info->cols == QKV_DIM_QUERIES, col) != 0 : dim_index(r, a->col, m->cols, name, col) != 0)
		return -1;
	return 0;
}

/* The grid that takes the cursor for a cell of grid: S, S' and A share the n×n one's. */
static enum qkv_grid grid_focus(enum qkv_grid grid)
{
	return qkv_grid_is_attention(grid) ? QKV_GRID_WEIGHTS : grid;
}

static int open_problem(struct replay *r, const struct lesson_action *a, struct app *app,
			const struct lesson_look *look)
{
	struct qkv_problem p;
	char message[1024];
	int rc;

	qkv_problem_init(&p);
	switch (a->act) {
	case ACT_OPEN_EXAMPLE:
		if (builtin_worked_example(&p) != 0)
			return replay_refuse(r, "out of memory");
		break;
	case ACT_RANDOM:
		rc = qkv_problem_random(&p, a->tokens, a->d_k, a->d_v, a->seed);
		if (rc == 0)
			rc = qkv_problem_set_title(&p, "Random N(0,1) problem");
		if (rc != 0) {
			qkv_problem_fini(&p);
			return replay_refuse(r, "cannot draw the problem: %s", qkv_error_string(rc));
		}
		break;
	case ACT_OPEN_FILE: {
		/* A name is read next to the lesson, wherever qkv runs. */
		const char *slash = strrchr(r->l->path, '/');
		size_t folder = a->text[0] == '/' || slash == NULL ? 0 : (size_t)(slash - r->l->path) + 1;
		char *path = malloc(folder + strlen(a->text) + 1);

		if (path == NULL)
			return replay_refuse(r, "out of memory");
		memcpy(path, r->l->path, folder);
		strcpy(path + folder, a->text);
		rc = load_file(path, &p, message, sizeof message);
		free(path);
		if (rc != 0)
			return replay_refuse(r, "open %s: %s", a->text, message);
		break;
	}
	case ACT_PROBLEM:
	default: {
		/* The block's text, placed at its own lines, so the loader's places are the lesson's. */
		size_t length = strlen(a->text);
		char *text = malloc((size_t)a->line + length + 1);

		if (text == NULL)
			return replay_refuse(r, "out of memory");
		memset(text, '\n', (size_t)a->line);
		memcpy(text + a->line, a->text, length + 1);
		rc = load_string(text, (size_t)a->line + length, r->l->path, &p, message, sizeof message);
		free(text);
		if (rc != 0) {
			snprintf(r->err, r->err_size, "%s", message);
			return -1;
		}
		break;
	}
	}
	return start(r, app, true, &p, look);
}

static int set_d_k(struct app *app, int target)
{
	for (int i = 0; i < MAX_PRESSES; i++) {
		int d_k = qkv_problem_d_k(&app->problem);

		if (d_k == target)
			return 0;
		if (d_k < target && d_k * 2 <= target) {
			press(app, '>');
		} else if (d_k > target && d_k / 2 >= target) {
			press(app, '<');
		} else {
			/* One column at a time; ] and [ move d_model while X has the cursor. */
			bool on_x = app->focus == QKV_GRID_X;

			if (on_x)
				press(app, APP_KEY_TAB);
			press(app, d_k < target ? ']' : '[');
			if (on_x)
				press(app, APP_KEY_BACKTAB);
		}
		if (app->message_is_error)
			return -1;
	}
	return qkv_problem_d_k(&app->problem) == target ? 0 : -1;
}

/* Presses key until done(app) holds, at most `most` times. */
static bool press_until(struct app *app, int key, int most, bool (*done)(const struct app *app, int want), int want)
{
	for (int i = 0; i <= most; i++) {
		if (done(app, want))
			return true;
		if (i == most)
			break;
		press(app, key);
	}
	return false;
}

static bool mask_is(const struct app *app, int want) { return (int)app->problem.mask == want; }
static bool wrong_is(const struct app *app, int want) { return (int)app->problem.wrong == want; }
static bool scale_is(const struct app *app, int want)
{
	return (app->problem.scale == QKV_SCALE_SQRT_DK) == (want == 1) && (want == 1 || app->problem.scale == QKV_SCALE_NONE);
}
static bool stage_is(const struct app *app, int want) { return app->stage == want; }
static bool head_is(const struct app *app, int want) { return app->head == want; }
static bool tied_is(const struct app *app, int want) { return app_projections_tied(app) == (want == 1); }

static bool temperature_is(const struct app *app, double target)
{
	return fabs(app->problem.temperature - target) <= 1e-12 * target;
}

/* t and T step τ through its steps; the target must be one of them. */
static int set_temperature(struct app *app, double target)
{
	for (int i = 0; i < 16 && !temperature_is(app, target); i++) {
		double before = app->problem.temperature, after;

		press(app, before < target ? 'T' : 't');
		after = app->problem.temperature;
		if (after == before || (before < target && after > target) || (before > target && after < target))
			break;
	}
	return temperature_is(app, target) ? 0 : -1;
}

static int apply(struct replay *r, const struct lesson_action *a, struct app *app, const struct lesson_look *look)
{
	int row, col;

	app->message_is_error = false;
	if (app_views[app->view].others == VIEW_OTHERS_IGNORED && a->act != ACT_VIEW && a->act < ACT_EXPECT_CELL &&
	    a->act != ACT_OPEN_EXAMPLE && a->act != ACT_OPEN_FILE && a->act != ACT_PROBLEM && a->act != ACT_RANDOM)
		return replay_refuse(r, "the %s view takes every key while it is open: `view none` closes it "
				     "before this line", app_views[app->view].name);
	switch (a->act) {
	case ACT_OPEN_EXAMPLE:
	case ACT_OPEN_FILE:
	case ACT_PROBLEM:
	case ACT_RANDOM:
		return open_problem(r, a, app, look);
	case ACT_SET_CELL: {
		char text[64];

		if (heads_grid(a->grid) && app->problem.h < 1)
			return replay_refuse(r, "%s is a multi-head problem's: this problem has one head", qkv_grid_name(a->grid));
		if (!app_focus_is_input(app, grid_focus(a->grid)))
			return replay_refuse(r, "%s is computed here, not typed: this problem gives %s", qkv_grid_name(a->grid),
					     app->problem.form == QKV_FORM_DIRECT ? "Q, K and V" : "X and W_Q, W_K, W_V");
		if (cell_place(r, app, a, &row, &col) != 0)
			return -1;
		click(app, grid_focus(a->grid), row, col);
		press(app, APP_KEY_ENTER);
		press(app, APP_KEY_CTRL_U);
		snprintf(text, sizeof text, "%.17g", a->value);
		for (const char *c = text; *c != '\0'; c++)
			press(app, (unsigned char)*c);
		press(app, APP_KEY_ENTER);
		break;
	}
	case ACT_SET_DK:
		if (set_d_k(app, a->number) != 0)
			return replay_refuse(r, "d_k cannot be made %d: %s", a->number, app->message);
		return 0;
	case ACT_SET_DV:
		for (int i = 0; i < QKV_MAX_DIM && qkv_problem_d_v(&app->problem) != a->number; i++) {
			int before = qkv_problem_d_v(&app->problem);

			press(app, before < a->number ? '}' : '{');
			if (qkv_problem_d_v(&app->problem) == before)
				break;
		}
		if (qkv_problem_d_v(&app->problem) != a->number)
			return replay_refuse(r, "d_v cannot be made %d: %s", a->number, app->message);
		return 0;
	case ACT_SET_PADDING: {
		/* Padding hides keys: in cross-attention a row of K, not of Q. */
		enum qkv_grid tokens = app->problem.form != QKV_FORM_DIRECT ? QKV_GRID_X
				       : qkv_problem_is_cross(&app->problem) ? QKV_GRID_K : QKV_GRID_Q;
		bool padded;

		if (token_index(r, app, a->row, false, &row) != 0)
			return -1;
		padded = app->problem.padding != NULL && app->problem.padding[row];
		if (padded != (a->number == 1)) {
			/* z marks the token under the cursor. */
			click(app, tokens, row, app->cursor[tokens].col);
			press(app, 'z');
		}
		break;
	}
	case ACT_SET_SCALE:
		if (!press_until(app, 's', 2, scale_is, a->number))
			return replay_refuse(r, "scaling cannot be turned %s: %s", a->number ? "on" : "off", app->message);
		return 0;
	case ACT_SET_TEMPERATURE:
		if (set_temperature(app, a->value) != 0)
			return replay_refuse(r, "temperature %g is not one of the steps t and T give (0.05 0.1 0.2 0.5 1 2 5 10)",
					     a->value);
		return 0;
	case ACT_SET_MASK:
		if (!press_until(app, 'm', 3, mask_is, a->number))
			return replay_refuse(r, "the mask cannot be set: %s", app->message);
		return 0;
	case ACT_SET_WRONG:
		if (!press_until(app, 'W', 3, wrong_is, a->number))
			return replay_refuse(r, "the wrong way cannot be set: %s", app->message);
		return 0;
	case ACT_SET_PROJECTIONS:
		if (!press_until(app, 'I', 1, tied_is, a->number))
			return replay_refuse(r, "the projections cannot be made %s: %s", a->number ? "the identity" : "learned",
					     app->message);
		return 0;
	case ACT_STAGE:
		if (a->number == QKV_STAGE_PROJECTIONS && app->problem.form != QKV_FORM_PROJECTED)
			return replay_refuse(r, "stage 0 (projections) needs a problem given as X and W_Q, W_K, W_V");
		if (a->number >= APP_STAGE_CONCAT && app->problem.h < 1)
			return replay_refuse(r, "stage %d (%s) needs a multi-head problem: this one has one head", a->number,
					     a->number == APP_STAGE_CONCAT ? "concat" : "W_O");
		if (app->stage != a->number) {
			press(app, APP_KEY_HOME);
			if (!press_until(app, APP_KEY_PAGE_DOWN, APP_STAGE_LAYER + 1, stage_is, a->number))
				return replay_refuse(r, "stage %d cannot be reached", a->number);
		}
		return 0;
	case ACT_HEAD:
		if (app->problem.h < 1)
			return replay_refuse(r, "head %d: this problem has one head (a multi-head problem has heads)",
					     a->number);
		if (a->number > app->problem.h)
			return replay_refuse(r, "no head %d: this problem has %d heads", a->number, app->problem.h);
		if (!press_until(app, 'H', app->problem.h, head_is, a->number - 1))
			return replay_refuse(r, "head %d cannot be selected: %s", a->number, app->message);
		break;
	case ACT_SELECT:
		if (qkv_grid_is_input(a->grid) && !heads_grid(a->grid) &&
		    !app_focus_is_input(app, grid_focus(a->grid)))
			return replay_refuse(r, "%s has no cell to select here: this problem gives %s", qkv_grid_name(a->grid),
					     app->problem.form == QKV_FORM_DIRECT ? "Q, K and V" : "X and W_Q, W_K, W_V");
		if (cell_place(r, app, a, &row, &col) != 0)
			return -1;
		click(app, grid_focus(a->grid), row, col);
		break;
	case ACT_VIEW:
		/* A view's own key closes it, then the other view's key opens that one. */
		if ((int)app->view != a->number && app->view != VIEW_NONE)
			press(app, app_views[app->view].toggle.keys[0]);
		if ((int)app->view != a->number)
			press(app, app_views[a->number].toggle.keys[0]);
		if ((int)app->view != a->number)
			return replay_refuse(r, "the %s view cannot be opened: %s", app_views[a->number].name, app->message);
		break;
	default:
		return 0; /* expect lines change nothing */
	}
	if (app->message_is_error)
		return replay_refuse(r, "qkv refused it: %s", app->message);
	return 0;
}

static bool is_expect(enum lesson_act act)
{
	return act >= ACT_EXPECT_CELL;
}

bool lesson_expect_holds(const struct lesson *l, const struct lesson_action *a, const struct app *app,
			 char *seen, size_t seen_size, char *err, size_t err_size, int *bad)
{
	struct replay r = { .l = l, .a = a, .err = err, .err_size = err_size };
	int row, col;

	*bad = 0;
	switch (a->act) {
	case ACT_EXPECT_CELL: {
		double value;

		if (cell_place(&r, app, a, &row, &col) != 0) {
			*bad = 1;
			return false;
		}
		value = qkv_matrix_get(grid_matrix(app, a->grid), row, col);
		snprintf(seen, seen_size, "%.10g", value);
		return fabs(value - a->value) <= a->tolerance * (1 + 1e-9);
	}
	case ACT_EXPECT_STAGE:
		if (app->stage == APP_STAGE_LIVE)
			snprintf(seen, seen_size, "live");
		else
			snprintf(seen, seen_size, "%d", app->stage);
		return app->stage == a->number;
	case ACT_EXPECT_DK:
		snprintf(seen, seen_size, "%d", app->trace.d_k);
		return app->trace.d_k == a->number;
	case ACT_EXPECT_VIEW:
		snprintf(seen, seen_size, "%s", app_views[app->view].name);
		return (int)app->view == a->number;
	case ACT_EXPECT_HEAD:
		if (app->problem.h < 1)
			snprintf(seen, seen_size, "one head");
		else
			snprintf(seen, seen_size, "%d", app->head + 1);
		return app->problem.h > 0 && app->head + 1 == a->number;
	case ACT_EXPECT_INFO: {
		/* With the derivation's decimals the interface uses: two more than the grids' two. */
		char formula[1024], derivation[1024];

		app_info_lines(app, 4, formula, sizeof formula, derivation, sizeof derivation);
		snprintf(seen, seen_size, "\"%s%s%s\"", formula, formula[0] != '\0' ? " / " : "", derivation);
		return strstr(formula, a->text) != NULL || strstr(derivation, a->text) != NULL;
	}
	case ACT_EXPECT_MESSAGE:
	default:
		snprintf(seen, seen_size, "\"%s\"", app->message);
		return strstr(app->message, a->text) != NULL;
	}
}

/* Replays steps 0..last into app; with report, checks the expects on the way. */
static int replay(const struct lesson *l, int last, const struct lesson_look *look, struct app *app,
		  void (*report)(const char *line, void *data), void *data, int *checked, char *err, size_t err_size)
{
	struct replay r = { .l = l, .err = err, .err_size = err_size };
	struct qkv_problem p;
	int failed = 0;

	qkv_problem_init(&p);
	if (builtin_worked_example(&p) != 0 || start(&r, app, false, &p, look) != 0) {
		snprintf(err, err_size, "%s: out of memory", l->path);
		return -1;
	}
	if (last >= l->step_count)
		last = l->step_count - 1;
	for (int s = 0; s <= last; s++)
		for (int i = l->steps[s].first; i < l->steps[s].first + l->steps[s].count; i++) {
			const struct lesson_action *a = &l->actions[i];
			char seen[APP_MESSAGE_MAX + 8], line[APP_MESSAGE_MAX + 600];
			int bad;

			r.a = a;
			if (!is_expect(a->act)) {
				if (look->control != NULL && atomic_load(&look->control->cancel)) {
					snprintf(err, err_size, "cancelled");
					app_fini(app);
					return -1;
				}
				if (apply(&r, a, app, look) != 0) {
					if (app->problem.n > 0 || app->trace.n > 0)
						app_fini(app);
					return -1;
				}
				if (look->control != NULL)
					atomic_fetch_add(&look->control->actions_done, 1);
				continue;
			}
			if (report == NULL)
				continue;
			(*checked)++;
			if (lesson_expect_holds(l, a, app, seen, sizeof seen, err, err_size, &bad))
				continue;
			if (bad) {
				app_fini(app);
				return -1;
			}
			failed++;
			snprintf(line, sizeof line, "%s:%d: step %d (%s): expected %s, qkv shows %s", l->path, a->line, s + 1,
				 l->steps[s].title, a->act == ACT_EXPECT_CELL ? "the value" : "it", seen);
			if (a->act == ACT_EXPECT_CELL) {
				char want[160];

				snprintf(want, sizeof want, "%s[%s,%s] = %.10g ± %.3g", qkv_grid_name(a->grid), a->row, a->col,
					 a->value, a->tolerance);
				snprintf(line, sizeof line, "%s:%d: step %d (%s): expected %s, qkv shows %s", l->path, a->line,
					 s + 1, l->steps[s].title, want, seen);
			} else if (a->act == ACT_EXPECT_MESSAGE || a->act == ACT_EXPECT_INFO) {
				snprintf(line, sizeof line, "%s:%d: step %d (%s): expected the %s to contain \"%s\", "
					 "qkv shows %s", l->path, a->line, s + 1, l->steps[s].title,
					 a->act == ACT_EXPECT_INFO ? "lines under the grids" : "message", a->text, seen);
			} else if (a->act == ACT_EXPECT_HEAD) {
				snprintf(line, sizeof line, "%s:%d: step %d (%s): expected head = %d, qkv shows %s", l->path,
					 a->line, s + 1, l->steps[s].title, a->number, seen);
			} else {
				static const char *const what[] = { "stage", "d_k", "view" };
				char want[64];

				if (a->act == ACT_EXPECT_STAGE && a->number == APP_STAGE_LIVE)
					snprintf(want, sizeof want, "live");
				else if (a->act == ACT_EXPECT_VIEW)
					snprintf(want, sizeof want, "%s", app_views[a->number].name);
				else
					snprintf(want, sizeof want, "%d", a->number);
				snprintf(line, sizeof line, "%s:%d: step %d (%s): expected %s = %s, qkv shows %s", l->path,
					 a->line, s + 1, l->steps[s].title, what[a->act - ACT_EXPECT_STAGE], want, seen);
			}
			report(line, data);
		}
	return failed;
}

int lesson_build(const struct lesson *l, int step, const struct lesson_look *look, struct app *app,
		 char *err, size_t err_size)
{
	return replay(l, step, look, app, NULL, NULL, NULL, err, err_size) < 0 ? -1 : 0;
}

static void report_nothing(const char *line, void *data)
{
	(void)line;
	(void)data;
}

int lesson_check(const struct lesson *l, void (*report)(const char *line, void *data), void *data,
		 int *checked, char *err, size_t err_size)
{
	struct lesson_look look = { .width = 80, .height = 24, .palette_count = 1 };
	struct app app;
	int failed;

	*checked = 0;
	failed = replay(l, l->step_count - 1, &look, &app, report != NULL ? report : report_nothing, data, checked, err,
			err_size);
	if (failed >= 0)
		app_fini(&app);
	return failed;
}

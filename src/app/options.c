/* options.c — the structural keys (tokens, d_k, d_model, d_v) and the option keys
 * (scaling, temperature, mask, the wrong ways, identity, padding, random values), and
 * the words each says once its change is made. */
#include <string.h>

#include "app/app.h"
#include "app/internal.h"
#include "qkv/buffer.h"
#include "qkv/describe.h"
#include "qkv/error.h"
#include "qkv/format.h"

/* Records a change of d_k from d_k to target (drawn columns from N(0,1) with seed,
 * zero columns, or dropped ones when it shrinks) in the run of d_k changes; when
 * it continues the run (the action just before made the run's last change, d_k is
 * where that left it, and d_k moves the same way), done becomes the whole run's
 * sentence: "d_k = 512 (from 2): 510 new columns of Q and K drawn …". */
static void d_k_run_words(struct app *app, int d_k, int target, int drawn, int zeros, const char *pair,
			  uint64_t seed, char *done, size_t size)
{
	struct app_d_k_run *run = &app->d_k_run;
	bool up = target > d_k;
	struct qkv_buffer w;

	if (run->action + 1 != app->actions || run->to != d_k || (run->to > run->from) != up ||
	    run->from == run->to) {
		run->from = d_k;
		run->drawn = run->zeros = run->dropped = 0;
	}
	run->action = app->actions;
	run->to = target;
	run->drawn += drawn;
	run->zeros += zeros;
	run->dropped += up ? 0 : d_k - target;
	if (run->from == d_k)
		return; /* one change: its own sentence */
	w = (struct qkv_buffer){ done, size, 0 };
	qkv_buffer_put(&w, "d_k = %d (from %d): ", target, run->from);
	if (!up)
		qkv_buffer_put(&w, "the last %d columns of %s dropped", run->dropped, pair);
	if (run->drawn > 0)
		qkv_buffer_put(&w, "%d new column%s of %s drawn from N(0,1), seed %llu", run->drawn,
			       run->drawn > 1 ? "s" : "", pair, (unsigned long long)seed);
	if (run->zeros > 0 && run->drawn > 0)
		qkv_buffer_put(&w, ", and %d zero column%s added", run->zeros, run->zeros > 1 ? "s" : "");
	else if (run->zeros > 0)
		qkv_buffer_put(&w, "%d zero column%s added to %s", run->zeros, run->zeros > 1 ? "s" : "", pair);
}

/* o: a new token after the cursor's, and the cursor on it (options_after_change):
 * x then removes it again. x: the cursor's token removed. */
int options_tokens(struct app *app, int key)
{
	const struct qkv_problem *p = &app->problem;
	bool queries = walk_on_queries(app);
	char done[192];

	/* Cross-attention's sides have lengths of their own, which a causal mask ties. */
	if (qkv_problem_is_cross(p) && p->mask == QKV_MASK_CAUSAL) {
		app_say(app, true, "the causal mask needs as many queries as keys: m to change the mask first");
		return REDRAW_STATUS;
	}
	if (key == 'o')
		return edit_change_problem(app, queries ? change_insert_query : change_insert_token, walk_token(app), NULL);
	if (queries ? p->m <= 1 : p->n <= 1) {
		app_say(app, true, "the last %s cannot be removed", queries ? "query" : "token");
		return REDRAW_STATUS;
	}
	if (queries) {
		snprintf(done, sizeof done, "query %s removed", p->query_tokens[walk_token(app)]);
		return edit_change_problem(app, change_remove_query, walk_token(app), done);
	}
	snprintf(done, sizeof done, "token %s removed", p->tokens[walk_token(app)]);
	return edit_change_problem(app, change_remove_token, walk_token(app), done);
}

/* d_k becomes target (from the keys ] [ > <), the new columns drawn or zero as
 * the problem and the key ask. */
static int set_d_k(struct app *app, int target, bool doubled)
{
	const struct qkv_problem *p = &app->problem;
	int d_k = qkv_problem_d_k(p);
	const char *pair = p->form == QKV_FORM_DIRECT ? "Q and K" : p->h > 0 ? "every head's W_Q and W_K" : "W_Q and W_K";
	char done[192];

	if (target < 1 || target > QKV_MAX_DIM) {
		app_say(app, true, "d_k stays %d: it goes from 1 to %d", d_k, QKV_MAX_DIM);
		return REDRAW_STATUS;
	}
	if (target < d_k) {
		snprintf(done, sizeof done, "d_k = %d: the last %d column%s of %s dropped", target, d_k - target,
			 d_k - target > 1 ? "s" : "", pair);
		d_k_run_words(app, d_k, target, 0, 0, pair, 0, done, sizeof done);
	} else if (p->seeded && p->form == QKV_FORM_DIRECT) {
		snprintf(done, sizeof done, "d_k = %d: %d new column%s of %s drawn from N(0,1), seed %llu", target,
			 target - d_k, target - d_k > 1 ? "s" : "", pair, (unsigned long long)p->seed);
		d_k_run_words(app, d_k, target, target - d_k, 0, pair, p->seed, done, sizeof done);
	} else if (doubled && p->h == 0) {
		/* The saturation lesson needs N(0,1) columns, whatever the problem. */
		snprintf(done, sizeof done, "d_k = %d: %d new column%s of %s drawn from N(0,1), seed %llu "
			 "(] adds a zero column)", target, target - d_k, target - d_k > 1 ? "s" : "", pair,
			 (unsigned long long)app->column_seed);
		d_k_run_words(app, d_k, target, target - d_k, 0, pair, app->column_seed, done, sizeof done);
		return edit_change_problem(app, change_draw_d_k, target, done);
	} else {
		snprintf(done, sizeof done, "d_k = %d: a zero column added to %s", target, pair);
		d_k_run_words(app, d_k, target, 0, target - d_k, pair, app->column_seed, done, sizeof done);
	}
	return edit_change_problem(app, change_d_k, target, done);
}

/* ] [: d_k by one (on X, d_model: a column of X and a row of every W); } {: d_v by one. */
int options_columns(struct app *app, int key)
{
	const struct qkv_problem *p = &app->problem;
	int d_v = qkv_problem_d_v(p), step = key == ']' || key == '}' ? 1 : -1;
	char done[192];

	if ((key == ']' || key == '[') && app->focus != QKV_GRID_X && app->focus != QKV_GRID_X_Q)
		return set_d_k(app, qkv_problem_d_k(p) + step, false);
	if (key == ']' || key == '[') {
		int d_model = qkv_problem_d_model(p), target = d_model + step;

		if (target < 1 || target > QKV_MAX_DIM) {
			app_say(app, true, "d_model stays %d: it goes from 1 to %d", d_model, QKV_MAX_DIM);
			return REDRAW_STATUS;
		}
		snprintf(done, sizeof done, "d_model = %d (X and the rows of every W)", target);
		return edit_change_problem(app, change_d_model, target, done);
	}
	if (d_v + step < 1 || d_v + step > QKV_MAX_DIM) {
		app_say(app, true, "d_v stays %d: it goes from 1 to %d", d_v, QKV_MAX_DIM);
		return REDRAW_STATUS;
	}
	snprintf(done, sizeof done, p->h > 0 ? "d_v = %d in every head (W_O has h·d_v rows)" : "d_v = %d", d_v + step);
	return edit_change_problem(app, change_d_v, d_v + step, done);
}

/* > <: d_k doubled (new columns from N(0,1), for the saturation lesson) or halved. */
int options_double_d_k(struct app *app, int key)
{
	int d_k = qkv_problem_d_k(&app->problem);

	return set_d_k(app, key == '>' ? d_k * 2 : d_k / 2, key == '>');
}

/* The query rows whose weights do not sum to 1 at two decimals, with their sums:
 * "rows t1 and t2 (0.33, 0.67)". Returns how many there are. */
static int rows_off_one(const struct app *app, struct qkv_buffer *w)
{
	const struct qkv_trace *t = &app->trace;
	int count = 0, named = 0;
	char sum[32];

	for (int i = 0; i < t->m; i++) {
		qkv_format_number(sum, sizeof sum, t->rows[i].weight_sum, 2);
		count += strcmp(sum, "1.00") != 0;
	}
	if (count == 0)
		return 0;
	qkv_buffer_put(w, count == 1 ? "row " : count <= NAMES_MAX ? "rows " : "%d rows, ", count);
	for (int i = 0; i < t->m && named < NAMES_MAX; i++) {
		qkv_format_number(sum, sizeof sum, t->rows[i].weight_sum, 2);
		if (strcmp(sum, "1.00") == 0)
			continue;
		qkv_buffer_put(w, "%s%s", named == 0 ? "" : named + 1 == count ? " and " : ", ",
			       qkv_problem_query_label(&app->problem, i));
		named++;
	}
	if (count > NAMES_MAX)
		qkv_buffer_put(w, ", …");
	qkv_buffer_put(w, " (Σ ");
	named = 0;
	for (int i = 0; i < t->m && named < NAMES_MAX; i++) {
		qkv_format_number(sum, sizeof sum, t->rows[i].weight_sum, 2);
		if (strcmp(sum, "1.00") == 0)
			continue;
		qkv_buffer_put(w, "%s%s", named == 0 ? "" : ", ", sum);
		named++;
	}
	qkv_buffer_put(w, count > NAMES_MAX ? ", …)" : ")");
	return count;
}

/* True when every column of weights sums to 1 at two decimals. */
static bool columns_sum_to_one(const struct app *app)
{
	const struct qkv_trace *t = &app->trace;
	char text[32];

	for (int j = 0; j < t->n; j++) {
		double sum = 0.0;

		for (int i = 0; i < t->m; i++)
			sum += qkv_matrix_get(&t->weights, i, j);
		qkv_format_number(text, sizeof text, sum, 2);
		if (strcmp(text, "1.00") != 0)
			return false;
	}
	return true;
}

/* True when some query does not see some key. */
static bool any_key_masked(const struct app *app)
{
	size_t cells = (size_t)app->trace.m * (size_t)app->trace.n;

	for (size_t i = 0; i < cells; i++)
		if (app->trace.masked[i])
			return true;
	return false;
}

/* What the wrong-way demonstration in force does to these numbers. Masking after
 * softmax only shows where a key is masked, so with no mask it says so and offers
 * the causal mask (m). */
static void wrong_words(struct app *app, const char *prefix)
{
	char text[APP_MESSAGE_MAX];
	struct qkv_buffer w = { text, sizeof text, 0 };

	qkv_buffer_put(&w, "%s", prefix);
	switch (app->problem.wrong) {
	case QKV_WRONG_MASK_AFTER_SOFTMAX:
		qkv_buffer_put(&w, "WRONG WAY: mask after softmax — ");
		if (!any_key_masked(app))
			qkv_buffer_put(&w, "no key is masked, so nothing changes (try m)");
		else if (rows_off_one(app, &w) > 0)
			qkv_buffer_put(&w, " no longer sum to 1");
		else
			qkv_buffer_put(&w, "every row still sums to 1");
		break;
	case QKV_WRONG_COLUMN_SOFTMAX:
		qkv_buffer_put(&w, "WRONG WAY: softmax down the columns — %s", columns_sum_to_one(app) ? "columns sum to 1; " : "");
		if (rows_off_one(app, &w) > 0)
			qkv_buffer_put(&w, " do not");
		else
			qkv_buffer_put(&w, "every row happens to sum to 1 as well");
		break;
	case QKV_WRONG_NONE:
	default:
		qkv_buffer_put(&w, "the right way again: every row of weights sums to 1");
		break;
	}
	app_say(app, app->problem.wrong != QKV_WRONG_NONE, "%s", text);
}

/* What a change says once made, and where the cursor then goes: the words that need
 * the new problem and its trace. The same whether the change was made between two
 * keys (edit_change_problem) or by a job (take_job). */
void options_after_change(struct app *app, job_change change, int argument)
{
	const struct qkv_problem *p = &app->problem;

	if (change == change_insert_token && argument + 1 < p->n) {
		walk_to_token(app, argument + 1);
		app_say(app, false, "token %s added after %s; the cursor is on it (x removes it)", p->tokens[argument + 1],
		    p->tokens[argument]);
	} else if (change == change_insert_query && argument + 1 < p->m) {
		walk_to_token(app, argument + 1);
		app_say(app, false, "query %s added after %s; the cursor is on it (x removes it)",
		    p->query_tokens[argument + 1], p->query_tokens[argument]);
	} else if (change == change_mask && p->wrong != QKV_WRONG_NONE) {
		char prefix[64];

		/* Short, so that what the demonstration now shows fits the line. */
		snprintf(prefix, sizeof prefix, "mask %s · ", qkv_mask_name(p->mask));
		wrong_words(app, prefix);
	} else if (change == change_wrong) {
		wrong_words(app, "");
	} else if (change == change_identity && argument == 1) {
		char words[APP_MESSAGE_MAX - 64];

		qkv_describe_self(words, sizeof words, &app->problem, &app->trace, 2);
		app_say(app, false, "W_Q = W_K = W_V = identity, so %s: %s",
		    qkv_problem_is_cross(&app->problem) ? "Q = X_q and K = V = X" : "Q = K = V = X", words);
	}
}

/* s: scaled by √d_k or not at all; t T: the temperature a step down or up. */
int options_scale(struct app *app, int key)
{
	const struct qkv_problem *p = &app->problem;
	char done[128];

	if (key == 's') {
		enum qkv_scale next = p->scale == QKV_SCALE_NONE ? QKV_SCALE_SQRT_DK : QKV_SCALE_NONE;

		snprintf(done, sizeof done, "scaling %s", next == QKV_SCALE_NONE
			 ? "off, the wrong way at large d_k: watch var(S') and ‖J‖ in the readout, S for the sweep"
			 : "on: divided by √d_k");
		return edit_change_problem(app, change_scale, next, done);
	}
	int index = change_temperature_index(p->temperature, key == 't' ? -1 : 1);

	if (index < 0) {
		app_say(app, false, "τ stays %g: the steps go from %g to %g", p->temperature, change_temperature_step(0),
			change_temperature_step(change_temperature_steps() - 1));
		return REDRAW_STATUS;
	}
	snprintf(done, sizeof done, "temperature τ = %g", change_temperature_step(index));
	return edit_change_problem(app, change_temperature, index, done);
}

/* m: the next mask (after a wrong way: options_after_change); z: the cursor's
 * token as padding, or no longer. */
int options_mask(struct app *app, int key)
{
	static const char *const mask_names[] = { "none", "causal (query i sees keys j ≤ i)",
						  "custom (Enter on a weight toggles it)" };
	const struct qkv_problem *p = &app->problem;
	char done[128];

	if (key == 'm') {
		int next = (p->mask + 1) % (QKV_MASK_CUSTOM + 1);

		/* Cross-attention of m ≠ n has no causal order between its sequences. */
		if (next == QKV_MASK_CAUSAL && p->m != p->n) {
			snprintf(done, sizeof done, "mask: %s; causal is passed over: %d queries and %d keys have "
				 "no order between them", mask_names[QKV_MASK_CUSTOM], p->m, p->n);
			return edit_change_problem(app, change_mask, QKV_MASK_CUSTOM, done);
		}
		snprintf(done, sizeof done, "mask: %s", mask_names[next]);
		return edit_change_problem(app, change_mask, next, done);
	}
	/* Padding hides a key: in cross-attention a token, whatever the cursor's side. */
	int token = qkv_problem_is_cross(p) ? app_key(app) : walk_token(app);
	bool padding = p->padding != NULL && p->padding[token];

	snprintf(done, sizeof done, "%s %s padding%s", p->tokens[token], padding ? "is no longer" : "is now",
		 padding ? "" : ": no query sees it as a key");
	return edit_change_problem(app, change_padding, token, done);
}

/* W: the next wrong-way demonstration (what it shows: options_after_change). */
int options_wrong(struct app *app, int key)
{
	(void)key;
	return edit_change_problem(app, change_wrong, (app->problem.wrong + 1) % (QKV_WRONG_COLUMN_SOFTMAX + 1), NULL);
}

/* I: W_Q, W_K, W_V tied to the identity (the words: options_after_change), or the
 * learned ones back. */
int options_identity(struct app *app, int key)
{
	const struct qkv_problem *p = &app->problem;

	(void)key;
	if (p->h > 0) {
		app_say(app, true, "I ties W_Q, W_K and W_V to the identity in a one-head problem; "
			"here each of the %d heads has its own", p->h);
		return REDRAW_STATUS;
	}
	if (p->form != QKV_FORM_PROJECTED) {
		app_say(app, true, "this problem gives Q, K and V directly: there are no projections to tie");
		return REDRAW_STATUS;
	}
	if (app_projections_tied(app) && app->untied[0].rows == p->x.cols)
		return edit_change_problem(app, change_identity, 0, "projections learned again: W_Q, W_K, W_V as they were");
	return edit_change_problem(app, change_identity, 1, NULL);
}

/* r: Q, K and V drawn from N(0,1) with the next seed. */
int options_random(struct app *app, int key)
{
	const struct qkv_problem *p = &app->problem;
	char done[128];

	(void)key;
	if (p->form != QKV_FORM_DIRECT) {
		app_say(app, true, "random values fill Q, K and V directly; this problem has projections");
		return REDRAW_STATUS;
	}
	snprintf(done, sizeof done, "Q, K and V drawn from N(0,1), seed %llu", (unsigned long long)change_next_seed(p));
	return edit_change_problem(app, change_random, 0, done);
}

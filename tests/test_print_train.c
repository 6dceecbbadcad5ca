/* test_print_train.c — Check suite for the training printer (print_train.h): the
 * JSON contract of a run read back with jansson (exact keys, shapes, numbers that
 * agree with the run and with finite differences), the CSV's rows, and the sweep's
 * JSON. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/report/print_train.h"
#include "qkv/error.h"
#include "qkv/train.h"

#include "tap_main.h"

/* Writes with `print` into memory and returns the text (caller frees). */
static char *print_run(const struct qkv_train *t, enum print_format format)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(print_train_run(out, t, format), 0);
	fclose(out);
	return text;
}

static json_t *parse(const char *text)
{
	json_error_t error;
	json_t *root = json_loads(text, 0, &error);

	ck_assert_msg(root != NULL, "JSON does not parse: %s at line %d", error.text, error.line);
	return root;
}

/* A rows × cols array of arrays of numbers equal to m (when m is given). */
static void check_matrix(json_t *value, int rows, int cols, const struct qkv_matrix *m)
{
	ck_assert(json_is_array(value));
	ck_assert_int_eq((int)json_array_size(value), rows);
	for (int r = 0; r < rows; r++) {
		json_t *row = json_array_get(value, (size_t)r);

		ck_assert_int_eq((int)json_array_size(row), cols);
		for (int c = 0; c < cols; c++) {
			json_t *cell = json_array_get(row, (size_t)c);

			ck_assert(json_is_number(cell));
			if (m != NULL)
				ck_assert(json_number_value(cell) == qkv_matrix_get(m, r, c));
		}
	}
}

static void small_config(struct qkv_train_config *c)
{
	qkv_train_config_default(c, QKV_TASK_LOOKUP);
	c->tokens = 4;
	c->d_model = qkv_train_min_d_model(c->task, c->tokens) + 2;
	c->d_k = 3;
	c->steps = 40;
}

START_TEST(test_json_contract)
{
	static const char *const keys[] = {
		"format", "task", "n", "d_model", "d_k", "d_v", "scaled", "learn", "budget", "divisor", "loss",
		"optimizer", "lr", "seed", "X", "target", "W_Q", "W_K", "W_V", "grad0", "steps", "steps_to_90",
		"final",
	};
	struct qkv_train_config c;
	struct qkv_train t;
	struct qkv_problem p;
	struct qkv_matrix target;
	json_t *root, *steps, *final, *grad0;
	const char *key;
	json_t *value;
	char *text;
	int first_90 = -1;

	small_config(&c);
	qkv_problem_init(&p);
	qkv_matrix_init(&target);
	ck_assert_int_eq(qkv_train_task(&c, &p, &target), 0);
	ck_assert_int_eq(qkv_train_init(&t, &c), 0);
	ck_assert_int_eq(qkv_train_run(&t, false), 0);
	text = print_run(&t, PRINT_JSON);
	root = parse(text);
	ck_assert_int_eq((int)json_object_size(root), (int)(sizeof keys / sizeof *keys));
	for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
		ck_assert_msg(json_object_get(root, keys[k]) != NULL, "no \"%s\"", keys[k]);
	json_object_foreach(root, key, value) {
		bool known = false;

		for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
			known = known || strcmp(key, keys[k]) == 0;
		ck_assert_msg(known, "unexpected key \"%s\"", key);
	}
	ck_assert_str_eq(json_string_value(json_object_get(root, "task")), "lookup");
	/* What replays the run: its layout's name, the scaling, what was learned, the budget. */
	ck_assert_str_eq(json_string_value(json_object_get(root, "format")), "qkv-train-run 1");
	ck_assert(json_is_boolean(json_object_get(root, "scaled")));
	ck_assert(json_boolean_value(json_object_get(root, "scaled")) == c.scaled);
	ck_assert(json_is_array(json_object_get(root, "learn")));
	ck_assert_int_eq((int)json_integer_value(json_object_get(root, "budget")), c.steps);
	ck_assert_int_eq(json_integer_value(json_object_get(root, "n")), 4);
	ck_assert_int_eq(json_integer_value(json_object_get(root, "d_model")), c.d_model);
	ck_assert_int_eq(json_integer_value(json_object_get(root, "d_k")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(root, "d_v")), 4);
	ck_assert(json_number_value(json_object_get(root, "divisor")) == sqrt(3.0));
	ck_assert_str_eq(json_string_value(json_object_get(root, "loss")), "mse");
	ck_assert_str_eq(json_string_value(json_object_get(root, "optimizer")), "sgd");
	ck_assert(json_number_value(json_object_get(root, "lr")) == c.lr);
	ck_assert_int_eq(json_integer_value(json_object_get(root, "seed")), 1);
	/* The data and the initial weights are the task's, drawn again here. */
	check_matrix(json_object_get(root, "X"), 4, c.d_model, &p.x);
	check_matrix(json_object_get(root, "target"), 4, 4, &target);
	check_matrix(json_object_get(root, "W_Q"), c.d_model, 3, &p.w_q);
	check_matrix(json_object_get(root, "W_K"), c.d_model, 3, &p.w_k);
	check_matrix(json_object_get(root, "W_V"), c.d_model, 4, &p.w_v);
	/* grad0: every entry against central finite differences at the initial point. */
	grad0 = json_object_get(root, "grad0");
	ck_assert_int_eq((int)json_object_size(grad0), 3);
	{
		struct qkv_backprop b;
		struct qkv_matrix *w[3] = { &p.w_q, &p.w_k, &p.w_v };

		qkv_backprop_init(&b);
		for (int k = 0; k < 3; k++) {
			json_t *g = json_object_get(grad0, qkv_weight_name((enum qkv_weight)k));

			check_matrix(g, w[k]->rows, w[k]->cols, NULL);
			for (int r = 0; r < w[k]->rows; r++)
				for (int col = 0; col < w[k]->cols; col++) {
					double keep = qkv_matrix_get(w[k], r, col), up, down;

					qkv_matrix_set(w[k], r, col, keep + 1e-5);
					ck_assert_int_eq(qkv_backprop_run(&b, &p, &target, QKV_LOSS_MSE), 0);
					up = b.loss;
					qkv_matrix_set(w[k], r, col, keep - 1e-5);
					ck_assert_int_eq(qkv_backprop_run(&b, &p, &target, QKV_LOSS_MSE), 0);
					down = b.loss;
					qkv_matrix_set(w[k], r, col, keep);
					ck_assert_double_eq_tol(
						json_number_value(json_array_get(json_array_get(g, (size_t)r),
										 (size_t)col)),
						(up - down) / 2e-5, 1e-8);
				}
		}
		qkv_backprop_fini(&b);
	}
	/* steps 0 … 40, each with its fields; steps_to_90 the first at ≥ 0.9. */
	steps = json_object_get(root, "steps");
	ck_assert_int_eq((int)json_array_size(steps), 41);
	for (int s = 0; s <= 40; s++) {
		json_t *step = json_array_get(steps, (size_t)s);
		json_t *norms = json_object_get(step, "grad_norm");
		double accuracy = json_number_value(json_object_get(step, "accuracy"));

		ck_assert_int_eq((int)json_object_size(step), 5);
		ck_assert_int_eq(json_integer_value(json_object_get(step, "step")), s);
		ck_assert(json_number_value(json_object_get(step, "loss")) == t.history[s].loss);
		ck_assert(accuracy == t.history[s].accuracy);
		ck_assert(json_number_value(json_object_get(step, "jacobian_norm"))
			  == t.history[s].jacobian_norm);
		ck_assert(json_number_value(json_object_get(norms, "W_K")) == t.history[s].grad_norm[1]);
		if (first_90 < 0 && accuracy >= 0.9)
			first_90 = s;
	}
	if (first_90 < 0)
		ck_assert(json_is_null(json_object_get(root, "steps_to_90")));
	else
		ck_assert_int_eq(json_integer_value(json_object_get(root, "steps_to_90")), first_90);
	/* final: the weights now, and softmax rows that sum to 1. */
	final = json_object_get(root, "final");
	ck_assert_int_eq((int)json_object_size(final), 4);
	check_matrix(json_object_get(final, "W_Q"), c.d_model, 3, &t.problem.w_q);
	check_matrix(json_object_get(final, "W_V"), c.d_model, 4, &p.w_v); /* not learned */
	check_matrix(json_object_get(final, "weights"), 4, 4, NULL);
	for (int i = 0; i < 4; i++) {
		double sum = 0.0;

		for (int j = 0; j < 4; j++)
			sum += json_number_value(
				json_array_get(json_array_get(json_object_get(final, "weights"), (size_t)i),
					       (size_t)j));
		ck_assert_double_eq_tol(sum, 1.0, 1e-12);
	}
	json_decref(root);
	free(text);
	qkv_train_fini(&t);
	qkv_problem_fini(&p);
	qkv_matrix_fini(&target);
}
END_TEST

/* A run that does not reach 90% writes null; CSV has a header and a row per step. */
START_TEST(test_null_and_csv)
{
	struct qkv_train_config c;
	struct qkv_train t;
	json_t *root;
	char *text;
	int lines = 0;

	small_config(&c);
	c.steps = 2;
	c.lr = 1e-9;
	ck_assert_int_eq(qkv_train_init(&t, &c), 0);
	ck_assert_int_eq(qkv_train_run(&t, false), 0);
	ck_assert_double_lt(t.history[2].accuracy, 0.9); /* precondition of this test */
	text = print_run(&t, PRINT_JSON);
	root = parse(text);
	ck_assert(json_is_null(json_object_get(root, "steps_to_90")));
	json_decref(root);
	free(text);
	text = print_run(&t, PRINT_CSV);
	ck_assert(strncmp(text, "step,loss,accuracy,grad_norm_W_Q,", 33) == 0);
	for (const char *s = text; *s != '\0'; s++)
		lines += *s == '\n';
	ck_assert_int_eq(lines, 4);
	free(text);
	qkv_train_fini(&t);
}
END_TEST

/* The sweep's JSON: 7 rows of d_k 4 … 256, per-seed steps (null when not reached),
 * medians, and a verdict; with a baseline, its rows too. */
START_TEST(test_sweep_json)
{
	struct qkv_train_config c;
	struct qkv_train_sweep_point points[QKV_TRAIN_SWEEP_POINTS];
	char *text = NULL;
	size_t size = 0;
	FILE *out;
	json_t *root, *rows;

	small_config(&c);
	c.steps = 20;
	ck_assert_int_eq(qkv_train_sweep(&c, 2, points), 0);
	out = open_memstream(&text, &size);
	ck_assert_int_eq(print_train_sweep(out, &c, 2, points, points, PRINT_JSON), 0);
	fclose(out);
	root = parse(text);
	rows = json_object_get(root, "rows");
	ck_assert_int_eq((int)json_array_size(rows), QKV_TRAIN_SWEEP_POINTS);
	for (int k = 0; k < QKV_TRAIN_SWEEP_POINTS; k++) {
		json_t *row = json_array_get(rows, (size_t)k);
		json_t *unscaled = json_object_get(row, "unscaled");
		json_t *steps = json_object_get(unscaled, "steps_to_90");

		ck_assert_int_eq(json_integer_value(json_object_get(row, "d_k")), 4 << k);
		ck_assert_int_eq((int)json_array_size(steps), 2);
		for (int s = 0; s < 2; s++) {
			json_t *v = json_array_get(steps, (size_t)s);

			if (points[k].unscaled[s] < 0)
				ck_assert(json_is_null(v));
			else
				ck_assert_int_eq(json_integer_value(v), points[k].unscaled[s]);
		}
		ck_assert(json_number_value(json_object_get(unscaled, "median"))
			  == points[k].unscaled_median);
	}
	ck_assert(json_is_string(json_object_get(root, "verdict")));
	ck_assert_int_eq((int)json_array_size(json_object_get(json_object_get(root, "baseline"), "rows")),
			 QKV_TRAIN_SWEEP_POINTS);
	json_decref(root);
	free(text);
}
END_TEST

static Suite *print_train_suite(void)
{
	Suite *s = suite_create("print_train");
	TCase *tc = tcase_create("printer");

	tcase_add_test(tc, test_json_contract);
	tcase_add_test(tc, test_null_and_csv);
	tcase_add_test(tc, test_sweep_json);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_tap(print_train_suite());
}

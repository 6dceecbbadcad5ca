/* load.c — problems from JSON text (docs/DESIGN.md, "File format"), strictly.
 * jansson checks the syntax and gives the structure; a small scanner over the same
 * text then finds the line and column of the key or value an error is about. Every
 * error is one line, "FILE:LINE:COL: what was expected". Never prints, never exits,
 * never trusts a size before checking it against the limits, and never hands back
 * a half-filled problem. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/problem/load.h"
#include "io/problem/load_place.h"
#include "io/problem/quote.h"
#include "qkv/error.h"
#include "qkv/format.h"
#include "qkv/text.h"

/* What one matrix must look like. */
struct matrix_rule {
	const char *key;
	int rows;            /* required rows, or 0 when this matrix fixes them */
	const char *rows_why; /* e.g. "n, the rows of \"Q\"" */
	int cols;            /* required columns, or 0 when row 1 fixes them */
	const char *cols_why; /* e.g. "d_k, as in \"Q\"", or the size's name when cols is 0 */
	/* Inside a head (heads[i]): the head's object and its place; NULL at the top. */
	const json_t *parent;
	struct place base;
	char who[48]; /* the matrix as messages name it: "Q", or head 2 "W_Q" */
};

/* The file's keys besides the inputs, whose keys are the catalogue's names
 * (qkv/grid.h): before them, then after them. */
static const char *const keys_before[] = { "title", "notes", "tokens", "query_tokens" };
static const char *const keys_after[] = { "heads", "scale", "temperature", "mask", "padding", "seed" };
#define KEYS_BEFORE (sizeof keys_before / sizeof keys_before[0])
#define KEY_COUNT (KEYS_BEFORE + QKV_GRID_INPUTS + sizeof keys_after / sizeof keys_after[0])

/* The index'th key a problem file may have, in the order messages list them. */
static const char *load_key(size_t index)
{
	if (index < KEYS_BEFORE)
		return keys_before[index];
	if (index < KEYS_BEFORE + QKV_GRID_INPUTS)
		return qkv_grid_name((enum qkv_grid)(index - KEYS_BEFORE));
	return keys_after[index - KEYS_BEFORE - QKV_GRID_INPUTS];
}


/* Refuses unknown keys, with a hint when only the letter case is wrong. */
static int check_keys(const struct loader *ld)
{
	const char *key;
	json_t *value;
	size_t index = 0;

	json_object_foreach(ld->root, key, value) {
		struct place at = { 1, { index++, 0, 0 }, true };
		const char *hint = NULL;
		char quoted[LOAD_MAX_QUOTE * 4 + 8];
		bool known = false;

		for (size_t i = 0; i < KEY_COUNT; i++) {
			if (strcmp(key, load_key(i)) == 0)
				known = true;
			else if (strcasecmp(key, load_key(i)) == 0)
				hint = load_key(i);
		}
		if (known)
			continue;
		quote_text(quoted, sizeof quoted, key, strlen(key), LOAD_MAX_QUOTE);
		if (hint != NULL)
			return load_fail_at(ld, &at, "unknown key \"%s\" (keys are case-sensitive: did you "
						"mean \"%s\"?)", quoted, hint);
		{
			char expected[256];
			size_t used = 0;

			/* Every key a file may have, cross-attention's included. */
			expected[0] = '\0';
			for (size_t i = 0; i < KEY_COUNT && used < sizeof expected; i++)
				used += (size_t)snprintf(expected + used, sizeof expected - used, "%s%s",
							 i == 0 ? "" : i + 1 == KEY_COUNT ? " or " : ", ", load_key(i));
			return load_fail_at(ld, &at, "unknown key \"%s\"; expected %s", quoted, expected);
		}
	}
	return 0;
}

/* The form whose matrix `key` names (qkv_grid_info's names), or -1. */
static int form_of_key(const char *key)
{
	for (int i = 0; i < QKV_GRID_INPUTS; i++)
		if (strcmp(key, qkv_grid_info[i].name) == 0)
			return (int)qkv_grid_info[i].form;
	return -1;
}

/* How many of the form's matrices are present; *first_missing is set to one that
 * is not. */
static size_t count_present(const json_t *root, enum qkv_form form,
			    const char **first_missing)
{
	size_t present = 0;

	*first_missing = NULL;
	for (int i = 0; i < QKV_GRID_INPUTS; i++) {
		const char *key = qkv_grid_info[i].name;

		/* W_O comes with heads, X_q with a sequence of queries of its own. */
		if (qkv_grid_info[i].form != form || i == QKV_GRID_W_O || i == QKV_GRID_X_Q)
			continue;
		if (json_object_get(root, key) != NULL)
			present++;
		else if (*first_missing == NULL)
			*first_missing = key;
	}
	return present;
}

/* Decides the form: Q, K, V or X, W_Q, W_K, W_V, complete and not mixed; or X,
 * heads and W_O (then returns 1). */
static int read_form(const struct loader *ld, enum qkv_form *form)
{
	const struct place top = { 0, { 0, 0, 0 }, false };
	const char *missing_direct, *missing_projected;
	size_t direct = count_present(ld->root, QKV_FORM_DIRECT, &missing_direct);
	size_t projected = count_present(ld->root, QKV_FORM_PROJECTED, &missing_projected);
	bool heads = json_object_get(ld->root, "heads") != NULL;
	bool w_o = json_object_get(ld->root, "W_O") != NULL;

	if (heads || w_o) {
		const char *key;
		json_t *value;

		json_object_foreach(ld->root, key, value) {
			struct place at = load_place_of(ld, key, 0, 0, 0);

			at.key = true;
			int key_form = form_of_key(key);

			if (key_form == QKV_FORM_DIRECT ||
			    (key_form == QKV_FORM_PROJECTED && strcmp(key, "X") != 0 &&
			     strcmp(key, "X_q") != 0 && strcmp(key, "W_O") != 0))
				return load_fail_at(ld, &at, "\"%s\" cannot be given with \"%s\": a "
							"multi-head problem gives \"X\", \"heads\" "
							"(each with \"W_Q\", \"W_K\", \"W_V\") and "
							"\"W_O\"", key, heads ? "heads" : "W_O");
		}
		if (!heads)
			return load_fail_at(ld, &top, "missing \"heads\": \"W_O\" projects the heads' "
						 "outputs, so a problem with \"W_O\" gives \"heads\"");
		if (json_object_get(ld->root, "X") == NULL || !w_o)
			return load_fail_at(ld, &top, "missing \"%s\": a multi-head problem gives "
						 "\"X\", \"heads\" and \"W_O\"",
				       json_object_get(ld->root, "X") == NULL ? "X" : "W_O");
		*form = QKV_FORM_PROJECTED;
		return 1;
	}
	if (direct > 0 && projected > 0) {
		const char *key, *first = NULL;
		bool first_direct = false;
		json_t *value;

		json_object_foreach(ld->root, key, value) {
			int key_form = form_of_key(key);
			bool is_direct = key_form == QKV_FORM_DIRECT;

			if (key_form < 0)
				continue;
			if (first == NULL) {
				first = key;
				first_direct = is_direct;
			} else if (is_direct != first_direct) {
				struct place at = load_place_of(ld, key, 0, 0, 0);

				at.key = true;
				return load_fail_at(ld, &at, "\"%s\" cannot be given with \"%s\": a problem "
							"has either Q, K, V or X, W_Q, W_K, W_V",
					       key, first);
			}
		}
	}
	if (direct == 0 && projected == 0)
		return load_fail_at(ld, &top, "no matrices: expected \"Q\", \"K\" and \"V\" (or \"X\", "
					 "\"W_Q\", \"W_K\" and \"W_V\")");
	if (direct > 0 && json_object_get(ld->root, "X_q") != NULL) {
		struct place at = load_place_of(ld, "X_q", 0, 0, 0);

		at.key = true;
		return load_fail_at(ld, &at, "\"X_q\" cannot be given with \"Q\": in the direct form "
					"\"Q\" gives the queries");
	}
	if (direct > 0 && missing_direct != NULL)
		return load_fail_at(ld, &top, "missing \"%s\": a problem gives \"Q\", \"K\" and \"V\" "
					 "(or \"X\", \"W_Q\", \"W_K\" and \"W_V\")", missing_direct);
	if (projected > 0 && missing_projected != NULL)
		return load_fail_at(ld, &top, "missing \"%s\": the projected form needs \"X\", \"W_Q\", "
					 "\"W_K\" and \"W_V\"", missing_projected);
	*form = direct > 0 ? QKV_FORM_DIRECT : QKV_FORM_PROJECTED;
	return 0;
}

/* The place of the rule's matrix (depth 0), a row (1) or a cell (2). */
static struct place rule_place(const struct loader *ld, const struct matrix_rule *rule,
			       int depth, size_t row, size_t col)
{
	struct place at;
	const char *name;
	json_t *value;
	size_t index = 0;

	if (rule->parent == NULL)
		return load_place_of(ld, rule->key, depth, row, col);
	at = rule->base;
	json_object_foreach((json_t *)rule->parent, name, value) {
		if (strcmp(name, rule->key) == 0)
			break;
		index++;
	}
	at.step[at.depth] = index;
	at.step[at.depth + 1] = row;
	at.step[at.depth + 2] = col;
	at.depth += 1 + depth;
	at.key = false;
	return at;
}

/* The rule's name for messages: "\"Q\"" at the top, or head 2 "W_Q". */
static const char *who(const struct matrix_rule *rule)
{
	return rule->who;
}

/* Checks one row's width against the rule (or row 1); returns the width or -1. */
static int matrix_row_width(const struct loader *ld, const struct matrix_rule *rule,
			    const json_t *row, size_t r, int expected)
{
	struct place at = rule_place(ld, rule, 1, r, 0);
	size_t width;

	if (!json_is_array(row))
		return load_fail_at(ld, &at, "%s row %zu must be an array of numbers, found %s",
			       who(rule), r + 1, load_type_name(row));
	width = json_array_size(row);
	if (width == 0)
		return load_fail_at(ld, &at, "%s row %zu is empty; expected at least one number",
			       who(rule), r + 1);
	if (expected > 0 && width != (size_t)expected)
		return load_fail_at(ld, &at, "%s row %zu has %zu number%s, expected %d (%s%s)",
			       who(rule), r + 1, width, load_plural(width), expected, rule->cols_why,
			       rule->cols > 0 ? "" : ", as in row 1");
	if (width > QKV_MAX_DIM)
		return load_fail_at(ld, &at, "%s row %zu has %zu numbers, more than the limit of "
					"%d for %s", who(rule), r + 1, width, QKV_MAX_DIM,
			       rule->cols_why);
	return (int)width;
}

/* Reads a matrix of finite numbers within ±QKV_MAX_VALUE, shaped as the rule says. */
static int read_matrix(const struct loader *ld, struct matrix_rule *rule,
		       struct qkv_matrix *m)
{
	const json_t *value = json_object_get(rule->parent != NULL ? rule->parent : ld->root,
					      rule->key);
	struct place at = rule_place(ld, rule, 0, 0, 0);
	size_t rows;
	int cols;
	char written[40];

	if (rule->who[0] == '\0')
		snprintf(rule->who, sizeof rule->who, "\"%s\"", rule->key);
	if (!json_is_array(value))
		return load_fail_at(ld, &at, "%s must be a matrix (an array of rows of numbers), "
					"found %s", who(rule), load_type_name(value));
	rows = json_array_size(value);
	if (rows == 0)
		return load_fail_at(ld, &at, "%s is empty; expected at least one row", who(rule));
	if (rule->rows > 0 && rows != (size_t)rule->rows) {
		if (rows > (size_t)rule->rows)
			at = rule_place(ld, rule, 1, (size_t)rule->rows, 0);
		return load_fail_at(ld, &at, "%s has %zu row%s, expected %d (%s)", who(rule), rows,
			       load_plural(rows), rule->rows, rule->rows_why);
	}
	if (rule->rows == 0 && rows > QKV_MAX_TOKENS) {
		at = rule_place(ld, rule, 1, QKV_MAX_TOKENS, 0);
		return load_fail_at(ld, &at, "%s has %zu rows, more than the limit of %d tokens",
			       who(rule), rows, QKV_MAX_TOKENS);
	}
	cols = matrix_row_width(ld, rule, json_array_get(value, 0), 0, rule->cols);
	if (cols < 0)
		return -1;
	for (size_t r = 1; r < rows; r++)
		if (matrix_row_width(ld, rule, json_array_get(value, r), r, cols) < 0)
			return -1;
	if (qkv_matrix_zero(m, (int)rows, cols) != 0)
		return load_fail_file(ld, "out of memory for %s (%zu × %d)", who(rule), rows, cols);
	for (size_t r = 0; r < rows; r++) {
		const json_t *row = json_array_get(value, r);

		for (int c = 0; c < cols; c++) {
			const json_t *cell = json_array_get(row, (size_t)c);
			double number = json_number_value(cell);

			if (json_is_number(cell) && isfinite(number) && fabs(number) <= QKV_MAX_VALUE) {
				qkv_matrix_set(m, (int)r, c, number);
				continue;
			}
			at = rule_place(ld, rule, 2, r, (size_t)c);
			if (!json_is_number(cell))
				return load_fail_at(ld, &at, "%s row %zu, column %d must be a number, "
							"found %s", who(rule), r + 1, c + 1,
					       load_type_name(cell));
			qkv_format_exact(written, sizeof written, number);
			return load_fail_at(ld, &at, "%s row %zu, column %d is %s, outside the range "
						"±" LOAD_LIMIT(QKV_MAX_VALUE), who(rule), r + 1, c + 1,
				       written);
		}
	}
	return 0;
}

/* True when the file gives a sequence of queries of its own (cross-attention):
 * "query_tokens" or "X_q". A direct problem whose "K" has other rows than its
 * "Q" is one too, which read_matrices finds. */
static bool declares_queries(const struct loader *ld)
{
	return json_object_get(ld->root, "query_tokens") != NULL ||
	       json_object_get(ld->root, "X_q") != NULL;
}

/* Reads the form's matrices in qkv_grid_info's order, by its shape rules: the
 * first matrix with a size fixes it (Q or X_q fixes m; K or X fixes n; Q or W_Q
 * d_k; V or W_V d_v; X d_model), and the later ones must agree, saying which
 * matrix set it. In self-attention the queries are the tokens: m = n. */
static int read_matrices(const struct loader *ld, struct qkv_problem *p)
{
	static const char *const dim_names[] = {
		[QKV_DIM_QUERIES] = "m", [QKV_DIM_KEYS] = "n", [QKV_DIM_MODEL] = "d_model",
		[QKV_DIM_K] = "d_k", [QKV_DIM_V] = "d_v", [QKV_DIM_HEADS_V] = "h·d_v",
	};
	int size[6] = { 0 };
	char why[2][6][64]; /* [rows or columns of the setter][dimension] */
	bool cross = declares_queries(ld);

	if (cross && p->form == QKV_FORM_PROJECTED && json_object_get(ld->root, "X_q") == NULL) {
		struct place at = load_place_of(ld, "query_tokens", 0, 0, 0);

		at.key = true;
		return load_fail_at(ld, &at, "\"query_tokens\" labels the rows of \"X_q\", which is "
					"missing: a projected problem with queries of its own gives "
					"\"X_q\" (m × d_model)");
	}
	for (int i = 0; i < QKV_GRID_INPUTS; i++) {
		const struct qkv_grid_info *info = &qkv_grid_info[i];
		struct qkv_matrix *m = i != QKV_GRID_X_Q ? qkv_problem_input(p, (enum qkv_grid)i)
			: cross && p->form == QKV_FORM_PROJECTED ? &p->x_q : NULL;
		struct matrix_rule rule = {
			.key = info->name, .rows = size[info->rows], .cols = size[info->cols],
			.cols_why = dim_names[info->cols],
		};

		if (m == NULL) /* not in this problem's form */
			continue;
		if (rule.rows > 0)
			rule.rows_why = why[0][info->rows];
		if (rule.cols > 0)
			rule.cols_why = why[1][info->cols];
		/* A K of other rows than Q beside a V of Q's rows is self-attention's K
		 * gone wrong, not cross-attention: it is K that is refused. */
		if (i == QKV_GRID_K && !cross) {
			const json_t *v = json_object_get(ld->root, "V");

			if (json_is_array(v) && json_array_size(v) == (size_t)size[QKV_DIM_QUERIES]) {
				rule.rows = size[QKV_DIM_QUERIES];
				rule.rows_why = "n, the rows of \"Q\"";
			}
		}
		if (read_matrix(ld, &rule, m) != 0)
			return -1;
		/* The sizes this matrix fixes, and how a later one is told about them. A
		 * direct problem's K of other rows than its Q makes it cross-attention;
		 * of the same rows, self-attention's n is the rows of Q, as it always was. */
		if (size[info->rows] == 0) {
			const char *setter = info->name, *whose = ",";

			size[info->rows] = m->rows;
			if (i == QKV_GRID_K)
				cross |= m->rows != size[QKV_DIM_QUERIES];
			if (i == QKV_GRID_K && !cross)
				setter = "Q";
			else if (cross && info->rows == QKV_DIM_QUERIES)
				whose = ", the queries:";
			else if (cross && info->rows == QKV_DIM_KEYS)
				whose = ", the keys:";
			for (int w = 0; w < 2; w++)
				snprintf(why[w][info->rows], sizeof why[w][info->rows], "%s%s the rows of \"%s\"",
					 dim_names[info->rows], whose, setter);
		}
		if (size[info->cols] == 0) {
			size[info->cols] = m->cols;
			snprintf(why[0][info->cols], sizeof why[0][info->cols],
				 "%s, the columns of \"%s\"", dim_names[info->cols], info->name);
			snprintf(why[1][info->cols], sizeof why[1][info->cols], "%s, as in \"%s\"",
				 dim_names[info->cols], info->name);
		}
	}
	p->n = size[QKV_DIM_KEYS];
	p->m = size[QKV_DIM_QUERIES] > 0 ? size[QKV_DIM_QUERIES] : p->n;
	return cross ? 1 : 0;
}

/* Reads X, every head's W_Q, W_K, W_V and W_O: X fixes n and d_model, head 1's
 * W_Q fixes d_k and its W_V d_v for every head; W_O is (h·d_v) × d_model. */
static int read_heads(const struct loader *ld, struct qkv_problem *p)
{
	static const char *const head_keys[] = { "W_Q", "W_K", "W_V" };
	const char *rows_why = "d_model, the columns of \"X\"";
	const json_t *heads = json_object_get(ld->root, "heads");
	struct place at = load_place_of(ld, "heads", 0, 0, 0);
	struct matrix_rule x = { .key = "X", .cols_why = "d_model" };
	struct matrix_rule w_o = { .key = "W_O", .cols_why = "d_model, the columns of \"X\"" };
	char w_o_why[96];
	size_t h;

	if (read_matrix(ld, &x, &p->x) != 0)
		return -1;
	if (json_object_get(ld->root, "X_q") != NULL) {
		struct matrix_rule x_q = { .key = "X_q", .cols = p->x.cols, .cols_why = "d_model, as in \"X\"" };

		if (read_matrix(ld, &x_q, &p->x_q) != 0)
			return -1;
	} else if (json_object_get(ld->root, "query_tokens") != NULL) {
		struct place q = load_place_of(ld, "query_tokens", 0, 0, 0);

		q.key = true;
		return load_fail_at(ld, &q, "\"query_tokens\" labels the rows of \"X_q\", which is "
					"missing: a projected problem with queries of its own gives "
					"\"X_q\" (m × d_model)");
	}
	if (!json_is_array(heads))
		return load_fail_at(ld, &at, "\"heads\" must be an array of heads (objects with "
					"\"W_Q\", \"W_K\" and \"W_V\"), found %s", load_type_name(heads));
	h = json_array_size(heads);
	if (h == 0)
		return load_fail_at(ld, &at, "\"heads\" is empty; expected at least one head");
	if (h > QKV_MAX_HEADS) {
		at = load_place_of(ld, "heads", 1, QKV_MAX_HEADS, 0);
		return load_fail_at(ld, &at, "\"heads\" has %zu heads, more than the limit of %d", h,
			       QKV_MAX_HEADS);
	}
	if (qkv_problem_make_heads(p, (int)h) != 0)
		return load_fail_file(ld, "out of memory for %zu heads", h);
	for (size_t i = 0; i < h; i++) {
		const json_t *head = json_array_get(heads, i);
		struct qkv_head *w = &p->heads[i];
		struct matrix_rule rule[3];
		struct qkv_matrix *out[3] = { &w->w_q, &w->w_k, &w->w_v };
		const char *key, *missing;
		json_t *value;
		size_t index = 0;

		at = load_place_of(ld, "heads", 1, i, 0);
		if (!json_is_object(head))
			return load_fail_at(ld, &at, "head %zu must be an object with \"W_Q\", \"W_K\" "
						"and \"W_V\", found %s", i + 1, load_type_name(head));
		json_object_foreach((json_t *)head, key, value) {
			struct place k = at;

			k.step[k.depth++] = index++;
			k.key = true;
			if (strcmp(key, "W_Q") != 0 && strcmp(key, "W_K") != 0 && strcmp(key, "W_V") != 0) {
				char quoted[LOAD_MAX_QUOTE * 4 + 8];

				quote_text(quoted, sizeof quoted, key, strlen(key), LOAD_MAX_QUOTE);
				return load_fail_at(ld, &k, "unknown key \"%s\" in head %zu; a head gives "
							"\"W_Q\", \"W_K\" and \"W_V\"", quoted, i + 1);
			}
		}
		missing = NULL;
		for (int m = 0; m < 3 && missing == NULL; m++)
			if (json_object_get(head, head_keys[m]) == NULL)
				missing = head_keys[m];
		if (missing != NULL)
			return load_fail_at(ld, &at, "head %zu is missing \"%s\"; a head gives \"W_Q\", "
						"\"W_K\" and \"W_V\"", i + 1, missing);
		for (int m = 0; m < 3; m++) {
			memset(&rule[m], 0, sizeof rule[m]);
			rule[m].key = head_keys[m];
			rule[m].rows = p->x.cols;
			rule[m].rows_why = rows_why;
			rule[m].parent = head;
			rule[m].base = at;
			snprintf(rule[m].who, sizeof rule[m].who, "head %zu \"%s\"", i + 1,
				 head_keys[m]);
		}
		rule[0].cols = i == 0 ? 0 : p->heads[0].w_q.cols;
		rule[0].cols_why = i == 0 ? "d_k" : "d_k, as in head 1 \"W_Q\"";
		rule[2].cols = i == 0 ? 0 : p->heads[0].w_v.cols;
		rule[2].cols_why = i == 0 ? "d_v" : "d_v, as in head 1 \"W_V\"";
		if (read_matrix(ld, &rule[0], out[0]) != 0)
			return -1;
		rule[1].cols = w->w_q.cols;
		rule[1].cols_why = "d_k, as in its \"W_Q\"";
		if (read_matrix(ld, &rule[1], out[1]) != 0 || read_matrix(ld, &rule[2], out[2]) != 0)
			return -1;
	}
	snprintf(w_o_why, sizeof w_o_why, "h·d_v = %zu·%d, the heads' outputs side by side", h,
		 p->heads[0].w_v.cols);
	w_o.rows = (int)h * p->heads[0].w_v.cols;
	w_o.rows_why = w_o_why;
	w_o.cols = p->x.cols;
	if (read_matrix(ld, &w_o, &p->w_o) != 0)
		return -1;
	p->n = p->x.rows;
	p->m = p->x_q.rows > 0 ? p->x_q.rows : p->n;
	return p->x_q.rows > 0 ? 1 : 0;
}

/* The key whose rows fix n, for messages (p has its query labels once it is
 * cross-attention). */
static const char *n_source(const struct qkv_problem *p)
{
	if (p->query_tokens != NULL)
		return p->form == QKV_FORM_DIRECT ? "n, the keys: the rows of \"K\""
						  : "n, the keys: the rows of \"X\"";
	return p->form == QKV_FORM_DIRECT ? "n, the rows of \"Q\"" : "n, the rows of \"X\"";
}

/* The key whose rows fix m in cross-attention, for messages. */
static const char *m_source(const struct qkv_problem *p)
{
	return p->form == QKV_FORM_DIRECT ? "m, the queries: the rows of \"Q\""
					  : "m, the queries: the rows of \"X_q\"";
}

/* Refuses a string holding a control character (C0 with tab and newline, DEL, C1)
 * or a bidi override: on a terminal they move the cursor, clear the screen, set
 * the window title or turn the text around. what names the string, kind says
 * what it must be ("a label"). Returns 0 or -1 with the message. */
static int refuse_controls(const struct loader *ld, const struct place *at, const char *what,
			   const char *kind, const json_t *string)
{
	const char *text = json_string_value(string);
	size_t offset, characters = 1;
	unsigned int point;

	if (!qkv_text_find_control(text, json_string_length(string), &offset, &point))
		return 0;
	for (size_t i = 0; i < offset; i++)
		characters += ((unsigned char)text[i] & 0xc0) != 0x80;
	return load_fail_at(ld, at, "%s contains %s (U+%04X) at character %zu; %s is one line of plain "
			       "text", what, point >= 0x2000 ? "a bidi or line control" : "a control character",
		       point, characters, kind);
}

/* Reads the labels under key (1..QKV_MAX_LABEL bytes, one line each) into
 * *labels, count of them (why says what fixes count), or makes <prefix>1… when the
 * file has none; set_label stores label i. */
static int read_labels(const struct loader *ld, struct qkv_problem *p, const char *key, int count,
		       const char *why, char prefix, char ***labels,
		       int (*set_label)(struct qkv_problem *, int, const char *))
{
	const json_t *value = json_object_get(ld->root, key);
	struct place at = load_place_of(ld, key, 0, 0, 0);
	char label[16], what[48];

	*labels = calloc((size_t)count, sizeof **labels);
	if (*labels == NULL)
		return load_fail_file(ld, "out of memory for %d tokens", count);
	if (value == NULL) {
		for (int i = 0; i < count; i++) {
			snprintf(label, sizeof label, "%c%d", prefix, i + 1);
			(*labels)[i] = strdup(label);
			if ((*labels)[i] == NULL)
				return load_fail_file(ld, "out of memory for the token labels");
		}
		return 0;
	}
	if (!json_is_array(value))
		return load_fail_at(ld, &at, "\"%s\" must be an array of %d strings, found %s", key, count,
			       load_type_name(value));
	if (json_array_size(value) != (size_t)count)
		return load_fail_at(ld, &at, "\"%s\" has %zu label%s, expected %d (%s)", key,
			       json_array_size(value), load_plural(json_array_size(value)), count, why);
	for (int i = 0; i < count; i++) {
		const json_t *item = json_array_get(value, (size_t)i);
		size_t length;

		at = load_place_of(ld, key, 1, (size_t)i, 0);
		if (!json_is_string(item))
			return load_fail_at(ld, &at, "\"%s\" item %d must be a string, found %s", key, i + 1,
				       load_type_name(item));
		length = json_string_length(item);
		if (length == 0)
			return load_fail_at(ld, &at, "\"%s\" item %d is empty; a label has 1 to %d "
						"bytes", key, i + 1, QKV_MAX_LABEL);
		if (length > QKV_MAX_LABEL)
			return load_fail_at(ld, &at, "\"%s\" item %d is %zu bytes long; a label has 1 "
						"to %d bytes", key, i + 1, length, QKV_MAX_LABEL);
		snprintf(what, sizeof what, "\"%s\" item %d", key, i + 1);
		if (refuse_controls(ld, &at, what, "a label", item) != 0)
			return -1;
		/* The core's rule for a label, after the sentences above about breaking it. */
		if (set_label(p, i, json_string_value(item)) != 0)
			return load_fail_file(ld, "out of memory for the token labels");
	}
	return 0;
}

/* Reads the token labels, or makes t1..tn; in cross-attention also the queries'
 * labels, or q1..qm. */
static int read_tokens(const struct loader *ld, struct qkv_problem *p, bool cross)
{
	if (cross && read_labels(ld, p, "query_tokens", p->m, m_source(p), 'q', &p->query_tokens,
				 qkv_problem_set_query_label) != 0)
		return -1;
	return read_labels(ld, p, "tokens", p->n, n_source(p), 't', &p->tokens, qkv_problem_set_label);
}

/* Reads "title" or "notes": one line of text. */
static int read_text(const struct loader *ld, const char *key, char **out)
{
	const json_t *value = json_object_get(ld->root, key);
	struct place at = load_place_of(ld, key, 0, 0, 0);
	char what[16];

	if (value == NULL)
		return 0;
	if (!json_is_string(value))
		return load_fail_at(ld, &at, "\"%s\" must be a string, found %s", key, load_type_name(value));
	snprintf(what, sizeof what, "\"%s\"", key);
	if (refuse_controls(ld, &at, what, strcmp(key, "title") == 0 ? "a title" : "a note", value) != 0)
		return -1;
	*out = strdup(json_string_value(value));
	if (*out == NULL)
		return load_fail_file(ld, "out of memory for \"%s\"", key);
	return 0;
}

/* Reads a positive divisor ("scale" number or "temperature") within
 * QKV_MIN_TEMPERATURE..QKV_MAX_TEMPERATURE, so the scaled scores stay finite. */
static int read_divisor(const struct loader *ld, const char *key, const json_t *value,
			const char *expected, double *out)
{
	struct place at = load_place_of(ld, key, 0, 0, 0);
	double number;
	char written[40];

	if (!json_is_number(value))
		return load_fail_at(ld, &at, "\"%s\" must be %s, found %s", key, expected,
			       load_type_name(value));
	number = json_number_value(value);
	qkv_format_exact(written, sizeof written, number);
	if (!(number > 0))
		return load_fail_at(ld, &at, "\"%s\" must be %s, found %s", key, expected, written);
	if (number < QKV_MIN_TEMPERATURE || number > QKV_MAX_TEMPERATURE)
		return load_fail_at(ld, &at, "\"%s\" is %s, outside the range "
					LOAD_LIMIT(QKV_MIN_TEMPERATURE) " to "
					LOAD_LIMIT(QKV_MAX_TEMPERATURE), key, written);
	*out = number;
	return 0;
}

/* Reads "scale" ("sqrt_dk", "none" or a positive divisor) and "temperature". */
static int read_scaling(const struct loader *ld, struct qkv_problem *p)
{
	const char *scale_expected = "\"sqrt_dk\", \"none\" or a positive number (the divisor)";
	const json_t *scale = json_object_get(ld->root, "scale");
	const json_t *temperature = json_object_get(ld->root, "temperature");

	if (json_is_string(scale)) {
		const char *word = json_string_value(scale);
		struct place at = load_place_of(ld, "scale", 0, 0, 0);
		char quoted[LOAD_MAX_QUOTE * 4 + 8];

		if (strcmp(word, "sqrt_dk") == 0) {
			p->scale = QKV_SCALE_SQRT_DK;
		} else if (strcmp(word, "none") == 0) {
			p->scale = QKV_SCALE_NONE;
		} else {
			quote_text(quoted, sizeof quoted, word, json_string_length(scale),
				   LOAD_MAX_QUOTE);
			return load_fail_at(ld, &at, "\"scale\" must be %s, found \"%s\"", scale_expected,
				       quoted);
		}
	} else if (scale != NULL) {
		if (read_divisor(ld, "scale", scale, scale_expected, &p->scale_value) != 0)
			return -1;
		p->scale = QKV_SCALE_CUSTOM;
	}
	if (temperature != NULL &&
	    read_divisor(ld, "temperature", temperature, "a positive number (τ > 0)",
			 &p->temperature) != 0)
		return -1;
	return 0;
}

/* Reads a custom mask: m rows (a query each) of n booleans (a key each), true =
 * the key is hidden; m = n in self-attention. */
static int read_mask_matrix(const struct loader *ld, struct qkv_problem *p, const json_t *value)
{
	struct place at = load_place_of(ld, "mask", 0, 0, 0);
	size_t n = (size_t)p->n, m = (size_t)p->m;
	bool cross = qkv_problem_is_cross(p);

	if (json_array_size(value) != m) {
		if (json_array_size(value) > m)
			at = load_place_of(ld, "mask", 1, m, 0);
		return load_fail_at(ld, &at, "\"mask\" has %zu row%s, expected %d (%s)",
			       json_array_size(value), load_plural(json_array_size(value)), p->m,
			       cross ? m_source(p) : n_source(p));
	}
	p->mask_bits = calloc(m * n, 1);
	if (p->mask_bits == NULL)
		return load_fail_file(ld, "out of memory for the mask");
	for (size_t r = 0; r < m; r++) {
		const json_t *row = json_array_get(value, r);

		at = load_place_of(ld, "mask", 1, r, 0);
		if (!json_is_array(row))
			return load_fail_at(ld, &at, "\"mask\" row %zu must be an array of booleans, "
						"found %s", r + 1, load_type_name(row));
		if (json_array_size(row) != n)
			return load_fail_at(ld, &at, "\"mask\" row %zu has %zu value%s, expected %d (%s)",
				       r + 1, json_array_size(row), load_plural(json_array_size(row)),
				       p->n, cross ? "n, the keys" : "n");
		for (size_t c = 0; c < n; c++) {
			const json_t *cell = json_array_get(row, c);

			if (!json_is_boolean(cell)) {
				at = load_place_of(ld, "mask", 2, r, c);
				return load_fail_at(ld, &at, "\"mask\" row %zu, column %zu must be true "
							"(hidden) or false (seen), found %s",
					       r + 1, c + 1, load_type_name(cell));
			}
			p->mask_bits[r * n + c] = json_is_true(cell) ? 1 : 0;
		}
	}
	p->mask = QKV_MASK_CUSTOM;
	return 0;
}

/* Reads "mask": "none", "causal" or an m×n array of booleans (n×n in
 * self-attention); "causal" only with as many queries as keys. */
static int read_mask(const struct loader *ld, struct qkv_problem *p)
{
	const char *expected = qkv_problem_is_cross(p) ? "\"none\", \"causal\" or an m×n array of booleans"
						       : "\"none\", \"causal\" or an n×n array of booleans";
	const json_t *value = json_object_get(ld->root, "mask");
	struct place at = load_place_of(ld, "mask", 0, 0, 0);
	char quoted[LOAD_MAX_QUOTE * 4 + 8];

	if (value == NULL)
		return 0;
	if (json_is_array(value))
		return read_mask_matrix(ld, p, value);
	if (!json_is_string(value))
		return load_fail_at(ld, &at, "\"mask\" must be %s, found %s", expected, load_type_name(value));
	/* A custom mask is written as its matrix, never by name. */
	if (qkv_mask_parse(json_string_value(value), &p->mask) == 0 && p->mask == QKV_MASK_CAUSAL &&
	    p->m != p->n)
		return load_fail_at(ld, &at, "\"mask\" is \"causal\", which needs as many queries as keys "
					"(query i sees keys 1 to i), but this problem has %d quer%s and %d "
					"key%s; hide keys with an m×n array of booleans instead", p->m,
			       p->m == 1 ? "y" : "ies", p->n, p->n == 1 ? "" : "s");
	if (qkv_mask_parse(json_string_value(value), &p->mask) == 0 && p->mask != QKV_MASK_CUSTOM)
		return 0;
	p->mask = QKV_MASK_NONE;
	quote_text(quoted, sizeof quoted, json_string_value(value), json_string_length(value),
		   LOAD_MAX_QUOTE);
	return load_fail_at(ld, &at, "\"mask\" must be %s, found \"%s\"", expected, quoted);
}

/* Reads "padding": distinct 0-based token indexes. */
static int read_padding(const struct loader *ld, struct qkv_problem *p)
{
	const json_t *value = json_object_get(ld->root, "padding");
	struct place at = load_place_of(ld, "padding", 0, 0, 0);

	if (value == NULL)
		return 0;
	if (!json_is_array(value))
		return load_fail_at(ld, &at, "\"padding\" must be an array of token indexes (0 to %d), "
					"found %s", p->n - 1, load_type_name(value));
	p->padding = calloc((size_t)p->n, 1);
	if (p->padding == NULL)
		return load_fail_file(ld, "out of memory for the padding");
	for (size_t i = 0; i < json_array_size(value); i++) {
		const json_t *item = json_array_get(value, i);
		json_int_t index;

		at = load_place_of(ld, "padding", 1, i, 0);
		if (!json_is_integer(item))
			return load_fail_at(ld, &at, "\"padding\" item %zu must be a token index (an "
						"integer from 0 to %d), found %s", i + 1, p->n - 1,
				       load_type_name(item));
		index = json_integer_value(item);
		if (index < 0 || index >= p->n)
			return load_fail_at(ld, &at, "\"padding\" item %zu is %lld, expected a token index "
						"from 0 to %d%s", i + 1, (long long)index, p->n - 1,
				       qkv_problem_is_cross(p) ? " (padding hides keys, not queries)" : "");
		if (p->padding[index])
			return load_fail_at(ld, &at, "\"padding\" item %zu repeats token %lld", i + 1,
				       (long long)index);
		p->padding[index] = 1;
	}
	return 0;
}

/* Reads "seed": a whole number from 0 to QKV_MAX_SEED (2^53 − 1). */
static int read_seed(const struct loader *ld, struct qkv_problem *p)
{
	const json_t *value = json_object_get(ld->root, "seed");
	struct place at = load_place_of(ld, "seed", 0, 0, 0);
	const char *expected = "a whole number from 0 to 9007199254740991 (2^53 - 1)";

	if (value == NULL)
		return 0;
	if (json_is_integer(value) && json_integer_value(value) >= 0 &&
	    (uint64_t)json_integer_value(value) <= QKV_MAX_SEED) {
		p->seed = (uint64_t)json_integer_value(value);
	} else if (json_is_string(value)) {
		char quoted[LOAD_MAX_QUOTE * 4 + 8];

		quote_text(quoted, sizeof quoted, json_string_value(value), json_string_length(value),
			   LOAD_MAX_QUOTE);
		return load_fail_at(ld, &at, "\"seed\" must be %s, found \"%s\"", expected, quoted);
	} else if (json_is_integer(value)) {
		return load_fail_at(ld, &at, "\"seed\" must be %s, found %lld", expected,
			       (long long)json_integer_value(value));
	} else {
		return load_fail_at(ld, &at, "\"seed\" must be %s, found %s", expected,
			       load_type_name(value));
	}
	p->seeded = true;
	return 0;
}

/* Builds p from the parsed document, checking everything in a fixed order. */
static int read_problem(const struct loader *ld, struct qkv_problem *p)
{
	const struct place top = { 0, { 0, 0, 0 }, false };
	int code;

	if (!json_is_object(ld->root))
		return load_fail_at(ld, &top, "expected a JSON object { ... } at the top level, found %s",
			       load_type_name(ld->root));
	if (check_keys(ld) != 0)
		return -1;
	code = read_form(ld, &p->form);
	if (code < 0)
		return -1;
	code = code == 1 ? read_heads(ld, p) : read_matrices(ld, p);
	if (code < 0)
		return -1;
	if (read_tokens(ld, p, code == 1) != 0 || read_text(ld, "title", &p->title) != 0 ||
	    read_text(ld, "notes", &p->notes) != 0 || read_scaling(ld, p) != 0 ||
	    read_mask(ld, p) != 0 || read_padding(ld, p) != 0 || read_seed(ld, p) != 0)
		return -1;
	code = qkv_problem_check(p);
	if (code != 0)
		return load_fail_file(ld, "the problem does not hold together (%s)",
				 qkv_error_string(code));
	return 0;
}

int load_string(const char *text, size_t length, const char *name, struct qkv_problem *p,
		char *err, size_t err_size)
{
	struct loader ld = { text, length, name, err, err_size, NULL };
	json_error_t error;
	int result;

	qkv_problem_fini(p);
	qkv_problem_init(p);
	if (err_size > 0)
		err[0] = '\0';
	if (length >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
		/* A byte order mark, as some Windows editors write: not part of the JSON. */
		ld.text += 3;
		ld.length -= 3;
	}
	if (length > (size_t)LOAD_MAX_BYTES)
		return load_fail_file(&ld, "the text is larger than the limit of %ld MiB for a problem",
				 LOAD_MAX_BYTES / (1024 * 1024));
	if (load_check_encoding(&ld) != 0)
		return -1;
	if (load_is_blank(&ld))
		return load_fail_offset(&ld, 0, "the file is empty; expected a JSON object { ... }");
	ld.root = json_loadb(ld.text, ld.length, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &error);
	if (ld.root == NULL)
		return load_syntax_error(&ld, &error);
	result = read_problem(&ld, p);
	json_decref(ld.root);
	if (result != 0) {
		qkv_problem_fini(p);
		qkv_problem_init(p);
	}
	return result;
}

/* Reads a whole file of at most LOAD_MAX_BYTES into a malloc'd buffer; `expected`
 * is its size when known (a regular file: one buffer, no growing), else 0. */
static int read_all(const struct loader *ld, int fd, size_t expected, char **text, size_t *length)
{
	size_t size = 0, capacity = expected > 0 ? expected + 1 : 65536;
	char *buffer = malloc(capacity);

	if (buffer == NULL)
		return load_fail_file(ld, "cannot read: out of memory");
	for (;;) {
		ssize_t got;

		if (size > (size_t)LOAD_MAX_BYTES) {
			/* One byte past the limit is enough to know (a pipe has no size). */
			free(buffer);
			return load_fail_file(ld, "the file is larger than the limit of %ld MiB "
					     "for a problem", LOAD_MAX_BYTES / (1024 * 1024));
		}
		if (size == capacity) {
			size_t grown = capacity * 2 > (size_t)LOAD_MAX_BYTES + 1 ? (size_t)LOAD_MAX_BYTES + 1
										  : capacity * 2;
			char *bigger = realloc(buffer, grown);

			if (bigger == NULL) {
				free(buffer);
				return load_fail_file(ld, "cannot read: out of memory");
			}
			buffer = bigger;
			capacity = grown;
		}
		got = read(fd, buffer + size, capacity - size);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int saved = errno;

			free(buffer);
			return load_fail_file(ld, "cannot read: %s", strerror(saved));
		}
		if (got == 0)
			break;
		size += (size_t)got;
	}
	*text = buffer;
	*length = size;
	return 0;
}

int load_file(const char *path, struct qkv_problem *p, char *err, size_t err_size)
{
	struct loader ld = { "", 0, path, err, err_size, NULL };
	struct stat st;
	char *text = NULL;
	size_t length = 0;
	int fd, result;

	qkv_problem_fini(p);
	qkv_problem_init(p);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return load_fail_file(&ld, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) != 0) {
		int saved = errno;

		close(fd);
		return load_fail_file(&ld, "cannot open: %s", strerror(saved));
	}
	if (S_ISDIR(st.st_mode)) {
		int saved = EISDIR;

		close(fd);
		return load_fail_file(&ld, "cannot open: %s", strerror(saved));
	}
	if (S_ISREG(st.st_mode) && st.st_size > LOAD_MAX_BYTES) {
		close(fd);
		return load_fail_file(&ld, "the file is larger than the limit of %ld MiB for a problem",
				 LOAD_MAX_BYTES / (1024 * 1024));
	}
	result = read_all(&ld, fd, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0, &text, &length);
	close(fd);
	if (result != 0)
		return -1;
	result = load_string(text, length, path, p, err, err_size);
	free(text);
	return result;
}

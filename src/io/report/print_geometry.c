/* print_geometry.c — `--print --stage geometry`: every query and key as a point in
 * the plane of qkv/geometry.h (the rows themselves for d_k ≤ 2, the uncentred
 * principal plane past that), written as a table (text), as the object of
 * docs/DESIGN.md's "JSON contracts" (JSON), or drawn (a figure format,
 * figure_geometry.c); each with the selected query's dot product with the
 * selected key in words (--cell I,J: query I, key J). Numbers come from the
 * trace; nothing is computed here but the plane. */
#include <stdio.h>
#include <string.h>

#include "io/problem/json_write.h"
#include "io/report/print_model.h"
#include "qkv/format.h"
#include "qkv/text.h"

/* The table: role, token, x, y, length; then the words. */
int print_geometry_text(const struct geometry_report *r)
{
	const struct qkv_geometry *g = r->g;
	int token_w = 5, number_w = 1;
	char x[NUMBER_SIZE], y[NUMBER_SIZE], length[NUMBER_SIZE];

	for (int i = 0; i < r->p->n; i++)
		if (qkv_text_columns(r->p->tokens[i]) > token_w)
			token_w = qkv_text_columns(r->p->tokens[i]);
	for (int i = 0; qkv_problem_is_cross(r->p) && i < r->p->m; i++)
		if (qkv_text_columns(r->p->query_tokens[i]) > token_w)
			token_w = qkv_text_columns(r->p->query_tokens[i]);
	for (int i = 0; i < g->queries + g->keys; i++) {
		const struct qkv_matrix *m = i < g->queries ? &r->t->q : &r->t->k;
		double values[3] = { g->x[i], g->y[i], qkv_geometry_norm(m, i < g->queries ? i : i - g->queries) };

		for (int v = 0; v < 3; v++) {
			int w = qkv_format_number(x, sizeof x, values[v], r->decimals);
			if (w > number_w)
				number_w = w;
		}
	}
	fprintf(r->out, "Queries and keys as arrows from the origin: q · k = |q| |k| cos θ (d_k %d)\n", g->d_k);
	fprintf(r->out, "%s\n", r->plane);
	if (g->plane == QKV_PLANE_PCA)
		fprintf(r->out, "x and y: the coordinates on the first and second principal axes (PC1, PC2)\n");
	fputc('\n', r->out);
	fprintf(r->out, "role   %-*s  %*s  %*s  %*s\n", token_w, "token", number_w, "x", number_w, "y", number_w,
		"length");
	for (int i = 0; i < g->queries + g->keys && !ferror(r->out); i++) {
		bool query = i < g->queries;
		int row = query ? i : i - g->queries;
		const char *token = query ? qkv_problem_query_label(r->p, row) : r->p->tokens[row];

		qkv_format_number(x, sizeof x, g->x[i], r->decimals);
		qkv_format_number(y, sizeof y, g->y[i], r->decimals);
		qkv_format_number(length, sizeof length, qkv_geometry_norm(query ? &r->t->q : &r->t->k, row),
				  r->decimals);
		fprintf(r->out, "%-5s  %s%*s  %*s  %*s  %*s\n", query ? "query" : "key", token,
			token_w - qkv_text_columns(token), "", number_w, x, number_w, y, number_w, length);
	}
	fprintf(r->out, "\n%s\n", r->dot);
	return 0;
}

/* The object: plane, explained, axes, points (and the sizes and the sentence). */
int print_geometry_json(const struct geometry_report *r)
{
	const struct qkv_geometry *g = r->g;
	FILE *out = r->out;

	fprintf(out, "{\n  \"plane\": \"%s\",\n  \"explained\": ", qkv_plane_name(g->plane));
	json_write_number(out, g->explained, JSON_17G);
	fprintf(out, ",\n  \"d_k\": %d,\n  \"spread\": ", g->d_k);
	json_write_number(out, g->spread, JSON_17G);
	fputs(",\n  \"axes\": [", out);
	for (int a = 0; a < 2; a++) {
		fputs(a > 0 ? ", [" : "[", out);
		for (int c = 0; c < g->d_k; c++) {
			if (c > 0)
				fputs(", ", out);
			json_write_number(out, g->axes[a * g->d_k + c], JSON_17G);
		}
		fputs("]", out);
	}
	fputs("],\n  \"points\": [\n", out);
	for (int i = 0; i < g->queries + g->keys && !ferror(out); i++) {
		bool query = i < g->queries;

		fprintf(out, "    {\"role\": \"%s\", \"token\": ", query ? "query" : "key");
		json_write_string(out, query ? qkv_problem_query_label(r->p, i) : r->p->tokens[i - g->queries]);
		fputs(", \"x\": ", out);
		json_write_number(out, g->x[i], JSON_17G);
		fputs(", \"y\": ", out);
		json_write_number(out, g->y[i], JSON_17G);
		fputs(i + 1 < g->queries + g->keys ? "},\n" : "}\n", out);
	}
	fprintf(out, "  ],\n  \"query\": %d,\n  \"key\": %d,\n  \"dot\": ", r->query, r->key);
	json_write_number(out, qkv_matrix_get(&r->t->scores, r->query, r->key), JSON_17G);
	fputs(",\n  \"sentence\": ", out);
	json_write_string(out, r->dot);
	fputs("\n}\n", out);
	return 0;
}

/* The figure: figure_geometry.c. */
int print_geometry_figure(const struct geometry_report *r)
{
	char scratch[256];
	char *err = r->err_size > 0 ? r->err : scratch;
	size_t err_size = r->err_size > 0 ? r->err_size : sizeof scratch;

	return figure_geometry_write(r->out, (enum figure_format)r->be->figure_format, r->p, r->t, r->g, r->query,
				     r->key, r->dot, r->plane, r->figure, err, err_size);
}

int print_geometry(FILE *out, const struct qkv_problem *p, const struct qkv_trace *t,
		   const struct print_options *o)
{
	const struct print_backend *be = print_backend_of(o->format);
	struct figure_options figure;
	struct qkv_geometry g;
	struct geometry_report r = {
		.out = out, .be = be, .p = p, .t = t, .g = &g,
		.query = print_clamp(o->cell_row, 0, t->m - 1), .key = print_clamp(o->cell_col, 0, t->n - 1),
		.decimals = print_clamp(o->decimals, 0, 12),
		.figure = o->figure != NULL ? o->figure : &figure, .err = o->err,
		.err_size = o->err != NULL ? o->err_size : 0,
	};
	char sentence[512], weight[32];
	int rc;

	figure_options_default(&figure);
	if (be == NULL || be->geometry == NULL || t->n <= 0 || t->m <= 0)
		return -1;
	qkv_geometry_init(&g);
	if (qkv_geometry_compute(&g, &t->q, &t->k) != 0) {
		qkv_geometry_fini(&g);
		return -1;
	}
	qkv_geometry_dot_sentence(sentence, sizeof sentence, qkv_problem_query_label(p, r.query), p->tokens[r.key],
				  qkv_matrix_get(&t->scores, r.query, r.key), qkv_geometry_norm(&t->q, r.query),
				  qkv_geometry_norm(&t->k, r.key));
	qkv_format_number(weight, sizeof weight, qkv_matrix_get(&t->weights, r.query, r.key), 2);
	if (t->masked != NULL && t->masked[(size_t)r.query * t->n + r.key])
		snprintf(r.dot, sizeof r.dot, "%s; masked, weight 0", sentence);
	else
		snprintf(r.dot, sizeof r.dot, "%s; weight %s", sentence, weight);
	qkv_geometry_plane_sentence(r.plane, sizeof r.plane, &g);
	rc = be->geometry(&r);
	qkv_geometry_fini(&g);
	if (rc != 0 || fflush(out) != 0 || ferror(out))
		return -1;
	return 0;
}

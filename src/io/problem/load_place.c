/* load_place.c — where in the text an error is, and the one line that says so:
 * "FILE:LINE:COL: what was expected". jansson has checked the syntax; a small
 * scanner over the same text finds the line and column of the key or value a
 * message is about. Also the checks that come before jansson: the encoding, and
 * jansson's own syntax errors worded for people. Never prints. */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/problem/load_place.h"
#include "io/problem/quote.h"
#include "qkv/format.h"
#include "qkv/text.h"

/* Bytes in the UTF-8 sequence starting at s (1..4), or 0 when it is not valid
 * UTF-8: the core's one check (qkv/format.h). */
static size_t utf8_sequence(const unsigned char *s, size_t avail)
{
	return qkv_utf8_decode((const char *)s, avail, NULL);
}

/* Line and column (1-based, columns in characters like jansson's) of a byte offset. */
static void offset_place(const char *text, size_t offset, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < offset; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)text[i] & 0xc0) != 0x80) {
			(*col)++;
		}
	}
}

/* Writes "NAME:LINE:COL: message" (or "NAME: message" when line is 0) into err.
 * Always returns -1, so callers can `return fail(...)`. */
__attribute__((format(printf, 4, 0)))
static int vfail(const struct loader *ld, int line, int col, const char *format, va_list args)
{
	char name[512];
	int used;

	if (ld->err_size == 0)
		return -1;
	quote_text(name, sizeof name, ld->name, strlen(ld->name), sizeof name - 16);
	if (line > 0)
		used = snprintf(ld->err, ld->err_size, "%s:%d:%d: ", name, line, col);
	else
		used = snprintf(ld->err, ld->err_size, "%s: ", name);
	if (used >= 0 && (size_t)used < ld->err_size)
		vsnprintf(ld->err + used, ld->err_size - (size_t)used, format, args);
	return -1;
}

/* An error at a byte offset of the text. */
__attribute__((format(printf, 3, 4)))
int load_fail_offset(const struct loader *ld, size_t offset, const char *format, ...)
{
	va_list args;
	int line, col;

	offset_place(ld->text, offset, &line, &col);
	va_start(args, format);
	vfail(ld, line, col, format, args);
	va_end(args);
	return -1;
}

/* An error with no place in the text (the file as a whole). */
__attribute__((format(printf, 2, 3)))
int load_fail_file(const struct loader *ld, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vfail(ld, 0, 0, format, args);
	va_end(args);
	return -1;
}

/* A cursor over text that jansson has already accepted as JSON. */
struct scan {
	const char *s;
	size_t length;
	size_t pos;
};

static char scan_peek(const struct scan *c)
{
	return c->pos < c->length ? c->s[c->pos] : '\0';
}

static void scan_space(struct scan *c)
{
	while (c->pos < c->length && strchr(" \t\r\n", c->s[c->pos]) != NULL)
		c->pos++;
}

/* Steps over a string, quotes included. */
static void scan_string(struct scan *c)
{
	c->pos++;
	while (c->pos < c->length && c->s[c->pos] != '"')
		c->pos += c->s[c->pos] == '\\' ? 2 : 1;
	c->pos++;
}

/* Steps over one value of any kind, without recursion (depth is counted). */
static void scan_value(struct scan *c)
{
	size_t depth = 0;

	do {
		char ch = scan_peek(c);

		if (ch == '"') {
			scan_string(c);
		} else if (ch == '{' || ch == '[') {
			depth++;
			c->pos++;
		} else if (ch == '}' || ch == ']') {
			depth--;
			c->pos++;
		} else if (ch == ',' || ch == ':' || strchr(" \t\r\n", ch) != NULL) {
			c->pos++;
		} else {
			while (c->pos < c->length && strchr(",]} \t\r\n", c->s[c->pos]) == NULL)
				c->pos++;
		}
	} while (depth > 0 && c->pos < c->length);
}

/* The byte offset of the key or value that `at` names. */
static size_t scan_locate(const struct loader *ld, const struct place *at)
{
	struct scan c = { ld->text, ld->length, 0 };

	scan_space(&c);
	for (int d = 0; d < at->depth; d++) {
		bool object = scan_peek(&c) == '{';
		bool last = d == at->depth - 1;

		c.pos++;
		for (size_t i = 0;; i++) {
			scan_space(&c);
			if (object) {
				if (i == at->step[d] && last && at->key)
					return c.pos;
				scan_string(&c);
				scan_space(&c);
				c.pos++;
				scan_space(&c);
			}
			if (i == at->step[d] || c.pos >= c.length)
				break;
			scan_value(&c);
			scan_space(&c);
			c.pos++;
		}
	}
	return c.pos < c.length ? c.pos : c.length;
}

/* An error about the key or value that `at` names. */
__attribute__((format(printf, 3, 4)))
int load_fail_at(const struct loader *ld, const struct place *at, const char *format, ...)
{
	va_list args;
	int line, col;

	offset_place(ld->text, scan_locate(ld, at), &line, &col);
	va_start(args, format);
	vfail(ld, line, col, format, args);
	va_end(args);
	return -1;
}

/* The place of a top-level member's value (or key), with up to two more steps. */
struct place load_place_of(const struct loader *ld, const char *key, int depth, size_t row,
			     size_t col)
{
	struct place at = { 1 + depth, { 0, row, col }, false };
	const char *name;
	json_t *value;

	json_object_foreach(ld->root, name, value) {
		if (strcmp(name, key) == 0)
			break;
		at.step[0]++;
	}
	return at;
}

/* "s" after a count other than one. */
const char *load_plural(size_t count)
{
	return count == 1 ? "" : "s";
}

/* "a string", "an array", ... for messages; numbers are shown by callers. */
const char *load_type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
		return "true";
	case JSON_FALSE:
		return "false";
	case JSON_NULL:
		return "null";
	}
	return "something else";
}

/* Refuses NUL bytes and text that is not UTF-8, at their exact place, before
 * jansson sees the text (so binary files get a clear line, not a parse error). */
int load_check_encoding(const struct loader *ld)
{
	const unsigned char *s = (const unsigned char *)ld->text;

	for (size_t i = 0; i < ld->length;) {
		size_t seq;
		uint64_t word;

		/* Eight bytes at a time while they are ASCII and not NUL, as nearly every
		 * byte of a problem file is (no high bit; no zero byte: the classic
		 * (w − 0x01…) & ~w & 0x80… test). */
		if (ld->length - i >= 8) {
			memcpy(&word, s + i, sizeof word);
			if ((word & 0x8080808080808080ULL) == 0 &&
			    ((word - 0x0101010101010101ULL) & ~word & 0x8080808080808080ULL) == 0) {
				i += 8;
				continue;
			}
		}
		if (s[i] != 0 && s[i] < 0x80) {
			i++; /* ASCII */
			continue;
		}
		seq = utf8_sequence(s + i, ld->length - i);
		if (s[i] == 0)
			return load_fail_offset(ld, i, "a NUL byte: a problem file is JSON text, "
						  "not binary data");
		if (seq == 0)
			return load_fail_offset(ld, i, "byte 0x%02x is not valid UTF-8: a problem file "
						  "is UTF-8 JSON text", s[i]);
		i += seq;
	}
	return 0;
}

/* True when the text at offset is the word NaN or Infinity (any case, any sign). */
static bool looks_non_finite(const char *text, size_t length, size_t offset)
{
	static const char *const words[] = { "nan", "inf", "infinity" };

	if (offset < length && (text[offset] == '-' || text[offset] == '+'))
		offset++;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		size_t w = strlen(words[i]);

		if (offset + w <= length && strncasecmp(text + offset, words[i], w) == 0 &&
		    (offset + w == length || !isalnum((unsigned char)text[offset + w])))
			return true;
	}
	return false;
}

/* Turns a jansson syntax error into one line, placed at the start of the token
 * jansson complains about when that token can be found, else where jansson says. */
/* A number too large for jansson to hold: jansson's place is at or after the
 * literal, so the literal is found in the text and quoted from there, with what
 * the key it belongs to allows. */
static int number_overflow(const struct loader *ld, size_t offset)
{
	const char *text = ld->text;
	size_t start = offset < ld->length ? offset : ld->length, end, colon;
	char literal[LOAD_MAX_QUOTE * 4 + 8], key[32] = "";
	int depth = 0;

	while (start > 0 && strchr("0123456789+-.eE", text[start - 1]) != NULL && text[start - 1] != '\0')
		start--;
	if (start == offset && start < ld->length && strchr("0123456789-", text[start]) == NULL) {
		/* jansson pointed past the literal and whitespace: step back over both. */
		while (start > 0 && strchr(" \t\r\n,]", text[start - 1]) != NULL)
			start--;
		while (start > 0 && strchr("0123456789+-.eE", text[start - 1]) != NULL)
			start--;
	}
	end = start;
	while (end < ld->length && strchr("0123456789+-.eE", text[end]) != NULL && text[end] != '\0')
		end++;
	quote_text(literal, sizeof literal, text + start, end - start, LOAD_MAX_QUOTE);
	/* The key: back out of the arrays around the literal to the ':' before them. */
	for (colon = start; colon > 0; colon--) {
		char c = text[colon - 1];

		if (c == ']')
			depth++;
		else if (c == '[')
			depth--;
		else if (c == ':' && depth <= 0)
			break;
	}
	if (colon > 0) {
		size_t close = colon - 1, open;

		while (close > 0 && strchr(" \t\r\n", text[close - 1]) != NULL)
			close--;
		if (close > 0 && text[close - 1] == '"') {
			for (open = close - 1; open > 0 && text[open - 1] != '"'; open--)
				;
			if (open > 0 && close - 1 - open < sizeof key)
				snprintf(key, sizeof key, "%.*s", (int)(close - 1 - open), text + open);
		}
	}
	if (strcmp(key, "seed") == 0)
		return load_fail_offset(ld, start, "\"seed\" must be a whole number from 0 to 9007199254740991 "
					      "(2^53 - 1), found %s", literal);
	if (strcmp(key, "padding") == 0)
		return load_fail_offset(ld, start, "\"padding\" holds %s, too large for a token index (0 to "
					      "n − 1)", literal);
	return load_fail_offset(ld, start, "the number %s is too large (values must be within "
				      "±" LOAD_LIMIT(QKV_MAX_VALUE) ")", literal);
}

int load_syntax_error(const struct loader *ld, const json_error_t *e)
{
	const char *near = strstr(e->text, " near ");
	size_t offset = (size_t)e->position;
	char what[JSON_ERROR_TEXT_LENGTH];
	char token[LOAD_MAX_QUOTE * 4 + 8] = "";
	size_t what_length = near != NULL ? (size_t)(near - e->text) : strlen(e->text);

	quote_text(what, sizeof what, e->text, what_length, sizeof what);
	if (offset > ld->length)
		offset = ld->length;
	if (near != NULL && near[strlen(" near ")] == '\'') {
		const char *start = near + strlen(" near '");
		size_t length = strlen(start);

		if (length > 0 && start[length - 1] == '\'')
			length--;
		if (length <= offset && memcmp(ld->text + offset - length, start, length) == 0)
			offset -= length;
		quote_text(token, sizeof token, start, length, LOAD_MAX_QUOTE);
	}
	switch (json_error_code(e)) {
	case json_error_out_of_memory:
		return load_fail_file(ld, "out of memory while reading the file");
	case json_error_stack_overflow:
		return load_fail_offset(ld, offset, "nested more than %d levels deep; a problem needs "
					       "at most 3", JSON_PARSER_MAX_DEPTH);
	case json_error_premature_end_of_input:
		offset = ld->length;
		while (offset > 0 && strchr(" \t\r\n", ld->text[offset - 1]) != NULL)
			offset--;
		if (strcmp(what, "premature end of input") == 0)
			return load_fail_offset(ld, offset, "the file ends too early, in the middle of "
						       "a value");
		return load_fail_offset(ld, offset, "the file ends too early: %s", what);
	case json_error_end_of_input_expected:
		return load_fail_offset(ld, offset, "unexpected text after the end of the JSON object: "
					       "'%s'", token);
	case json_error_duplicate_key:
		return load_fail_offset(ld, offset, "duplicate key %s: each key may be given once", token);
	case json_error_numeric_overflow:
		return number_overflow(ld, offset);
	case json_error_null_character:
	case json_error_null_byte_in_key:
		return load_fail_offset(ld, offset, "\\u0000 is not allowed in a string");
	default:
		break;
	}
	if (offset < ld->length && ld->text[offset] == '/')
		return load_fail_offset(ld, offset, "comments are not allowed in JSON");
	if (offset < ld->length && ld->text[offset] == '\'')
		return load_fail_offset(ld, offset, "strings in JSON take double quotes (\"), not "
					       "single quotes");
	if (looks_non_finite(ld->text, ld->length, offset))
		return load_fail_offset(ld, offset, "NaN and Infinity are not JSON numbers; every value "
					       "must be a finite number");
	if (token[0] != '\0')
		return load_fail_offset(ld, offset, "invalid JSON: %s near '%s'", what, token);
	return load_fail_offset(ld, offset, "invalid JSON: %s", what);
}

bool load_is_blank(const struct loader *ld)
{
	struct scan c = { ld->text, ld->length, 0 };

	scan_space(&c);
	return c.pos == ld->length;
}

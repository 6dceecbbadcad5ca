/* text.h — the words under the grids, and how many lines they take: the formula
 * line with its verdict, the selected cell's derivation, the status sentence (a
 * question or the message). The layout reserves their lines before it places the
 * grids, and draw.c draws them into those lines, from the same strings, so a
 * text is never cut to make room for a grid. */
#ifndef QKV_TUI_TEXT_H
#define QKV_TUI_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "app/app.h"

#define TEXT_MAX 1024
#define TEXT_NOTES_MAX 16384 /* a lesson step's notes as one paragraph */

/* The formula line (with its words on the selected row) and the derivation of the
 * selected cell, at `decimals` places. readout: the readout panel is on screen
 * (else the live formula line carries its key figures). */
void text_info(const struct app *app, int decimals, bool readout, char *formula, size_t formula_size,
	       char *derivation, size_t derivation_size);
/* The status line's sentence: a question (y / n) or the message; NULL while a
 * file name is typed (one line of its own). *error: drawn as an error. */
const char *text_status(const struct app *app, char *buf, size_t size, bool *error);
/* Lines text needs at `width` columns (0 for an empty text), as drawn (through
 * glyphs_text, broken by qkv_text_line). */
int text_lines(const char *text, int width);
/* The items of a line (" · " between them) that fit in `width` columns, in their
 * order: the first always, then each later one that still fits; a hint that
 * does not fit is left out whole, never cut. */
void text_items_fitting(char *buf, size_t size, const char *items, int width);

#endif

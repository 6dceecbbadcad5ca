/* latex_text.h — qkv's own plain UTF-8 (its sentences and derivations, written
 * for a terminal) as LaTeX: escaped for text mode, or with its formulas typeset
 * as inline math ($a_{ij}$, $\sum_k$, $W_O$, $\sqrt{2}$, $K^\top$) and its words
 * as text, so a line wraps at its spaces and never runs into the margin. What the
 * LaTeX report (print_latex.c) writes prose and derivations with; the output
 * needs amsmath (\text) and nothing else, under pdflatex and lualatex alike. */
#ifndef QKV_IO_LATEX_TEXT_H
#define QKV_IO_LATEX_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "qkv/problem.h"

/* Copies src to dst escaped for LaTeX text mode: the ten special characters,
 * < > | (the default font encoding has no glyphs for them) and qkv's own glyphs
 * (×, ·, Σ, √, −, ≈, …); never cuts a character or an escape in two. dst grows
 * by at most QKV_ESCAPE_GROWTH bytes per byte of src (print_model.h). */
void latex_text_escape(char *dst, size_t size, const char *src);

/* Writes one line of qkv's plain text to out with its formulas as inline math and
 * everything else as escaped text. p's token and query labels (p may be NULL) are
 * recognised where a formula names a row or column (S[t1,t2], q_t1) and written
 * as \text{…}, whatever characters they hold. Any text is safe: what is not read
 * as a formula is escaped as text. */
void latex_text_math(FILE *out, const char *line, const struct qkv_problem *p);

/* A label longer than this (in bytes) is never set whole: in a formula or a
 * sentence it is text that may break between any two characters. */
#define LATEX_LONG_LABEL 16

/* Writes text (a label, as the user wrote it) escaped for text mode, with a
 * \allowbreak{} between every two characters: typewriter and special characters
 * are never hyphenated, so a long label breaks anywhere instead of running on. */
void latex_text_breakable(FILE *out, const char *text);

/* The width in points that a cell (a number, a label, "—", a little LaTeX) takes
 * at 10 pt, generously (each character as wide as Computer Modern's widest of its
 * kind, or wider): for splitting a wide table into column groups that fit. */
double latex_text_width(const char *cell);

/* What a table may take across, in points at 10 pt: an article's text is 345 pt
 * wide, a Beamer frame's 307.29 pt (Beamer's default: 128 mm paper less 10 mm
 * margins, type at 11 pt, so 270 pt at 10 pt take 297 pt there), and the
 * estimates above are generous. */
#define LATEX_FIT_WIDTH 270.0

/* The widest a column of labels gets, in points at 10 pt: a label estimated
 * wider is set in a p{} column this wide and breaks between its characters. */
#define LATEX_LABEL_WIDTH 100.0

/* Splits columns 0..cols-1, widths[c] points wide each (spacing included), into
 * groups that fit LATEX_FIT_WIDTH beside a part `fixed` points wide (a name, a
 * label column) that each group repeats: group g is columns starts[g] up to
 * starts[g + 1] - 1 (starts has room for cols + 1 entries). A column wider than
 * the rest of the width is a group of its own. Returns the number of groups,
 * 1 when the whole table fits. */
int latex_text_groups(const double *widths, int cols, double fixed, int *starts);

/* The most lines a table is set in, its heading's included: 14 lines take 168 pt
 * at 10 pt and 190 pt at 11 pt, less than a Beamer frame's text height (269 pt,
 * its title's included). A longer table is written in runs of rows, each a
 * tabular with the heading again, so that a page can break between them. */
#define LATEX_FIT_LINES 14

/* Splits rows 0..rows-1 of a table, lines[r] lines each, into runs of at most
 * LATEX_FIT_LINES lines, each run `heading` lines (its heading, the line naming
 * it) and its rows: run k is rows starts[k] up to starts[k + 1] - 1 (starts has
 * room for rows + 1 entries). A row too tall for a run with the heading is a run
 * of its own. Returns the number of runs, 1 when the whole table fits (and for
 * no rows). */
int latex_text_runs(const int *lines, int rows, int heading, int *starts);

/* The lines a label takes when it breaks in a box LATEX_LABEL_WIDTH wide: a
 * line for each LATEX_LABEL_WIDTH of its estimated width, less a character's
 * slack, at 11 pt (a Beamer frame's type, 1.1 times as wide as 10 pt). */
int latex_text_label_lines(const char *label);

/* Opens a box raised by its own depth, so that it stands on the baseline with no
 * depth (closed by "}"): every matrix and tabular is in one. A page of a Beamer
 * frame with allowframebreaks is cut by \vsplit, which leaves the depth of the
 * page's last box out of the height it fills, so a page ending in a deep matrix
 * or table would run below the frame; with no depth it fits. */
#define LATEX_NO_DEPTH "\\raisebox{\\depth}{"

/* What the report needs around it (its first comment says so too). */
#define LATEX_REPORT_PREAMBLE "\\usepackage{amsmath}"

/* --standalone: a whole document around the LaTeX that follows. Begins it
 * (\documentclass{article}, `preamble`, \begin{document}) or ends it; the
 * document compiles with pdflatex and with lualatex. */
void latex_text_document_begin(FILE *out, const char *preamble);
void latex_text_document_end(FILE *out);

#endif

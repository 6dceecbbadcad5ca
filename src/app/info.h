/* info.h — the lines under the grids whose words the core writes: the selected
 * cell's derivation and, for a multi-head problem, the cost line and the averaged
 * heads (the wrong way) in the live view, or stage 6's and 7's formula. The
 * interface draws them and a lesson's `expect info` checks them: one source for
 * both. No curses. */
#ifndef QKV_APP_INFO_H
#define QKV_APP_INFO_H

#include <stdbool.h>
#include <stddef.h>

#include "app/app.h"

/* Writes the derivation line into derivation (size > 0; "" when there is none)
 * with numbers to `decimals` places, and, when the formula line's words are the
 * heads' (a multi-head problem, live or in stage 6 or 7), the formula line into
 * formula (size > 0) and returns true. Returns false when the formula line is
 * the interface's own (a one-head formula and its verdict): formula is then "". */
bool app_info_lines(const struct app *app, int decimals, char *formula, size_t formula_size, char *derivation,
		    size_t derivation_size);

#endif

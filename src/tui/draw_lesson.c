/* draw_lesson.c — the lesson's lines (draw_lesson.h). */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "qkv/format.h"
#include "tui/draw_lesson.h"
#include "tui/palette.h"

/* Writes s on row y over the width, ending in "…" when it does not fit. */
static void put_line(int y, int width, struct cell_style style, const char *s)
{
	bool cut = qkv_text_columns(s) > width;
	int room = cut ? width - 1 : width, columns = 0;
	const char *end = s;

	palette_apply(stdscr, style);
	mvhline(y, 0, ' ', width);
	while (*end != '\0') {
		if (((unsigned char)*end & 0xc0) != 0x80) {
			if (columns == room)
				break;
			columns++;
		}
		end++;
	}
	mvaddnstr(y, 0, s, (int)(end - s));
	if (cut && width > 0)
		mvaddstr(y, width - 1, "…");
}

void draw_lesson(const struct app *app, const struct layout *l, const struct lesson_run *run, bool followed)
{
	const struct lesson_step *step = &run->lesson->steps[run->step];
	char text[1024];
	int y = l->status_y;

	if (l->too_small || y + 1 >= l->height)
		return;
	/* The keys line: where the lesson is, and how to move in it. */
	snprintf(text, sizeof text, " Step %d of %d: %s · %s", run->step + 1, run->lesson->step_count, step->title,
		 run->said[0] != '\0' ? run->said : "PgDn next · PgUp back · Home first · number Enter jumps");
	put_line(y + 1, l->width, palette_role(ROLE_CURSOR), text);
	/* The message line: the notes, until something is changed by hand or a
	 * presenter screen shows them. */
	if (!followed && !run->explored && !app->editing && app->prompt == PROMPT_NONE && step->notes[0] != '\0') {
		size_t i = 0;

		text[i++] = ' ';
		for (const char *c = step->notes; *c != '\0' && i + 2 < sizeof text; c++)
			text[i++] = *c == '\n' ? ' ' : *c;
		text[i] = '\0';
		put_line(y, l->width, palette_role(ROLE_STATUS), text);
	}
	wnoutrefresh(stdscr);
	doupdate();
}

/* help.h — where the help overlay puts each entry of the key table: grouped under
 * headings, in as many columns as the screen holds, and in pages when even those
 * are not enough, so that every key is on some page at any size. Pure geometry on
 * the key table; the app pages with it (PgDn / PgUp in the help) and the
 * interface draws it. No curses. */
#ifndef QKV_APP_HELP_H
#define QKV_APP_HELP_H

#include "app/app.h"

/* Entries and headings the help lays out at most. */
#define APP_HELP_MAX 256
/* Columns from one entry column to the next: name, a space, note, two spaces. */
#define APP_HELP_COLUMN (APP_KEY_NAME_MAX + 1 + APP_KEY_NOTE_MAX + 2)

/* One line of the help: a binding (name and note) or a group's heading. */
struct app_help_item {
	const char *name; /* the keys, as the help writes them; NULL for a heading */
	const char *text; /* the binding's note, or the heading's words */
	int page;         /* 0 = the first */
	int column;       /* entry column on its page, 0 = the leftmost */
	int line;         /* line inside the box, 0 = the first under the frame */
};

struct app_help {
	int x, y, w, h; /* the box on the screen, its frame included */
	int columns;    /* entry columns a page */
	int lines;      /* lines of entries a column (the box's height less frame and footer) */
	int pages;
	int count;
	struct app_help_item items[APP_HELP_MAX];
};

/* Lays the help out for a screen of width × height: every binding with a note,
 * under its group's heading (groups in the order they first appear in the key
 * table), a group kept in one column when it fits one. Prefers a box of two
 * columns (80 wide), as short as holds everything; more columns when two are not
 * enough and the screen is wide; pages when the screen holds too little. */
void app_help_layout(struct app_help *help, int width, int height);
/* The same from the rows of keys (app_keys_gather). */
void app_help_layout_keys(struct app_help *help, const struct app_keys *keys, int width, int height);
/* The same for the help->count items already in help->items (name and text set):
 * sets their page, column and line, and the box. */
void app_help_place(struct app_help *help, int width, int height);

#endif

/* record.h — the session as an asciicast v2 file (asciinema's format): a JSON
 * header line, then one line per event, [seconds, "o", text] for what the screen
 * shows and [seconds, "r", "WxH"] for a resize. Each "o" frame repaints the whole
 * screen from curses' own copy of it (characters, attributes, colours), so playing
 * the frames back in a terminal of that size shows the screen as it was. */
#ifndef QKV_TUI_RECORD_H
#define QKV_TUI_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct record;

/* What the recording must not replace, and whether it may replace a file. */
struct record_files {
	const char *problem;  /* the problem file being opened, or NULL */
	const char *lesson;   /* the lesson being presented, or NULL */
	bool force;           /* --force: an existing file is replaced */
};

/* Creates the file at path and writes the header for a terminal of width × height.
 * A new file is made with O_EXCL; an existing regular file only with files->force,
 * and then replaced when the recording closes (written beside it, renamed over
 * it); a terminal, a pipe or a device is written straight; the problem file or the
 * lesson (the same file, whatever its name) never. NULL with one line in err. */
struct record *record_open(const char *path, const struct record_files *files, int width, int height,
			   char *err, size_t err_size);
/* Writes a frame of stdscr as it is now, unless it shows what the last one did;
 * a resize event first when the screen's size changed. Each frame is flushed. */
void record_frame(struct record *r);
/* Closes the file (with --force, renames it over the file it replaces). 0, or -1
 * with one line in err when something was not written: the recording is then
 * incomplete, and qkv ends with status 1. */
int record_close(struct record *r, char *err, size_t err_size);

#endif

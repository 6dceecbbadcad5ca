/* record.h — the session as an asciicast v2 file (asciinema's format): a JSON
 * header line, then one line per event, [seconds, "o", text] for what the screen
 * shows and [seconds, "r", "WxH"] for a resize. Each "o" frame repaints the whole
 * screen from curses' own copy of it (characters, attributes, colours), so playing
 * the frames back in a terminal of that size shows the screen as it was. */
#ifndef QKV_TUI_RECORD_H
#define QKV_TUI_RECORD_H

#include <stddef.h>
#include <stdint.h>

struct record;

/* Creates the file at path (replacing it) and writes the header for a terminal of
 * width × height. NULL with one line in err when it cannot be written. */
struct record *record_open(const char *path, int width, int height, char *err, size_t err_size);
/* Writes a frame of stdscr as it is now, unless it shows what the last one did;
 * a resize event first when the screen's size changed. */
void record_frame(struct record *r);
/* Closes the file. 0, or -1 with one line in err when something was not written. */
int record_close(struct record *r, char *err, size_t err_size);

#endif
